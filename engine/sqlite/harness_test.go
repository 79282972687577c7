package sqlite

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/engine/enginetest"
)

// harness builds each fixture with Create into its own directory and opens
// it with Open. The digest covers the file's bytes and the directory's
// listing, so a journal, WAL or attached file left beside it also counts
// as a change.
func harness() enginetest.Harness {
	return enginetest.Harness{
		Dialect: sqlgym.DialectSQLite,
		Open: func(t *testing.T, stmts []string) (sqlgym.Engine, func() string) {
			dir := t.TempDir()
			path := filepath.Join(dir, "fixture.sqlite")
			if err := Create(context.Background(), path, stmts); err != nil {
				t.Fatalf("create fixture: %v", err)
			}
			eng, err := Open(path, Options{PoolSize: 4})
			if err != nil {
				t.Fatalf("open fixture: %v", err)
			}
			t.Cleanup(func() { eng.Close() })
			return eng, func() string { return dirDigest(t, dir, path) }
		},
	}
}

func dirDigest(t *testing.T, dir, path string) string {
	t.Helper()
	d, err := FileDigest(path)
	if err != nil {
		t.Fatalf("digest: %v", err)
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatalf("digest: %v", err)
	}
	names := make([]string, len(ents))
	for i, e := range ents {
		names[i] = e.Name()
	}
	return d + " " + strings.Join(names, ",")
}

func TestConformance(t *testing.T) {
	enginetest.Run(t, harness())
}

func TestRobustness(t *testing.T) {
	enginetest.RunRobustness(t, harness())
}
