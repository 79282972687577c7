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
	// DialectMySQL covers MySQL and MariaDB: one wire protocol, one driver.
	DialectMySQL Dialect = "mysql"
)

// Default limits for one statement.
const (
	// DefaultTimeout is the wall-clock limit that decides `timeout` on
	// engines without a deterministic step counter (PostgreSQL, DuckDB).
	DefaultTimeout  = 5 * time.Second
	DefaultMaxRows  = 100_000
	DefaultMaxBytes = 64 << 20
	// DefaultVMSteps is SQLite's deterministic budget in virtual-machine
	// steps (plus the bytes and pages charged, engine/sqlite): what decides
	// `timeout` on SQLite, whatever the machine's load. 2e8 bounds every
	// calibrated shape at about 10 s of CPU on an idle machine: the
	// slowest ordinary queries (joins grouped and sorted on text) run at
	// 27 ns per step (58 in the worst run recorded), the heavy functions at
	// 8 ns. The largest answer measured, on the BIRD-sized benchdb, needs
	// 4e6 (2 % of it); Spider dev golds at most 1e6; golds get 10 times.
	// docs/sandbox-sqlite.md ("Deterministic budget") records the
	// calibration.
	DefaultVMSteps = 200_000_000
	// DefaultSafetyNet is, on SQLite with a step budget, the wall-clock
	// time after which a statement is abandoned as an infrastructure
	// failure (the machine is too busy to finish it), never scored. 300 s
	// was sized for a budget of 1e9 at a slow rate (15 M steps/s) on a
	// machine with 3 CPU-burning processes per core (267 s); at 2e8 it
	// holds the full budget at the slowest rate recorded (58 ns per step,
	// 11.6 s of CPU) with 25 such processes per core.
	DefaultSafetyNet = 300 * time.Second
	// GoldFactor scales every limit for gold queries (GoldLimits): BIRD
	// golds can need tens of seconds, and a gold over its limit is the
	// task's gold_error, never the model's.
	GoldFactor = 10
)

// Limits bound one statement. Zero fields take the defaults above, except
// StopAfter, where zero means off.
type Limits struct {
	// Timeout decides `timeout` on the engines without a step counter. On
	// PostgreSQL it is wall-clock time (statement_timeout). On DuckDB, in a
	// worker process on Linux (the default), it is the worker's CPU time,
	// which a busy machine hardly changes; the wall clock there only stops
	// a statement at min(20 x Timeout, SafetyNet) as an *InfraError. On
	// SQLite it decides only when the step budget is off (VMSteps < 0).
	Timeout time.Duration
	// MaxRows and MaxBytes are hard caps: a result past either is
	// ErrTooLarge.
	MaxRows  int
	MaxBytes int64
	// StopAfter, when positive, makes the engine stop reading after that many
	// rows and return the result with Capped set. It is how a verifier stops
	// reading a candidate whose verdict is already decided.
	StopAfter int
	// VMSteps is a deterministic budget in SQLite virtual-machine steps;
	// past it the statement fails with ErrTimeout (wrapping
	// ErrStepBudget) whatever the machine's load. Zero means
	// DefaultVMSteps; negative turns the budget off, and then Timeout
	// decides on SQLite too. Engines other than SQLite ignore it.
	VMSteps int64
	// SafetyNet is the wall-clock stop of the engines whose budget is not
	// the wall clock (SQLite with a step budget, DuckDB workers on CPU
	// time): a statement still running then is stopped and reported as an
	// *InfraError wrapping ErrSafetyNet, which callers retry and never
	// score, because the budget, not the clock, decides the model's
	// timeout. Zero means DefaultSafetyNet.
	SafetyNet time.Duration
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
	if l.VMSteps == 0 {
		l.VMSteps = DefaultVMSteps
	}
	if l.SafetyNet <= 0 {
		l.SafetyNet = DefaultSafetyNet
	}
	return l
}

// GoldLimits are the limits a gold query runs under: the candidate's
// limits (with defaults filled) with Timeout, VMSteps and SafetyNet scaled
// by GoldFactor. Row and byte caps stay: a gold past them is unusable.
func (l Limits) GoldLimits() Limits {
	l = l.WithDefaults()
	l.Timeout *= GoldFactor
	l.SafetyNet *= GoldFactor
	if l.VMSteps > 0 {
		l.VMSteps *= GoldFactor
	}
	l.StopAfter = 0
	return l
}

// Engine runs model-written SQL against one database inside a sandbox:
// read-only enforced by the engine itself, exactly one statement, limits on
// time, rows, bytes and memory. Implementations are safe for concurrent use
// and keep a pool of connections.
//
// Query returns an *ExecError for a statement the database rejects or the
// sandbox refuses, ErrTimeout (wrapped) when the statement's own limit
// stops it (SQLite: the step budget; others: Limits.Timeout), ErrTooLarge
// (wrapped) for a result past the caps, and an *InfraError when the
// database itself cannot be used: unreachable, closed, out of connections,
// a session killed from outside, a worker process that died without the
// statement hitting one of its caps, SQLite's wall-clock safety net. An
// InfraError is never the SQL's fault and is never cached or scored.
//
// The caller's context: when ctx is cancelled or its deadline passes
// before the statement ends, Query stops the statement and returns an
// error for which errors.Is(err, ctx.Err()) holds and which is neither an
// *ExecError nor ErrTimeout nor ErrTooLarge: the statement was abandoned,
// so nothing can be concluded from it, and a caller must not memoise it.
// A caller's deadline is never reported as the statement's timeout.
//
// No statement may crash the process or leak a connection: a panic or a
// crashed worker inside the engine becomes an error for that statement,
// and every connection and slot is returned on every path.
type Engine interface {
	Dialect() Dialect
	Query(ctx context.Context, sql string, lim Limits) (*ResultSet, error)
	Close() error
}
