package sqlite

import (
	"context"
	"path/filepath"
	"testing"
)

// TestDescribeUnique reads single-column UNIQUE constraints, and not a
// composite one, a plain index or the primary key.
func TestDescribeUnique(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "u.sqlite")
	err := Create(ctx, path, []string{
		`CREATE TABLE t (id INTEGER PRIMARY KEY, a TEXT UNIQUE, b TEXT, c TEXT, d TEXT, e TEXT, UNIQUE (b, c), CONSTRAINT x UNIQUE (e))`,
		`CREATE INDEX t_d ON t (d)`,
	})
	if err != nil {
		t.Fatal(err)
	}
	eng, err := Open(path, Options{PoolSize: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	s, err := eng.Describe(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, c := range s.Tables[0].Columns {
		got[c.Name] = c.Unique
	}
	want := map[string]bool{"id": false, "a": true, "b": false, "c": false, "d": false, "e": true}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("column %s unique = %v, want %v", k, got[k], v)
		}
	}
}
