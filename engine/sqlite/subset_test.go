package sqlite

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/sqlgym/sqlgym"
)

// Subset keeps the rows its clauses select with their rowids, every row
// of a table it does not name, the indexes, views and triggers (made after
// the rows, so a trigger does not fire on the copy) and the AUTOINCREMENT
// counters, so that a row inserted later gets the same id as in src.
func TestSubsetKeepsRowidsSchemaAndCounters(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	src := filepath.Join(dir, "src.sqlite")
	if err := Create(ctx, src, []string{
		`CREATE TABLE p (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT)`,
		`CREATE TABLE c (x INTEGER, p_id INTEGER REFERENCES p (id))`,
		`CREATE TABLE k (a TEXT, b TEXT, PRIMARY KEY (a, b)) WITHOUT ROWID`,
		`CREATE TABLE log (n INTEGER)`,
		`INSERT INTO p (name) VALUES ('a'), ('b'), ('c'), ('d')`,
		`DELETE FROM p WHERE id = 4`,
		`INSERT INTO c VALUES (10, 1), (20, 2), (30, 3)`,
		`INSERT INTO k VALUES ('x', 'y'), ('x', 'z')`,
		`CREATE INDEX c_p ON c (p_id)`,
		`CREATE VIEW names AS SELECT name FROM p`,
		`CREATE TRIGGER p_log AFTER INSERT ON p BEGIN INSERT INTO log VALUES (NEW.id); END`,
		`PRAGMA user_version = 7`,
	}); err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(dir, "dst.sqlite")
	if err := Subset(ctx, dst, src, map[string]string{"p": "rowid IN (1, 3)", "c": "rowid IN (3)"}); err != nil {
		t.Fatal(err)
	}
	e, err := Open(dst, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	q := func(sql string) string {
		t.Helper()
		rs, err := e.Query(ctx, sql, sqlgym.Limits{})
		if err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		out := ""
		for _, r := range rs.Rows {
			for _, v := range r {
				out += v.String() + " "
			}
			out += "|"
		}
		return out
	}
	for sql, want := range map[string]string{
		"SELECT rowid, name FROM p ORDER BY 1":                    "1 a |3 c |",
		"SELECT rowid, x, p_id FROM c":                            "3 30 3 |",
		"SELECT a, b FROM k ORDER BY 2":                           "x y |x z |",
		"SELECT COUNT(*) FROM log":                                "0 |",
		"SELECT name FROM names ORDER BY 1":                       "a |c |",
		"SELECT seq FROM sqlite_sequence WHERE name = 'p'":        "4 |",
		"SELECT COUNT(*) FROM sqlite_master WHERE type = 'index'": "1 |",
		"SELECT COUNT(*) FROM sqlite_master WHERE name = 'p_log'": "1 |",
	} {
		if got := q(sql); got != want {
			t.Errorf("%s: got %q, want %q", sql, got, want)
		}
	}
	// The next AUTOINCREMENT id is src's (5), not one past the copy's rows.
	if _, err := Edit(ctx, dst, []string{`INSERT INTO p (name) VALUES ('e')`}); err != nil {
		t.Fatal(err)
	}
	e.Close()
	if e, err = Open(dst, Options{}); err != nil {
		t.Fatal(err)
	}
	if got := q("SELECT id FROM p WHERE name = 'e'"); got != "5 |" {
		t.Errorf("a row inserted into the copy got id %q, want 5 as in the original", got)
	}
	if err := Subset(ctx, dst, src, nil); err == nil {
		t.Error("Subset wrote over an existing file")
	}
}
