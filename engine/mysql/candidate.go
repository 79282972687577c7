package mysql

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/go-sql-driver/mysql"
	"github.com/sqlgym/sqlgym"
)

// Candidates makes the candidate databases of one original (sqlgym
// variants) as the administrator. Every table statement of InnoDB (CREATE,
// ALTER, DROP) writes and syncs files, which on a loaded machine takes
// seconds each; rows inserted and deleted in one transaction cost one sync.
// So a candidate database is created once, its tables defined with the
// row number RowID in place, and every later build of the same candidate
// (the repair step rebuilds its trial copy once per group it tries) only
// reloads the rows and runs the edits, all in one transaction: no table
// statement at all.
type Candidates struct {
	pool    *sql.DB
	from    string
	charset string // the original's default character set and collation
	readers []string
	tables  []copyTable

	mu   sync.Mutex
	made map[string]bool // databases holding the copied tables, to reload
}

// copyTable is one table of the original as its copies define and fill it.
type copyTable struct {
	name string
	// create is the original's CREATE TABLE (SHOW CREATE TABLE) with
	// RowID added and AUTO_INCREMENT taken off the table's own column (a
	// table has one at most, and RowID needs it); a copy's rows never take
	// a value from it, since the planner names every column it inserts.
	create string
	cols   []string // quoted: the columns that take values (not generated)
	order  string   // the primary key, quoted: RowID numbers rows in its order
}

// NewCandidates reads the tables of database from, as the administrator
// at adminDSN, for copies readable by the accounts of readers (mysql://
// URLs or driver DSNs; their user names).
func NewCandidates(ctx context.Context, adminDSN, from string, readers ...string) (*Candidates, error) {
	cfg, err := parseDSN(adminDSN)
	if err != nil {
		return nil, err
	}
	cfg.DBName = ""
	cfg.MultiStatements = false
	pool, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		return nil, fmt.Errorf("mysql admin: %w", err)
	}
	c := &Candidates{pool: pool, from: from, readers: readers, made: map[string]bool{}}
	if err := c.read(ctx); err != nil {
		pool.Close()
		return nil, err
	}
	return c, nil
}

func (c *Candidates) read(ctx context.Context) error {
	conn, err := c.pool.Conn(ctx)
	if err != nil {
		return infra(ctx, fmt.Errorf("mysql admin connect: %w", err))
	}
	defer conn.Close()
	var cs, coll string
	if err := conn.QueryRowContext(ctx, "SELECT DEFAULT_CHARACTER_SET_NAME, DEFAULT_COLLATION_NAME FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?", c.from).Scan(&cs, &coll); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return sqlgym.Userf("name an existing database in --db NAME=mysql://...", "mysql database %q does not exist", c.from)
		}
		return infra(ctx, fmt.Errorf("read database %s: %w", c.from, err))
	}
	c.charset = "CHARACTER SET " + cs + " COLLATE " + coll
	// SHOW CREATE TABLE quotes names with backticks only without ANSI_QUOTES.
	if _, err := conn.ExecContext(ctx, "SET SESSION sql_mode = ''"); err != nil {
		return infra(ctx, fmt.Errorf("read database %s: %w", c.from, err))
	}
	names, err := baseTables(ctx, conn, c.from)
	if err != nil {
		return fmt.Errorf("read database %s: list tables: %w", c.from, err)
	}
	for _, n := range names {
		t, err := readCopyTable(ctx, conn, c.from, n)
		if err != nil {
			return fmt.Errorf("read database %s: %w", c.from, err)
		}
		c.tables = append(c.tables, t)
	}
	return nil
}

