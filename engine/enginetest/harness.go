package enginetest

import (
	"testing"
	"time"

	"github.com/sqlgym/sqlgym"
)

// Harness builds databases for one engine.
type Harness struct {
	Dialect sqlgym.Dialect
	// Open creates a fresh database holding the result of running stmts with
	// full rights, then returns the sandboxed engine over it and a function
	// returning a digest of the database's whole content (file checksum, or
	// for PostgreSQL a digest of every table's rows), used to prove hostile
	// SQL changed nothing. The harness registers cleanup with t.
	Open func(t *testing.T, stmts []string) (eng sqlgym.Engine, digest func() string)
	// Dir is a directory that hostile statements may try to write into
	// (placeholder {{DIR}} in a statement is replaced by it); the suite
	// asserts it stays empty. May be "" to use t.TempDir().
	Dir string
}

// Hostile is one statement the sandbox must refuse or stop.
type Hostile struct {
	Name, SQL string
	Budget    time.Duration // 0 = DefaultHostileBudget
}

// DefaultHostileBudget is the time limit of a Hostile with no Budget.
const DefaultHostileBudget = 2 * time.Second

// MinHostile is the smallest corpus (common + dialect-specific) RunHostile
// accepts: the issue requires at least 100 hostile statements per engine.
const MinHostile = 100

// DirPlaceholder in a hostile statement is replaced by the harness's Dir.
const DirPlaceholder = "{{DIR}}"

// WallClock is the limits under which timeout tests run: Timeout decides,
// on every engine. SQLite's deterministic step budget, which otherwise
// decides there, is turned off (VMSteps < 0; other engines ignore it), so
// a test's time bound means the same thing on every engine.
func WallClock(timeout time.Duration) sqlgym.Limits {
	return sqlgym.Limits{Timeout: timeout, VMSteps: -1}
}
