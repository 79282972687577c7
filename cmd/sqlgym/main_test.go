package main

import (
	"os"
	"testing"

	"github.com/sqlgym/sqlgym/engine/duckdb"
)

// asCLI, set to 1 in a process's environment, makes this test binary the
// sqlgym program: TestReadmeQuickstartsRun puts it on PATH as `sqlgym`
// instead of linking the program once more (a go build costs about 11 s of
// CPU and minutes of wall time on a loaded machine). It runs main itself,
// so the program the README drives is the one cmd/sqlgym builds.
const asCLI = "SQLGYM_README_TEST_AS_CLI"

// TestMain lets the test binary serve as its own DuckDB worker (the engine
// re-executes the running binary) and as sqlgym when asCLI is set.
func TestMain(m *testing.M) {
	duckdb.MaybeServeWorker()
	if os.Getenv(asCLI) == "1" {
		main()
	}
	os.Exit(m.Run())
}
