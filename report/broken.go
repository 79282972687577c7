package report

import (
	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/verify"
)

// BrokenGolds names the run's tasks whose gold failed on its database,
// with the first error seen, in task order.
func (r *Run) BrokenGolds() []verify.BrokenGold {
	var out []verify.BrokenGold
	seen := map[string]bool{}
	for _, s := range r.Samples {
		if s.Outcome != sqlgym.OutcomeGoldError || seen[s.TaskID] {
			continue
		}
		seen[s.TaskID] = true
		out = append(out, verify.BrokenGold{TaskID: s.TaskID, Error: s.Detail})
	}
	return out
}
