package mysql

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"net/url"
	"strings"
)

// The functions here make and change variant databases (sqlgym variants)
// as an administrator account: MySQL has schemas only as databases, so a
// variant of database D is a database D_vK on the same server, which the
// reader account is granted SELECT on.

// RowID is the column every table of a candidate database has (see
// Candidates.Build), numbering its rows (MySQL has no rowid): the variant
// planner's statements name a row by it. It is invisible (SELECT * leaves
// it out) and dropped when the candidate is kept.
const RowID = "sg_rowid"

// adminConn opens one connection of the administrator at dsn (a mysql://
// URL or a driver DSN), in UTC, in no database.
func adminConn(ctx context.Context, dsn string) (*sql.DB, *sql.Conn, error) {
	cfg, err := parseDSN(dsn)
	if err != nil {
		return nil, nil, err
	}
	cfg.DBName = ""
	cfg.MultiStatements = false
	pool, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		return nil, nil, fmt.Errorf("mysql admin: %w", err)
	}
	conn, err := pool.Conn(ctx)
	if err == nil {
		_, err = conn.ExecContext(ctx, "SET time_zone = '+00:00'")
	}
	if err != nil {
		pool.Close()
		return nil, nil, infra(ctx, fmt.Errorf("mysql admin connect: %w", err))
	}
	return pool, conn, nil
}

func quoteName(s string) string { return "`" + strings.ReplaceAll(s, "`", "``") + "`" }

func adminExec(ctx context.Context, dsn string, stmts ...string) error {
	pool, conn, err := adminConn(ctx, dsn)
	if err != nil {
		return err
	}
	defer pool.Close()
	defer conn.Close()
	for _, s := range stmts {
		if _, err := conn.ExecContext(ctx, s); err != nil {
			return fmt.Errorf("%s: %w", abbreviate(s), err)
		}
	}
	return nil
}

func queryColumn(ctx context.Context, conn *sql.Conn, q string, args ...any) ([]string, error) {
	rows, err := conn.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// DatabasesLike lists the databases whose names match the regular
// expression pattern (the server's REGEXP), in name order.
func DatabasesLike(ctx context.Context, adminDSN, pattern string) ([]string, error) {
	pool, conn, err := adminConn(ctx, adminDSN)
	if err != nil {
		return nil, err
	}
	defer pool.Close()
	defer conn.Close()
	out, err := queryColumn(ctx, conn, "SELECT SCHEMA_NAME FROM information_schema.SCHEMATA WHERE SCHEMA_NAME REGEXP ? ORDER BY 1", pattern)
	if err != nil {
		return nil, fmt.Errorf("list databases: %w", err)
	}
	return out, nil
}

// DropDatabase drops database db if it exists.
func DropDatabase(ctx context.Context, adminDSN, db string) error {
	return adminExec(ctx, adminDSN, "DROP DATABASE IF EXISTS "+quoteName(db))
}

func baseTables(ctx context.Context, conn *sql.Conn, db string) ([]string, error) {
	return queryColumn(ctx, conn, "SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_TYPE = 'BASE TABLE' ORDER BY TABLE_NAME", db)
}

// grantReaders grants SELECT on database db to each reader's user, on
// every host that user is defined for.
func grantReaders(ctx context.Context, conn *sql.Conn, db string, readers []string) error {
	for _, r := range readers {
		cfg, err := parseDSN(r)
		if err != nil || cfg.User == "" {
			continue
		}
		hosts, err := queryColumn(ctx, conn, "SELECT Host FROM mysql.user WHERE User = ?", cfg.User)
		if err != nil {
			return fmt.Errorf("grant %s: %w", db, err)
		}
		for _, h := range hosts {
			g := fmt.Sprintf("GRANT SELECT ON %s.* TO '%s'@'%s'", quoteName(db), sqlEscape(cfg.User), sqlEscape(h))
			if _, err := conn.ExecContext(ctx, g); err != nil {
				return fmt.Errorf("grant the reader SELECT on %s: %w", db, err)
			}
		}
	}
	return nil
}

func sqlEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `'`, `''`).Replace(s)
}

// renameDatabase moves every table of database from into database to
// (created here with charset, a CHARACTER SET clause; MySQL has no
// RENAME DATABASE), grants the readers SELECT
// on it and drops from.
func renameDatabase(ctx context.Context, conn *sql.Conn, from, to, charset string, readers []string) error {
	tables, err := baseTables(ctx, conn, from)
	if err != nil {
		return fmt.Errorf("rename database %s: %w", from, err)
	}
	if _, err := conn.ExecContext(ctx, "CREATE DATABASE "+quoteName(to)+" "+charset); err != nil {
		return fmt.Errorf("rename database %s to %s: %w", from, to, err)
	}
	var moves []string
	for _, t := range tables {
		moves = append(moves, quoteName(from)+"."+quoteName(t)+" TO "+quoteName(to)+"."+quoteName(t))
	}
	if len(moves) > 0 {
		if _, err := conn.ExecContext(ctx, "RENAME TABLE "+strings.Join(moves, ", ")); err != nil {
			return fmt.Errorf("rename database %s to %s: %w", from, to, err)
		}
	}
	if _, err := conn.ExecContext(ctx, "DROP DATABASE "+quoteName(from)); err != nil {
		return fmt.Errorf("rename database %s to %s: %w", from, to, err)
	}
	return grantReaders(ctx, conn, to, readers)
}

// Digest is a digest of database db's tables: their names, definitions
// (SHOW CREATE TABLE) and contents (CHECKSUM TABLE ... EXTENDED, which
// reads every row), read as the administrator.
func Digest(ctx context.Context, adminDSN, db string) (string, error) {
	pool, conn, err := adminConn(ctx, adminDSN)
	if err != nil {
		return "", err
	}
	defer pool.Close()
	defer conn.Close()
	tables, err := baseTables(ctx, conn, db)
	if err != nil {
		return "", fmt.Errorf("digest %s: %w", db, err)
	}
	h := sha256.New()
	for _, t := range tables {
		q := quoteName(db) + "." + quoteName(t)
		var name, create string
		if err := conn.QueryRowContext(ctx, "SHOW CREATE TABLE "+q).Scan(&name, &create); err != nil {
			return "", fmt.Errorf("digest %s: %w", q, err)
		}
		var sum sql.NullString
		if err := conn.QueryRowContext(ctx, "CHECKSUM TABLE "+q+" EXTENDED").Scan(&name, &sum); err != nil {
			return "", fmt.Errorf("digest %s: %w", q, err)
		}
		// The AUTO_INCREMENT counter in the definition is left out: it
		// moves with rows inserted and deleted again.
		if i := strings.Index(create, " AUTO_INCREMENT="); i >= 0 {
			j := strings.IndexByte(create[i+1:], ' ')
			if j < 0 {
				create = create[:i]
			} else {
				create = create[:i] + create[i+1+j:]
			}
		}
		fmt.Fprintf(h, "%s\x00%s\x00%s\n", t, create, sum.String)
	}
	return "mysql:" + hex.EncodeToString(h.Sum(nil)), nil
}

// URLWithDatabase is the mysql:// URL u naming database db instead.
func URLWithDatabase(u, db string) string {
	p, err := url.Parse(u)
	if err != nil {
		return u
	}
	p.Path = "/" + db
	p.RawPath = ""
	return p.String()
}

// URLDatabase is the database a mysql:// URL names ("" when it does not
// parse).
func URLDatabase(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return ""
	}
	return strings.TrimPrefix(p.Path, "/")
}
