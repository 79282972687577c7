package sqlgym

import (
	"os"
	"path/filepath"
	"testing"
)

// A task file's relative variant paths are read from its own folder, and
// written relative to it: the pair round-trips, and leaves absolute
// paths, paths outside the folder, PostgreSQL URLs and names alone.
func TestVariantPathsAreRelativeToTheTaskFile(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ in, rel string }{
		{"sqlite:" + filepath.Join(dir, "db", "db_v1.sqlite"), "sqlite:db/db_v1.sqlite"},
		{"duckdb:" + filepath.Join(dir, "db", "db_v2.duckdb"), "duckdb:db/db_v2.duckdb"},
		{"sqlite:" + filepath.Join(filepath.Dir(dir), "else.sqlite"), "sqlite:" + filepath.Join(filepath.Dir(dir), "else.sqlite")},
		{"postgres://u@h/db?schema=db_v1", "postgres://u@h/db?schema=db_v1"},
		{"shop_v1", "shop_v1"},
	} {
		if got := RelativeVariant(c.in, dir); got != c.rel {
			t.Errorf("RelativeVariant(%q) = %q, want %q", c.in, got, c.rel)
		}
		tasks := []Task{{DBVariants: []string{c.rel}}}
		AnchorVariants(tasks, dir)
		if tasks[0].DBVariants[0] != c.in {
			t.Errorf("AnchorVariants(%q) = %q, want %q", c.rel, tasks[0].DBVariants[0], c.in)
		}
	}
	// ReadTasks anchors them at the file's folder, wherever it is.
	path := filepath.Join(dir, "tasks.jsonl")
	if err := os.WriteFile(path, []byte(`{"id":"a","db":"db","question":"q","sql":"SELECT 1","db_variants":["sqlite:db/db_v1.sqlite"]}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := ReadTasks(path)
	if err != nil {
		t.Fatal(err)
	}
	if want := "sqlite:" + filepath.Join(dir, "db", "db_v1.sqlite"); got[0].DBVariants[0] != want {
		t.Errorf("ReadTasks: db_variants %q, want %q", got[0].DBVariants[0], want)
	}
}
