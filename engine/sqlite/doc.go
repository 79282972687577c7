// Package sqlite is sqlgym's sandboxed engine over SQLite files, built on C
// SQLite: the amalgamation github.com/mattn/go-sqlite3 compiles, reached
// through a small cgo binding of this package's own (capi.h, capi.c,
// capi.go), never through mattn's database/sql driver. Values come back raw,
// as SQLite stores them: the declared column type never turns TEXT into a
// date or an INTEGER into a bool.
//
// The sandbox is SQLite's own: the file is opened read-only (and immutable
// by default), a C authorizer allows only reading, every connection runs in
// defensive mode with lowered limits, and a C progress handler stops a
// statement at its deterministic budget of virtual-machine steps, at the
// caller's cancellation or deadline, or at the wall-clock safety net.
// Functions whose one call can cost the product of their arguments' sizes
// (LIKE, GLOB, instr, replace, trim) are bounded and charge the budget, and
// so do every byte SQLite allocates for a statement and every page it
// asks of the file (alloc.c), which charges the functions whose cost
// grows with their values and the index lookups. Each
// statement holds at most its share of the process-wide heap; no lock is
// taken. SQLite's math functions are
// provided (mathfunc.c). docs/sandbox-sqlite.md says what is enforced, by
// whom, and how the budget was calibrated.
//
// The package also builds new SQLite files from statements (Create), which
// is how the built-in databases and test fixtures are materialised, and
// offers an unsandboxed runner for benchmarks only (OpenRaw).
package sqlite