func readCopyTable(ctx context.Context, conn *sql.Conn, db, name string) (copyTable, error) {
	t := copyTable{name: name}
	var auto string
	rows, err := conn.QueryContext(ctx, `SELECT COLUMN_NAME, LOWER(EXTRA), COALESCE(GENERATION_EXPRESSION, '')
		FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION`, db, name)
	if err != nil {
		return t, err
	}
	for rows.Next() {
		var col, extra, gen string
		if err := rows.Scan(&col, &extra, &gen); err != nil {
			rows.Close()
			return t, err
		}
		if strings.EqualFold(col, RowID) {
			rows.Close()
			return t, sqlgym.Userf("rename the column: sqlgym variants numbers the rows of a copy in a column of that name",
				"table %s has a column %s", name, col)
		}
		if strings.Contains(extra, "auto_increment") {
			auto = col
		}
		if gen == "" {
			t.cols = append(t.cols, quoteName(col))
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return t, err
	}
	key, err := queryColumn(ctx, conn, `SELECT COLUMN_NAME FROM information_schema.KEY_COLUMN_USAGE
		WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? AND CONSTRAINT_NAME = 'PRIMARY' ORDER BY ORDINAL_POSITION`, db, name)
	if err != nil {
		return t, err
	}
	for i, k := range key {
		key[i] = quoteName(k)
	}
	t.order = strings.Join(key, ", ")
	var create string
	if err := conn.QueryRowContext(ctx, "SHOW CREATE TABLE "+quoteName(db)+"."+quoteName(name)).Scan(&name, &create); err != nil {
		return t, err
	}
	t.create, err = copyDefinition(create, auto)
	return t, err
}

// copyDefinition is the CREATE TABLE of a copy from the original's (as
// SHOW CREATE TABLE prints it): AUTO_INCREMENT taken off column auto (if
// any) and off the table's options, and RowID added as the last column.
// Foreign keys are kept: with the referenced tables unqualified they name
// the copy's own tables.
func copyDefinition(create, auto string) (string, error) {
	open := strings.Index(create, "(\n")
	end := strings.Index(create, "\n)")
	if open < 0 || end < open {
		return "", fmt.Errorf("unexpected SHOW CREATE TABLE output: %s", abbreviate(create))
	}
	lines := strings.Split(create[open+2:end], "\n")
	if auto != "" {
		prefix := "  " + quoteName(auto) + " "
		for i, l := range lines {
			if strings.HasPrefix(l, prefix) {
				lines[i] = prefix + dropWord(l[len(prefix):], "AUTO_INCREMENT")
			}
		}
	}
	lines[len(lines)-1] += ","
	lines = append(lines, "  "+quoteName(RowID)+" BIGINT NOT NULL AUTO_INCREMENT INVISIBLE UNIQUE")
	return create[:open+2] + strings.Join(lines, "\n") + "\n" + dropWord(create[end+1:], "AUTO_INCREMENT"), nil
}

// dropWord removes the keyword word (and an "=N" after it, a table
// option) where it stands outside quotes in a definition, with the space
// before it.
func dropWord(s, word string) string {
	var b strings.Builder
	var quote byte
	for i := 0; i < len(s); i++ {
		ch := s[i]
		if quote != 0 {
			b.WriteByte(ch)
			if ch == '\\' && quote == '\'' && i+1 < len(s) {
				i++
				b.WriteByte(s[i])
			} else if ch == quote {
				quote = 0
			}
			continue
		}
		if ch == '\'' || ch == '"' || ch == '`' {
			quote = ch
			b.WriteByte(ch)
			continue
		}
		if ch == ' ' && len(s)-i-1 >= len(word) && strings.EqualFold(s[i+1:i+1+len(word)], word) {
			j := i + 1 + len(word)
			if j < len(s) && s[j] == '=' {
				j++
				for j < len(s) && s[j] >= '0' && s[j] <= '9' {
					j++
				}
			}
			if j == len(s) || s[j] == ' ' || s[j] == ',' {
				i = j - 1
				continue
			}
		}
		b.WriteByte(ch)
	}
	return b.String()
}

// Close closes the administrator's connections.
func (c *Candidates) Close() error { return c.pool.Close() }

// conn is one administrator connection with the server's own settings
// back (a pooled connection may come from a build that changed them), in
// UTC.
func (c *Candidates) conn(ctx context.Context) (*sql.Conn, error) {
	conn, err := c.pool.Conn(ctx)
	if err == nil {
		_, err = conn.ExecContext(ctx, "SET SESSION sql_mode = @@GLOBAL.sql_mode, time_zone = '+00:00', foreign_key_checks = 1")
		if err != nil {
			conn.Close()
		}
	}
	if err != nil {
		return nil, infra(ctx, fmt.Errorf("mysql admin connect: %w", err))
	}
	return conn, nil
}

// Build makes database to (created on its first build, and granted to the
// readers) hold the original's rows with the groups of statements applied,
// each group all or nothing (a savepoint each, in one transaction): a group
// one of whose statements the server refuses is rolled back and reported
// not applied. The statements are read with ANSI_QUOTES and PIPES_AS_CONCAT
// ("name" is an identifier, || joins text), as the variant planner writes
// them, and may name a row by RowID, which numbers each table's rows in its
// primary key's order (else in the order a scan of the original reads
// them), and the rows the groups insert after them, in insertion order. RowID stays in
// the tables, invisible (SELECT *, NATURAL JOIN and USING leave it out),
// until Keep.
func (c *Candidates) Build(ctx context.Context, to string, groups [][]string) (applied []bool, err error) {
	conn, err := c.conn(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	c.mu.Lock()
	fresh := !c.made[to]
	c.mu.Unlock()
	if fresh {
		if err := c.create(ctx, conn, to); err != nil {
			return nil, err
		}
	}
	exec := func(s string) error {
		if _, err := conn.ExecContext(ctx, s); err != nil {
			return infra(ctx, fmt.Errorf("build %s: %s: %w", to, abbreviate(s), err))
		}
		return nil
	}
	rollback := func() { conn.ExecContext(context.WithoutCancel(ctx), "ROLLBACK") }
	for _, s := range []string{"USE " + quoteName(to), "SET SESSION foreign_key_checks = 0", "START TRANSACTION"} {
		if err := exec(s); err != nil {
			return nil, err
		}
	}
	src := quoteName(c.from) + "."
	for _, t := range c.tables {
		cols := strings.Join(t.cols, ", ")
		// RowID takes its values from AUTO_INCREMENT in the order the rows
		// arrive (a window's ROW_NUMBER() OVER () does not number a table
		// without a key in scan order on MariaDB); the counter is not reset
		// (that would be a table statement), so a rebuild's numbers are
		// higher than the last one's, in the same order.
		order := ""
		if t.order != "" {
			order = " ORDER BY " + t.order
		}
		for _, s := range []string{
			"DELETE FROM " + quoteName(t.name),
			"INSERT INTO " + quoteName(t.name) + " (" + cols + ") SELECT " + cols + " FROM " + src + quoteName(t.name) + order,
		} {
			if err := exec(s); err != nil {
				rollback()
				return nil, err
			}
		}
	}
	if err := exec("SET SESSION foreign_key_checks = 1, sql_mode = CONCAT(@@sql_mode, ',ANSI_QUOTES,PIPES_AS_CONCAT')"); err != nil {
		rollback()
		return nil, err
	}
	applied, err = editGroups(ctx, conn, to, groups)
	if err != nil {
		rollback()
		return nil, err
	}
	if _, err := conn.ExecContext(ctx, "COMMIT"); err != nil {
		return nil, infra(ctx, fmt.Errorf("build %s: commit: %w", to, err))
	}
	return applied, nil
}

// create makes database to with the copies' tables, empty, and grants the
// readers SELECT on it.
func (c *Candidates) create(ctx context.Context, conn *sql.Conn, to string) error {
	stmts := []string{"DROP DATABASE IF EXISTS " + quoteName(to), "CREATE DATABASE " + quoteName(to) + " " + c.charset,
		"USE " + quoteName(to), "SET SESSION foreign_key_checks = 0"}
	for _, t := range c.tables {
		stmts = append(stmts, t.create)
	}
	stmts = append(stmts, "SET SESSION foreign_key_checks = 1")
	for _, s := range stmts {
		if _, err := conn.ExecContext(ctx, s); err != nil {
			return fmt.Errorf("copy database %s to %s: %s: %w", c.from, to, abbreviate(s), err)
		}
	}
	if err := grantReaders(ctx, conn, to, c.readers); err != nil {
		return err
	}
	c.mu.Lock()
	c.made[to] = true
	c.mu.Unlock()
	return nil
}

// editGroups runs the groups in the open transaction of conn, a savepoint
// each.
func editGroups(ctx context.Context, conn *sql.Conn, db string, groups [][]string) ([]bool, error) {
	applied := make([]bool, len(groups))
	for i, g := range groups {
		if _, err := conn.ExecContext(ctx, "SAVEPOINT sg_group"); err != nil {
			return nil, infra(ctx, fmt.Errorf("edit database %s: group %d: %w", db, i+1, err))
		}
		ok := true
		for _, s := range g {
			if _, err := conn.ExecContext(ctx, s); err != nil {
				if cerr := ctx.Err(); cerr != nil {
					return nil, fmt.Errorf("edit database %s: %w", db, cerr)
				}
				var me *mysql.MySQLError
				if !errors.As(err, &me) || me.Number == 1205 || me.Number == 1213 {
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
			return nil, fmt.Errorf("edit database %s: group %d: %w", db, i+1, err)
		}
		applied[i] = ok
	}
	return applied, nil
}

// Keep makes candidate database from the database to: its tables moved
// there (RENAME TABLE; MySQL has no RENAME DATABASE), without RowID, and
// granted to the readers; from is dropped.
func (c *Candidates) Keep(ctx context.Context, from, to string) error {
	conn, err := c.conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	c.mu.Lock()
	delete(c.made, from)
	c.mu.Unlock()
	if err := renameDatabase(ctx, conn, from, to, c.charset, c.readers); err != nil {
		return err
	}
	for _, t := range c.tables {
		s := "ALTER TABLE " + quoteName(to) + "." + quoteName(t.name) + " DROP COLUMN " + quoteName(RowID)
		if _, err := conn.ExecContext(ctx, s); err != nil {
			return fmt.Errorf("keep %s as %s: %w", from, to, err)
		}
	}
	return nil
}

// Drop drops candidate database db if it exists.
func (c *Candidates) Drop(ctx context.Context, db string) error {
	c.mu.Lock()
	delete(c.made, db)
	c.mu.Unlock()
	if _, err := c.pool.ExecContext(ctx, "DROP DATABASE IF EXISTS "+quoteName(db)); err != nil {
		return fmt.Errorf("drop %s: %w", db, err)
	}
	return nil
}
