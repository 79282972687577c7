package duckdb

import (
	"os"
	"testing"
)

// TestMain lets this test binary serve as its own worker process, as
// MaybeServeWorker asks of every binary that opens DuckDB engines.
func TestMain(m *testing.M) {
	MaybeServeWorker()
	os.Exit(m.Run())
}
