package sqlite

import "runtime"

// Options tune an Engine. The zero value is the right choice for reference
// databases: immutable, 2*GOMAXPROCS connections, DefaultHeapLimit.
type Options struct {
	// PoolSize is the number of connections, each able to run one
	// statement at a time. Zero means 2*GOMAXPROCS.
	PoolSize int
	// HeapLimit is SQLite's hard heap limit in bytes. In C SQLite the limit
	// is process-wide (sqlite3_hard_heap_limit64): it bounds all SQLite
	// connections of the process together, so Open raises the process's
	// limit to the largest HeapLimit any engine asked for and never lowers
	// it. A statement within its StatementHeapLimit that meets it waits
	// for room and runs again once (heap.go). Zero means DefaultHeapLimit.
	HeapLimit int64
	// StatementHeapLimit is one statement's share of the heap: the bytes
	// it may hold at once, counted per statement (alloc.c). A statement
	// past its share fails with its own out-of-memory ExecError whatever
	// else runs; its verdict is the same on every run. The database file's
	// page cache is not counted (bounded by SQLite's cache size). Zero
	// means HeapLimit / 2.
	StatementHeapLimit int64
	// Mutable opens the file without immutable=1, for a database another
	// process may write while it is open: SQLite then takes shared locks
	// and notices changes, at some cost. sqlgym treats its databases as
	// fixed references, so the default (false) opens them immutable, which
	// skips locking and change detection; it is only safe when nothing
	// else writes the file.
	Mutable bool
	// ReverseUnordered turns on SQLite's reverse_unordered_selects on
	// every connection: rows that no ORDER BY places come back in the
	// reverse of their usual order. Two engines on one file, one with it,
	// tell a deterministic query from one whose rows depend on scan order
	// (ties under ORDER BY ... LIMIT, bare columns of a group): the
	// variant generator's tie check.
	ReverseUnordered bool
}

// Defaults.
const (
	// DefaultHeapLimit is the process-wide heap limit Open sets when no
	// engine asked for more: all statements running at once share it.
	DefaultHeapLimit = 1 << 30
	// maxLength caps any string or blob a statement builds (SQLite's
	// SQLITE_LIMIT_LENGTH), so randomblob/zeroblob/printf explosions fail
	// at once instead of eating the heap.
	maxLength = 16 << 20
	// maxSQLLength caps the statement text itself.
	maxSQLLength = 1 << 20
	// maxLikePattern is SQLITE_LIMIT_LIKE_PATTERN_LENGTH (SQLite's default
	// is 50,000 bytes). Patterns longer than this are "too complex"; the
	// cost of one LIKE call is bounded separately (bounded.c).
	maxLikePattern = 10_000
)

func (o Options) withDefaults() Options {
	if o.PoolSize <= 0 {
		o.PoolSize = 2 * runtime.GOMAXPROCS(0)
	}
	if o.HeapLimit <= 0 {
		o.HeapLimit = DefaultHeapLimit
	}
	if o.StatementHeapLimit <= 0 {
		o.StatementHeapLimit = o.HeapLimit / 2
	}
	return o
}
