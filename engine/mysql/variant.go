package mysql

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/go-sql-driver/mysql"
	"github.com/sqlgym/sqlgym"
)

// The functions here make and change variant databases (sqlgym variants)
// as an administrator account: MySQL has schemas only as databases, so a
// variant of database D is a database D_vK on the same server, which the
// reader account is granted SELECT on.

// RowID is the column EditDatabase adds to every table for the duration
// of the edits, numbering its rows (MySQL has no rowid): the variant
// planner's statements name a row by it. It is invisible (SELECT * leaves
// it out) and dropped again before the edits return.
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

// CopyDatabase creates database to as a copy of from's tables: columns,
// keys and indexes (CREATE TABLE ... LIKE), foreign keys (which LIKE does
// not copy) and rows. Views are not copied. The accounts of readers
// (mysql:// URLs or driver DSNs; their user names) are granted SELECT on
// it, on every host their user is defined for.
func CopyDatabase(ctx context.Context, adminDSN, from, to string, readers ...string) error {
	pool, conn, err := adminConn(ctx, adminDSN)
	if err != nil {
		return err
	}
	defer pool.Close()
	defer conn.Close()
	var n int
	if err := conn.QueryRowContext(ctx, "SELECT count(*) FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?", to).Scan(&n); err != nil {
		return infra(ctx, fmt.Errorf("copy database %s: %w", from, err))
	}
	if n > 0 {
		return sqlgym.Userf("drop it (DROP DATABASE "+quoteName(to)+") or pass --replace", "mysql database %q already exists", to)
	}
	tables, err := baseTables(ctx, conn, from)
	if err != nil {
		return fmt.Errorf("copy database %s: list tables: %w", from, err)
	}
	type fk struct{ table, name, cols, refTable, refCols string }
	rows, err := conn.QueryContext(ctx, `SELECT k.TABLE_NAME, k.CONSTRAINT_NAME,
			GROUP_CONCAT(CONCAT('`+"`"+`', REPLACE(k.COLUMN_NAME, '`+"`"+`', '`+"``"+`'), '`+"`"+`') ORDER BY k.ORDINAL_POSITION),
			k.REFERENCED_TABLE_NAME,
			GROUP_CONCAT(CONCAT('`+"`"+`', REPLACE(k.REFERENCED_COLUMN_NAME, '`+"`"+`', '`+"``"+`'), '`+"`"+`') ORDER BY k.ORDINAL_POSITION)
		FROM information_schema.KEY_COLUMN_USAGE k
		WHERE k.TABLE_SCHEMA = ? AND k.REFERENCED_TABLE_NAME IS NOT NULL AND k.REFERENCED_TABLE_SCHEMA = k.TABLE_SCHEMA
		GROUP BY k.TABLE_NAME, k.CONSTRAINT_NAME, k.REFERENCED_TABLE_NAME ORDER BY 1, 2`, from)
	if err != nil {
		return fmt.Errorf("copy database %s: list foreign keys: %w", from, err)
	}
	var fks []fk
	for rows.Next() {
		var f fk
		if err := rows.Scan(&f.table, &f.name, &f.cols, &f.refTable, &f.refCols); err != nil {
			rows.Close()
			return fmt.Errorf("copy database %s: %w", from, err)
		}
		fks = append(fks, f)
	}
	rows.Close()
	stmts := []string{"CREATE DATABASE " + quoteName(to) + " CHARACTER SET utf8mb4", "SET foreign_key_checks = 0"}
	for _, t := range tables {
		src, dst := quoteName(from)+"."+quoteName(t), quoteName(to)+"."+quoteName(t)
		stmts = append(stmts, "CREATE TABLE "+dst+" LIKE "+src, "INSERT INTO "+dst+" SELECT * FROM "+src)
	}
	for _, f := range fks {
		stmts = append(stmts, fmt.Sprintf("ALTER TABLE %s.%s ADD CONSTRAINT %s FOREIGN KEY (%s) REFERENCES %s.%s (%s)",
			quoteName(to), quoteName(f.table), quoteName(f.name), f.cols, quoteName(to), quoteName(f.refTable), f.refCols))
	}
	stmts = append(stmts, "SET foreign_key_checks = 1")
	for _, s := range stmts {
		if _, err := conn.ExecContext(ctx, s); err != nil {
			return fmt.Errorf("copy database %s to %s: %s: %w", from, to, abbreviate(s), err)
		}
	}
	return grantReaders(ctx, conn, to, readers)
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

// RenameDatabase moves every table of database from into database to
// (created here; MySQL has no RENAME DATABASE), grants the readers SELECT
// on it and drops from.
func RenameDatabase(ctx context.Context, adminDSN, from, to string, readers ...string) error {
	pool, conn, err := adminConn(ctx, adminDSN)
	if err != nil {
		return err
	}
	defer pool.Close()
	defer conn.Close()
	tables, err := baseTables(ctx, conn, from)
	if err != nil {
		return fmt.Errorf("rename database %s: %w", from, err)
	}
	if _, err := conn.ExecContext(ctx, "CREATE DATABASE "+quoteName(to)+" CHARACTER SET utf8mb4"); err != nil {
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

// EditDatabase runs groups of statements in database db as the
// administrator, each group all or nothing (a savepoint each, in one
// transaction): a group one of whose statements the server refuses is
// rolled back and reported not applied. The statements are read with
// ANSI_QUOTES and PIPES_AS_CONCAT ("name" is an identifier, || joins
// text), as the variant planner writes them, and may name a row by RowID.
func EditDatabase(ctx context.Context, adminDSN, db string, groups [][]string) (applied []bool, err error) {
	pool, conn, err := adminConn(ctx, adminDSN)
	if err != nil {
		return nil, err
	}
	defer pool.Close()
	defer conn.Close()
	tables, err := baseTables(ctx, conn, db)
	if err != nil {
		return nil, fmt.Errorf("edit database %s: %w", db, err)
	}
	setup := []string{"USE " + quoteName(db), "SET SESSION sql_mode = CONCAT(@@sql_mode, ',ANSI_QUOTES,PIPES_AS_CONCAT')"}
	for _, s := range setup {
		if _, err := conn.ExecContext(ctx, s); err != nil {
			return nil, fmt.Errorf("edit database %s: %w", db, err)
		}
	}
	// Number the rows. A table that has an AUTO_INCREMENT column already
	// cannot take a second one: statements naming its rows by RowID fail
	// and their groups are not applied.
	var numbered []string
	for _, t := range tables {
		q := "ALTER TABLE " + quoteName(t) + " ADD COLUMN " + RowID + " BIGINT NOT NULL AUTO_INCREMENT INVISIBLE UNIQUE"
		if _, err := conn.ExecContext(ctx, q); err == nil {
			numbered = append(numbered, t)
		}
	}
	defer func() {
		for _, t := range numbered {
			if _, derr := conn.ExecContext(context.WithoutCancel(ctx), "ALTER TABLE "+quoteName(t)+" DROP COLUMN "+RowID); derr != nil && err == nil {
				err = fmt.Errorf("edit database %s: drop %s: %w", db, RowID, derr)
			}
		}
	}()
	if _, err := conn.ExecContext(ctx, "START TRANSACTION"); err != nil {
		return nil, infra(ctx, fmt.Errorf("edit database %s: %w", db, err))
	}
	applied = make([]bool, len(groups))
	for i, g := range groups {
		if _, err := conn.ExecContext(ctx, "SAVEPOINT sg_group"); err != nil {
			conn.ExecContext(context.WithoutCancel(ctx), "ROLLBACK")
			return nil, infra(ctx, fmt.Errorf("edit database %s: group %d: %w", db, i+1, err))
		}
		ok := true
		for _, s := range g {
			if _, err := conn.ExecContext(ctx, s); err != nil {
				if cerr := ctx.Err(); cerr != nil {
					conn.ExecContext(context.WithoutCancel(ctx), "ROLLBACK")
					return nil, fmt.Errorf("edit database %s: %w", db, cerr)
				}
				var me *mysql.MySQLError
				if !errors.As(err, &me) || me.Number == 1205 || me.Number == 1213 {
					conn.ExecContext(context.WithoutCancel(ctx), "ROLLBACK")
					return nil, infra(ctx, fmt.Errorf("edit database %s: group %d: %w", db, i+1, err))
				}
				ok = false
				break
			}
		}
		stmt := "RELEASE SAVEPOINT sg_group"
		if !ok {
			stmt = "ROLLBACK TO SAVEPOINT sg_group"
		}
		if _, err := conn.ExecContext(ctx, stmt); err != nil {
			conn.ExecContext(context.WithoutCancel(ctx), "ROLLBACK")
			return nil, fmt.Errorf("edit database %s: group %d: %w", db, i+1, err)
		}
		applied[i] = ok
	}
	if _, err := conn.ExecContext(ctx, "COMMIT"); err != nil {
		return nil, infra(ctx, fmt.Errorf("edit database %s: commit: %w", db, err))
	}
	return applied, nil
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
