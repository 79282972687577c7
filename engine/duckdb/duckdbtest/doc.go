// Package duckdbtest is the TestMain of a test binary whose tests open
// DuckDB engines: the engine runs statements in copies of the running
// binary (docs/sandbox-duckdb.md), so the test binary must be able to
// become such a worker before it runs any test.
package duckdbtest
