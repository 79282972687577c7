package sqlite

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/sqlgym/sqlgym"
)

func TestEditKeepsConstraints(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "e.sqlite")
	if err := Create(ctx, path, []string{
		`CREATE TABLE p (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE)`,
		`CREATE TABLE c (id INTEGER PRIMARY KEY, p_id INTEGER NOT NULL REFERENCES p (id), n INTEGER CHECK (n > 0))`,
		`INSERT INTO p VALUES (1, 'a'), (2, 'b')`,
		`INSERT INTO c VALUES (1, 1, 5)`,
	}); err != nil {
		t.Fatal(err)
	}
	applied, err := Edit(ctx, path, []string{
		`INSERT INTO c VALUES (2, 2, 3)`,             // fine
		`INSERT INTO c VALUES (3, 9, 3)`,             // no parent 9
		`INSERT INTO p VALUES (3, 'a')`,              // UNIQUE name
		`INSERT INTO c VALUES (4, 1, 0)`,             // CHECK
		`UPDATE p SET name = NULL`,                   // NOT NULL
		`INSERT INTO p VALUES (3, 'c')`,              // fine
		`INSERT INTO c VALUES (5, 3, 1), (6, 3, -1)`, // one bad row: the statement goes whole
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := []bool{true, false, false, false, false, true, false}; !slices.Equal(applied, want) {
		t.Errorf("applied %v, want %v", applied, want)
	}
	eng, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	rs, err := eng.Query(ctx, "SELECT (SELECT group_concat(id) FROM c), (SELECT group_concat(name) FROM p)", sqlgym.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if got := rs.Rows[0][0].Str + "|" + rs.Rows[0][1].Str; got != "1,2|a,b,c" {
		t.Errorf("rows after the edit %q, want 1,2|a,b,c", got)
	}
}

// Two engines on one file, one reversing unordered scans, return the
// same rows for an ordered query and the reverse for an unordered one.
func TestReverseUnordered(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "r.sqlite")
	if err := Create(ctx, path, []string{`CREATE TABLE t (x INTEGER)`, `INSERT INTO t VALUES (1), (2), (3)`}); err != nil {
		t.Fatal(err)
	}
	a, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := Open(path, Options{ReverseUnordered: true})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	first := func(e *Engine, q string) int64 {
		rs, err := e.Query(ctx, q, sqlgym.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		return rs.Rows[0][0].Int
	}
	if x, y := first(a, "SELECT x FROM t"), first(b, "SELECT x FROM t"); x == y {
		t.Errorf("unordered scan: both engines start with %d", x)
	}
	if x, y := first(a, "SELECT x FROM t ORDER BY x"), first(b, "SELECT x FROM t ORDER BY x"); x != y {
		t.Errorf("ordered scan: %d and %d", x, y)
	}
}
