package mysql_test

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"

	_ "github.com/go-sql-driver/mysql" // writes the copies
	_ "github.com/mattn/go-sqlite3"    // reads the SQLite files copied
)

// copySQLite copies every table of the SQLite file at path into database
// db on the test server (admin's DSN; db must exist), with each column
// typed by what its SQLite data holds, the way SQLite compares it:
// integers only BIGINT, numbers only DOUBLE, anything else text
// (VARCHAR(n) when short enough to be a key, else TEXT), so a date stays
// the text SQLite stores. The primary key is kept when the data allows
// it; foreign keys are not (Spider's data breaks some). It returns the
// tables and the columns typed text although SQLite declared another type.
func copySQLite(ctx context.Context, t testing.TB, admin, db, path, collation string) (tables, retyped []string) {
	t.Helper()
	src, err := sql.Open("sqlite3", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := sql.Open("mysql", admin)
	if err != nil {
		t.Fatal(err)
	}
	defer dst.Close()
	conn, err := dst.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for _, s := range []string{"SET time_zone = '+00:00'", "SET foreign_key_checks = 0", "USE `" + db + "`"} {
		if _, err := conn.ExecContext(ctx, s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	tables = queryStrings(ctx, t, src, "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
	for _, table := range tables {
		q := func(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }
		type col struct {
			name, decl string
			pk         int
		}
		var cols []col
		rows, err := src.QueryContext(ctx, "PRAGMA table_info("+q(table)+")")
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var c col
			var cid, notnull int
			var dflt sql.NullString
			if err := rows.Scan(&cid, &c.name, &c.decl, &notnull, &dflt, &c.pk); err != nil {
				t.Fatal(err)
			}
			cols = append(cols, c)
		}
		rows.Close()
		var defs, pk, names []string
		for _, c := range cols {
			// What the column's values are: integer, real, text or blob.
			var ints, reals, texts, blobs, maxLen int
			err := src.QueryRowContext(ctx, fmt.Sprintf(`SELECT
				count(CASE WHEN typeof(%[1]s) = 'integer' THEN 1 END), count(CASE WHEN typeof(%[1]s) = 'real' THEN 1 END),
				count(CASE WHEN typeof(%[1]s) = 'text' THEN 1 END), count(CASE WHEN typeof(%[1]s) = 'blob' THEN 1 END),
				coalesce(max(length(CAST(%[1]s AS TEXT))), 0) FROM %[2]s`, q(c.name), q(table))).Scan(&ints, &reals, &texts, &blobs, &maxLen)
			if err != nil {
				t.Fatal(err)
			}
			typ := "BIGINT"
			switch {
			case texts > 0 || blobs > 0:
				typ = "TEXT"
				if maxLen <= 255 {
					typ = "VARCHAR(255)"
				}
				if collation != "" {
					typ += " COLLATE " + collation
				}
				if d := strings.ToUpper(c.decl); !strings.Contains(d, "CHAR") && !strings.Contains(d, "TEXT") && !strings.Contains(d, "CLOB") && d != "" {
					retyped = append(retyped, table+"."+c.name+" ("+c.decl+")")
				}
			case reals > 0:
				typ = "DOUBLE"
			}
			defs = append(defs, "`"+c.name+"` "+typ)
			names = append(names, q(c.name))
			if c.pk > 0 {
				pk = append(pk, "`"+c.name+"`")
			}
		}
		create := "CREATE TABLE `" + table + "` (" + strings.Join(defs, ", ")
		withPK := create
		if len(pk) > 0 {
			withPK += ", PRIMARY KEY (" + strings.Join(pk, ", ") + ")"
		}
		if _, err := conn.ExecContext(ctx, withPK+")"); err != nil {
			t.Fatalf("%s: %v", withPK, err)
		}
		data, err := src.QueryContext(ctx, "SELECT "+strings.Join(names, ", ")+" FROM "+q(table))
		if err != nil {
			t.Fatal(err)
		}
		var batch [][]any
		var loadErr error
		flush := func() error {
			if len(batch) == 0 {
				return nil
			}
			marks := "(" + strings.TrimSuffix(strings.Repeat("?, ", len(cols)), ", ") + ")"
			var args []any
			var all []string
			for _, r := range batch {
				all = append(all, marks)
				args = append(args, r...)
			}
			batch = batch[:0]
			_, err := conn.ExecContext(ctx, "INSERT INTO `"+table+"` VALUES "+strings.Join(all, ", "), args...)
			return err
		}
		for data.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := data.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			batch = append(batch, vals)
			if len(batch) == 200 {
				if loadErr = flush(); loadErr != nil {
					break
				}
			}
		}
		data.Close()
		if loadErr == nil {
			loadErr = flush()
		}
		if err := loadErr; err != nil && len(pk) > 0 {
			// Duplicate or NULL keys: SQLite allows them in a key that
			// is not an INTEGER PRIMARY KEY. Load the table without it.
			t.Logf("%s: %v; loaded without its primary key", table, err)
			if _, err := conn.ExecContext(ctx, "DROP TABLE `"+table+"`"); err != nil {
				t.Fatal(err)
			}
			if _, err := conn.ExecContext(ctx, create+")"); err != nil {
				t.Fatal(err)
			}
			copyRowsPlain(ctx, t, src, conn, table, names, len(cols))
		} else if loadErr != nil {
			t.Fatalf("load %s: %v", table, loadErr)
		}
	}
	return tables, retyped
}

func copyRowsPlain(ctx context.Context, t testing.TB, src *sql.DB, conn *sql.Conn, table string, names []string, n int) {
	t.Helper()
	data, err := src.QueryContext(ctx, "SELECT "+strings.Join(names, ", ")+` FROM "`+table+`"`)
	if err != nil {
		t.Fatal(err)
	}
	defer data.Close()
	marks := "(" + strings.TrimSuffix(strings.Repeat("?, ", n), ", ") + ")"
	for data.Next() {
		vals := make([]any, n)
		ptrs := make([]any, n)
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := data.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		if _, err := conn.ExecContext(ctx, "INSERT INTO `"+table+"` VALUES "+marks, vals...); err != nil {
			t.Fatalf("load %s: %v", table, err)
		}
	}
}

func queryStrings(ctx context.Context, t testing.TB, db *sql.DB, q string) []string {
	t.Helper()
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	return out
}
