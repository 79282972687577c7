package sqlgym

import (
	"context"
	"time"
)

// Dialect names the SQL engine behind an Engine.
type Dialect string

const (
	DialectSQLite   Dialect = "sqlite"
	DialectPostgres Dialect = "postgres"
	DialectDuckDB   Dialect = "duckdb"
)

// Default limits for one statement.
const (
	DefaultTimeout  = 5 * time.Second
	DefaultMaxRows  = 100_000
	DefaultMaxBytes = 64 << 20
)

// Limits bound one statement. Zero fields take the defaults above, except
// StopAfter and VMSteps, where zero means off.
type Limits struct {
	// Timeout is wall-clock time; the engine interrupts the statement when it
	// passes and reports ErrTimeout.
	Timeout time.Duration
	// MaxRows and MaxBytes are hard caps: a result past either is
	// ErrTooLarge.
	MaxRows  int
	MaxBytes int64
	// StopAfter, when positive, makes the engine stop reading after that many
	// rows and return the result with Capped set. It is how a verifier stops
	// reading a candidate whose verdict is already decided.
	StopAfter int
	// VMSteps is a deterministic budget in SQLite virtual-machine steps
	// (checked every 1000 steps); past it the statement fails with
	// ErrTimeout whatever the machine's load. Engines other than SQLite
	// ignore it.
	VMSteps int64
}

// WithDefaults fills zero fields with the defaults.
func (l Limits) WithDefaults() Limits {
	if l.Timeout <= 0 {
		l.Timeout = DefaultTimeout
	}
	if l.MaxRows <= 0 {
		l.MaxRows = DefaultMaxRows
	}
	if l.MaxBytes <= 0 {
		l.MaxBytes = DefaultMaxBytes
	}
	return l
}

// Engine runs model-written SQL against one database inside a sandbox:
// read-only enforced by the engine itself, exactly one statement, limits on
// time, rows, bytes and memory. Implementations are safe for concurrent use
// and keep a pool of connections.
//
// Query returns an *ExecError for a statement the database rejects or the
// sandbox refuses, ErrTimeout (wrapped) when a limit on time stops it,
// ErrTooLarge (wrapped) for a result past the caps, and an *InfraError when
// the database itself cannot be reached: that is never the SQL's fault.
type Engine interface {
	Dialect() Dialect
	Query(ctx context.Context, sql string, lim Limits) (*ResultSet, error)
	Close() error
}
