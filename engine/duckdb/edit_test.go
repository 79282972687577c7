package duckdb

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/sqlgym/sqlgym"
)

// TestEditGroups checks that a group of statements applies all or nothing
// (DuckDB has no savepoints: a transaction per group), that DuckDB's
// constraints fail their group only, and that the edited database is one
// file again.
func TestEditGroups(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "e.duckdb")
	if err := Create(ctx, path, []string{
		`CREATE TABLE parent (id INTEGER PRIMARY KEY, name VARCHAR NOT NULL UNIQUE)`,
		`CREATE TABLE child (id INTEGER PRIMARY KEY, parent_id INTEGER NOT NULL REFERENCES parent (id), n INTEGER CHECK (n > 0))`,
		`INSERT INTO parent VALUES (1, 'a'), (2, 'b')`,
		`INSERT INTO child VALUES (1, 1, 3), (2, 2, 7)`,
	}); err != nil {
		t.Fatal(err)
	}
	groups := [][]string{
		{`INSERT INTO child VALUES (3, 9, 1)`},                                       // no parent 9
		{`INSERT INTO child VALUES (4, 1, 0)`},                                       // CHECK
		{`INSERT INTO parent VALUES (3, 'a')`},                                       // UNIQUE
		{`INSERT INTO child VALUES (5, 1, 5)`, `INSERT INTO child VALUES (1, 1, 1)`}, // key: the first goes too
		{`INSERT INTO parent VALUES (3, 'c')`, `INSERT INTO child VALUES (6, 3, 8)`},
		{`UPDATE child SET n = NULL WHERE rowid = (SELECT rowid FROM child ORDER BY id LIMIT 1 OFFSET 0)`},
	}
	applied, err := Edit(ctx, path, groups)
	if err != nil {
		t.Fatal(err)
	}
	want := []bool{false, false, false, false, true, true}
	for i := range want {
		if applied[i] != want[i] {
			t.Errorf("group %d (%s): applied %v, want %v", i+1, groups[i][0], applied[i], want[i])
		}
	}
	if _, err := os.Stat(path + ".wal"); err == nil {
		t.Errorf("a write-ahead log is left beside the edited file")
	}
	eng, err := Open(path, Options{InProcess: true})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	for q, n := range map[string]int64{
		`SELECT count(*) FROM child`:                   3,
		`SELECT count(*) FROM child WHERE id = 5`:      0,
		`SELECT count(*) FROM child WHERE n IS NULL`:   1,
		`SELECT count(*) FROM parent WHERE name = 'c'`: 1,
	} {
		res, err := eng.Query(ctx, q, sqlgym.Limits{})
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		if got := res.Rows[0][0].Int; got != n {
			t.Errorf("%s = %d, want %d", q, got, n)
		}
	}
}
