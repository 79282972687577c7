package sqlite

import (
	"context"
	"errors"
	"sync/atomic"
)

// checkEvery is how many virtual-machine steps pass between two calls of
// SQLite's progress handler; ncruces registers the handler with 1000.
const checkEvery = 1000

// errStepBudget is what the step budget reports once spent.
var errStepBudget = errors.New("virtual-machine step budget spent")

// stepBudget is the interrupt context of one statement. ncruces asks the
// connection's interrupt context for Err() from SQLite's progress handler,
// every checkEvery VM steps, and also once before each Prepare and Step.
// stepBudget counts the progress-handler calls and reports cancellation
// once VMSteps/checkEvery of them have passed, so the budget is a count of
// work done, independent of how loaded the machine is. The extra calls
// before Prepare and Step are granted back by allow, so the number of rows
// fetched does not eat into it.
type stepBudget struct {
	context.Context
	left  atomic.Int64
	spent atomic.Bool
}

func newStepBudget(parent context.Context, vmSteps int64) *stepBudget {
	b := &stepBudget{Context: parent}
	b.left.Store(max(vmSteps/checkEvery, 1))
	return b
}

// allow grants back one Err call that is not a progress check.
func (b *stepBudget) allow() { b.left.Add(1) }

func (b *stepBudget) Err() error {
	if b.spent.Load() {
		return errStepBudget
	}
	if b.left.Add(-1) < 0 {
		b.spent.Store(true)
		return errStepBudget
	}
	return b.Context.Err()
}
