package sqltext_test

import (
	"os"
	"testing"

	"github.com/sqlgym/sqlgym/engine/duckdb"
)

// TestMain lets this test binary serve as its own DuckDB worker process:
// the engine re-executes the running binary for each worker.
func TestMain(m *testing.M) {
	duckdb.MaybeServeWorker()
	os.Exit(m.Run())
}
