// Package sqlite is sqlgym's sandboxed engine over SQLite files, built on
// github.com/ncruces/go-sqlite3's low-level API (SQLite compiled to Wasm and
// translated to Go: no cgo, no native extensions). Values come back raw, as
// SQLite stores them: the declared column type never turns TEXT into a date
// or an INTEGER into a bool.
//
// The sandbox is SQLite's own: the file is opened read-only (and immutable
// by default), an authorizer allows only reading, every connection runs in
// defensive mode with lowered length limits and a hard heap limit, and a
// statement is interrupted by a wall-clock deadline or a deterministic
// budget of virtual-machine steps. docs/sandbox-sqlite.md says what is
// enforced and what is not.
//
// The package also builds new SQLite files from statements (Create), which
// is how the built-in databases and test fixtures are materialised.
package sqlite
