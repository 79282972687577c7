package duckdbtest

import (
	"os"
	"testing"

	"github.com/sqlgym/sqlgym/engine/duckdb"
)

// Main turns the process into a DuckDB worker when the engine started it
// as one (and never returns then); otherwise it runs the tests and exits
// with their code. A package's TestMain that needs nothing else calls it.
func Main(m *testing.M) {
	duckdb.MaybeServeWorker()
	os.Exit(m.Run())
}
