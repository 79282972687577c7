// Package duckdb is the sqlgym.Engine for DuckDB database files, built on
// github.com/duckdb/duckdb-go/v2.
//
// It owns three things: the sandbox (DuckDB opened read-only with external
// access, extension loading and autoloading off, no temporary directory,
// memory and threads capped and the configuration locked, a function gate
// on DuckDB's own parse tree that refuses calls changing the instance or
// reading other statements' traces (gate.go, functions.go), plus a
// statement-type check that admits only SELECT and EXPLAIN), the mapping of DuckDB's typed values and errors onto
// sqlgym's canonical ones, Describe (the schema from DuckDB's catalog
// functions), and Create, which builds a new DuckDB file from portable SQL
// for tests and conversions. On Linux, model SQL runs in worker processes
// (this binary re-executed; see worker.go) that hold each statement to a
// CPU-time budget (clock.go), are killed when it overruns, have their
// memory capped, and are replaced when their state may have changed; how a
// worker died decides whose fault it was (death.go).
// docs/sandbox-duckdb.md says what the sandbox enforces and what it does
// not.
package duckdb
