// Package cmdkit holds what every command of sqlgym and sqlgym-bench
// shares: the IO streams, usage errors and exit codes, Execute (the one
// path a tree runs through, which also turns a process into a DuckDB
// worker), --json output, output-file checks, the database, variant,
// mode and linker flags, build information. Commands live in the group
// packages beside it; cmdkit imports none of them.
package cmdkit
