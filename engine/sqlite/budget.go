package sqlite

import (
	"context"
	"errors"
	"sync/atomic"
	"time"
)

// checkEvery is how many virtual-machine steps pass between two calls of
// SQLite's progress handler; ncruces registers the handler with 1000.
const checkEvery = 1000

// errStepBudget is what the step budget reports once spent.
var errStepBudget = errors.New("virtual-machine step budget spent")

// interrupter is the interrupt context of one statement. ncruces asks the
// connection's interrupt context for Err() from SQLite's progress handler,
// every checkEvery VM steps, and also once before each Prepare and Step.
//
// Err compares the clock with the deadline itself rather than waiting for
// a timer to cancel a context: on a loaded machine a timer can fire late,
// and the statement must stop on time.
//
// With a step budget, Err also counts the progress-handler calls and
// reports cancellation once VMSteps/checkEvery of them have passed, so the
// budget is a count of work done, independent of the machine's load. The
// extra calls before Prepare and Step are granted back by allow, so the
// number of rows fetched does not eat into it.
type interrupter struct {
	context.Context // the caller's context
	deadline        time.Time
	budgeted        bool
	left            atomic.Int64
	spent           atomic.Bool // the step budget ran out
	late            atomic.Bool // the deadline passed
}

func newInterrupter(parent context.Context, timeout time.Duration, vmSteps int64) *interrupter {
	in := &interrupter{Context: parent, deadline: time.Now().Add(timeout)}
	if vmSteps > 0 {
		in.budgeted = true
		in.left.Store(max(vmSteps/checkEvery, 1))
	}
	return in
}

// allow grants back one Err call that is not a progress check.
func (in *interrupter) allow() {
	if in.budgeted {
		in.left.Add(1)
	}
}

func (in *interrupter) Deadline() (time.Time, bool) {
	if d, ok := in.Context.Deadline(); ok && d.Before(in.deadline) {
		return d, true
	}
	return in.deadline, true
}

func (in *interrupter) Err() error {
	if err := in.Context.Err(); err != nil {
		return err
	}
	if in.spent.Load() {
		return errStepBudget
	}
	if in.budgeted && in.left.Add(-1) < 0 {
		in.spent.Store(true)
		return errStepBudget
	}
	if in.late.Load() || !time.Now().Before(in.deadline) {
		in.late.Store(true)
		return context.DeadlineExceeded
	}
	return nil
}
