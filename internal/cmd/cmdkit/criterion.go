package cmdkit

import (
	"fmt"

	"github.com/sqlgym/sqlgym/stats"
)

// CriterionError is a pre-registered --criterion that the comparison did
// not meet: compare prints its result, records it in the ledger, then
// exits 4 (ExitCriterion) so that a script or CI step stops.
type CriterionError struct {
	Criterion string
	Delta     stats.Interval
	Why       string
}

func (e *CriterionError) Error() string {
	msg := fmt.Sprintf("criterion %s not met (delta %+.2f pts, 95%% interval [%+.2f, %+.2f])",
		e.Criterion, 100*e.Delta.Value, 100*e.Delta.Lo, 100*e.Delta.Hi)
	if e.Why != "" {
		msg += ": " + e.Why
	}
	return msg
}
