package verify

import (
	"context"
	"errors"

	"github.com/sqlgym/sqlgym"
)

// cause is why a statement ended, which decides what may be remembered of
// it: only what the same statement on the same read-only database would
// give again, whatever the machine's load and whoever asked.
type cause int

const (
	causeRows      cause = iota // it returned rows
	causeSQL                    // the statement's own error (*sqlgym.ExecError)
	causeTooLarge               // its result is past the caps
	causeBudget                 // SQLite's step budget ran out: deterministic
	causeClock                  // a wall-clock limit stopped it: depends on the load
	causeInfra                  // the database could not be used (InfraError, or unknown)
	causeAbandoned              // the caller's context ended first: nothing is known
)

// causeOf classifies how a statement run under ctx ended. A caller's
// context that has ended makes any failure but the statement's own error
// or size abandoned: an engine may report the caller's deadline as a
// timeout, and that must never be cached as the statement's.
func causeOf(ctx context.Context, err error) cause {
	if err == nil {
		return causeRows
	}
	var ee *sqlgym.ExecError
	switch {
	case errors.As(err, &ee):
		return causeSQL
	case errors.Is(err, sqlgym.ErrTooLarge):
		return causeTooLarge
	case ctx.Err() != nil:
		return causeAbandoned
	case sqlgym.IsInfra(err):
		return causeInfra
	case errors.Is(err, sqlgym.ErrStepBudget), errors.Is(err, sqlgym.ErrCPUCap):
		return causeBudget
	case errors.Is(err, sqlgym.ErrTimeout):
		return causeClock
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled):
		// The engine saw the caller's deadline before ctx did: SQLite's C
		// handler reads the clock itself, a moment ahead of the context's
		// timer (seen under the race detector, where 29 of 32 answers cut
		// by a request's deadline came back as infrastructure failures).
		return causeAbandoned
	}
	// An unknown failure is never the model's mistake.
	return causeInfra
}

// memoisable reports whether the outcome may be kept and reused: rows, the
// statement's own error, a result past the caps, a spent step budget.
func (c cause) memoisable() bool { return c <= causeBudget }

// retryable reports whether trying again may give another answer soon.
func (c cause) retryable() bool { return c == causeInfra }

// scored reports whether the outcome is the statement's own doing.
func (c cause) scored() bool { return c <= causeClock }
