package duckdb

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"
)

func TestCreateManySingleRowInserts(t *testing.T) {
	stmts := []string{"CREATE TABLE t (id INTEGER PRIMARY KEY, name VARCHAR, v DOUBLE PRECISION)"}
	for i := range 3000 {
		stmts = append(stmts, fmt.Sprintf("INSERT INTO t (id, name, v) VALUES (%d, 'n''%d;', %d.5);", i, i, i))
	}
	path := filepath.Join(t.TempDir(), "many.duckdb")
	start := time.Now()
	if err := Create(context.Background(), path, stmts); err != nil {
		t.Fatal(err)
	}
	t.Logf("create with %d statements: %s", len(stmts), time.Since(start))
}
