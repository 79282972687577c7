package catalog_test

import (
	"testing"

	"github.com/sqlgym/sqlgym/engine/duckdb/duckdbtest"
)

// TestMain lets this test binary serve as its own DuckDB worker process:
// the engine re-executes the running binary for each worker.
func TestMain(m *testing.M) { duckdbtest.Main(m) }
