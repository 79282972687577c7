package duckdb

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/engine/enginetest"
)

// newDB creates a DuckDB file from stmts in a fresh temporary directory.
func newDB(t testing.TB, stmts []string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "test.duckdb")
	if err := Create(context.Background(), path, stmts); err != nil {
		t.Fatalf("create test database: %v", err)
	}
	return path
}

// openDB creates a database and opens the sandboxed engine over it.
func openDB(t testing.TB, stmts []string, opts Options) (*Engine, string) {
	t.Helper()
	path := newDB(t, stmts)
	eng, err := Open(path, opts)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	t.Cleanup(func() {
		if err := eng.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return eng, path
}

// fileDigest hashes every file in the database's directory, so a stray
// .wal or .tmp file next to it counts as a change too.
func fileDigest(t testing.TB, path string) string {
	t.Helper()
	dir := filepath.Dir(path)
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatalf("digest: %v", err)
	}
	h := sha256.New()
	for _, e := range ents {
		h.Write([]byte(e.Name() + "\x00"))
		if e.Type().IsRegular() {
			b, err := os.ReadFile(filepath.Join(dir, e.Name()))
			if err != nil {
				t.Fatalf("digest: %v", err)
			}
			h.Write(b)
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// harness runs the shared suites on the wall clock: they check that a
// runaway statement returns within twice its budget of wall-clock time,
// which a CPU-time budget (the default in a worker) cannot promise on a
// loaded machine. clock_test.go covers the CPU clock.
func harness(t *testing.T) enginetest.Harness {
	return enginetest.Harness{
		Dialect: sqlgym.DialectDuckDB,
		Open: func(t *testing.T, stmts []string) (sqlgym.Engine, func() string) {
			eng, path := openDB(t, stmts, Options{WallClockTimeout: true})
			return eng, func() string { return fileDigest(t, path) }
		},
		Dir: t.TempDir(),
	}
}

func TestConformance(t *testing.T) {
	enginetest.Run(t, harness(t))
}

func TestHostile(t *testing.T) {
	enginetest.RunHostile(t, harness(t), append(append(enginetest.CommonHostile(), duckHostile()...), heavyHostile()...))
}

func TestRobustness(t *testing.T) {
	enginetest.RunRobustness(t, harness(t))
}
