package sqlite

import "runtime"

// Options tune an Engine. The zero value is the right choice for reference
// databases: immutable, 2*GOMAXPROCS connections, DefaultHeapLimit.
type Options struct {
	// PoolSize is the number of connections, each able to run one
	// statement at a time. Zero means 2*GOMAXPROCS.
	PoolSize int
	// HeapLimit is SQLite's hard heap limit in bytes; a statement that
	// needs more fails with an out-of-memory ExecError. In C SQLite this
	// limit is process-wide; in this Wasm build every connection is its
	// own SQLite instance with its own heap, so the limit applies per
	// connection and the engine can use up to PoolSize*HeapLimit. Zero
	// means DefaultHeapLimit.
	HeapLimit int64
	// Mutable opens the file without immutable=1, for a database another
	// process may write while it is open: SQLite then takes shared locks
	// and notices changes, at some cost. sqlgym treats its databases as
	// fixed references, so the default (false) opens them immutable, which
	// skips locking and change detection; it is only safe when nothing
	// else writes the file.
	Mutable bool
}

// Defaults.
const (
	DefaultHeapLimit = 256 << 20
	// maxLength caps any string or blob a statement builds (SQLite's
	// SQLITE_LIMIT_LENGTH), so randomblob/zeroblob/printf explosions fail
	// at once instead of eating the heap.
	maxLength = 16 << 20
	// maxSQLLength caps the statement text itself.
	maxSQLLength = 1 << 20
	// wasmSlack is memory a connection's Wasm instance may use beyond
	// SQLite's heap limit (stack, Go-side buffers).
	wasmSlack = 32 << 20
)

func (o Options) withDefaults() Options {
	if o.PoolSize <= 0 {
		o.PoolSize = 2 * runtime.GOMAXPROCS(0)
	}
	if o.HeapLimit <= 0 {
		o.HeapLimit = DefaultHeapLimit
	}
	return o
}
