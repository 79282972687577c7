package mysql

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/sqlgym/sqlgym"
)

// Load creates database db on the server at adminDSN (a mysql:// URL or
// driver DSN of an account that may create databases) and runs the DDL
// and INSERT statements in it, in UTC: the seeding path of `sqlgym db
// create --engine mysql`. A database that already holds tables is refused
// unless replace, which drops it first. Readers keep their access through
// a replace: database-level grants outlive DROP DATABASE.
func Load(ctx context.Context, adminDSN, db string, replace bool, stmts []string) error {
	if db == "" || strings.ContainsAny(db, "`/\\.") {
		return sqlgym.Userf("pass --schema NAME (letters, digits, _)", "mysql load: bad database name %q", db)
	}
	cfg, err := parseDSN(adminDSN)
	if err != nil {
		return err
	}
	cfg.DBName = ""
	pool, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		return fmt.Errorf("mysql load: %w", err)
	}
	defer pool.Close()
	conn, err := pool.Conn(ctx)
	if err != nil {
		return infra(ctx, fmt.Errorf("mysql load: connect: %w", err))
	}
	defer conn.Close()
	var tables int
	if err := conn.QueryRowContext(ctx, "SELECT count(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = ?", db).Scan(&tables); err != nil {
		return infra(ctx, fmt.Errorf("mysql load: inspect database %s: %w", db, err))
	}
	if tables > 0 && !replace {
		return sqlgym.Userf("pass --replace to drop database "+db+" and everything in it, or choose another --schema",
			"mysql database %q already holds %d tables or views", db, tables)
	}
	ident := "`" + db + "`"
	setup := []string{"SET time_zone = '+00:00'", "CREATE DATABASE IF NOT EXISTS " + ident + " CHARACTER SET utf8mb4", "USE " + ident}
	if replace {
		setup = append([]string{"DROP DATABASE IF EXISTS " + ident}, setup...)
	}
	for _, s := range setup {
		if _, err := conn.ExecContext(ctx, s); err != nil {
			return fmt.Errorf("mysql load: %s: %w", s, err)
		}
	}
	for i, s := range stmts {
		if _, err := conn.ExecContext(ctx, s); err != nil {
			return fmt.Errorf("mysql load: statement %d (%s): %w", i+1, abbreviate(s), err)
		}
	}
	return nil
}

func abbreviate(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 80 {
		return s[:80] + "..."
	}
	return s
}
