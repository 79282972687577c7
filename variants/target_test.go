package variants

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"testing"

	duck "github.com/duckdb/duckdb-go/v2"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/engine/duckdb"
)

// A DuckDB original whose last changes are still in its write-ahead log
// is copied with the log, so the candidates start from all its rows.
func TestDuckDBCopyTakesTheLog(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	orig := filepath.Join(dir, "o.duckdb")
	if err := duckdb.Create(ctx, orig, []string{"CREATE TABLE t (x INTEGER)", "INSERT INTO t VALUES (1)"}); err != nil {
		t.Fatal(err)
	}
	c, err := duck.NewConnector(orig, nil)
	if err != nil {
		t.Fatal(err)
	}
	db := sql.OpenDB(c)
	for _, q := range []string{"PRAGMA disable_checkpoint_on_shutdown", "INSERT INTO t VALUES (2)"} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(orig + ".wal"); err != nil {
		t.Skipf("DuckDB left no write-ahead log to test with: %v", err)
	}
	ft := &fileTarget{d: sqlgym.DialectDuckDB, name: "o", orig: orig, dir: dir, tmp: t.TempDir()}
	url, _, err := ft.build(ctx, 0, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	eng, err := duckdb.Open(ft.path(url), duckdb.Options{InProcess: true})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	rs, err := eng.Query(ctx, "SELECT COUNT(*) FROM t", sqlgym.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if n := rs.Rows[0][0].Int; n != 2 {
		t.Errorf("the copy holds %d rows, want 2 (the logged row too)", n)
	}
}
