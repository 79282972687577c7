// Package enginetest is the one conformance suite and hostile-SQL harness
// that every sqlgym engine (SQLite, PostgreSQL, DuckDB) runs from its own
// tests. It owns the portable fixture database, the documented table of the
// value kinds each engine must return, and the common hostile corpus; each
// engine adds its dialect-specific hostile statements in its own test file.
package enginetest
