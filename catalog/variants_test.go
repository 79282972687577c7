package catalog_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/sqlgym/sqlgym/catalog"
	"github.com/sqlgym/sqlgym/engine/duckdb"
	"github.com/sqlgym/sqlgym/engine/sqlite"
)

// Variants finds a DuckDB database's variants beside it in Spider's
// layout, as `sqlgym variants` writes them (DIR/NAME/NAME_vK.duckdb), and
// only DuckDB files there; a folder not named after the database has none.
func TestVariantsBesideADuckDBFile(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "toy")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	stmts := []string{"CREATE TABLE t (x INTEGER)", "INSERT INTO t VALUES (1)"}
	for _, n := range []string{"toy.duckdb", "toy_v1.duckdb", "toy_v2.duckdb"} {
		if err := duckdb.Create(ctx, filepath.Join(dir, n), stmts); err != nil {
			t.Fatal(err)
		}
	}
	// A SQLite file in the folder is not a variant of the DuckDB database.
	if err := sqlite.Create(ctx, filepath.Join(dir, "other.sqlite"), stmts); err != nil {
		t.Fatal(err)
	}
	orig := "duckdb:" + filepath.Join(dir, "toy.duckdb")
	cat, err := catalog.New(catalog.Config{Refs: []string{"toy=" + orig, "elsewhere=" + orig}, CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer cat.Close()
	got, err := cat.Variants("toy")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{orig, "duckdb:" + filepath.Join(dir, "toy_v1.duckdb"), "duckdb:" + filepath.Join(dir, "toy_v2.duckdb")}
	if !slices.Equal(got, want) {
		t.Errorf("Variants(toy) = %v, want %v", got, want)
	}
	if got, _ := cat.Variants("elsewhere"); !slices.Equal(got, []string{orig}) {
		t.Errorf("Variants(elsewhere) = %v: a folder named after another database holds no variants of it", got)
	}
}
