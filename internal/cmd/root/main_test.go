package root

import (
	"os"
	"testing"

	"github.com/sqlgym/sqlgym/engine/duckdb"

	"github.com/sqlgym/sqlgym/internal/cmd/cmdkit"
)

// TestMain lets this test binary serve as its own DuckDB worker process
// (the engine re-executes the running binary for each worker), and as the
// sqlgym program when a process test starts it with asCLI set, as
// cmd/sqlgym does: process tests need no go build.
func TestMain(m *testing.M) {
	duckdb.MaybeServeWorker()
	if os.Getenv(asCLI) == "1" {
		os.Exit(Main(os.Args[1:], cmdkit.StdIO()))
	}
	os.Exit(m.Run())
}
