package variants

import (
	"os"
	"testing"

	"github.com/sqlgym/sqlgym/engine/duckdb"
)

// TestMain lets this test binary serve as its own DuckDB worker process
// (the engine re-executes the running binary for each worker, as
// duckdbtest.Main does), and removes the generation the tests share
// (sharedToy) after them.
func TestMain(m *testing.M) {
	duckdb.MaybeServeWorker()
	code := m.Run()
	removeShared()
	os.Exit(code)
}
