package verify

import (
	"fmt"
	"strings"

	"github.com/sqlgym/sqlgym"
)

// BrokenGold is a task whose gold query failed on its database, named with
// the database's error, so a report says which tasks to fix rather than
// how many there are.
type BrokenGold struct {
	TaskID string `json:"task_id"`
	Error  string `json:"error"`
}

// Broken lists the tasks of results whose gold failed (outcome
// gold_error), once per task, in the order met, with the first error seen.
func Broken(results []Result) []BrokenGold {
	var out []BrokenGold
	seen := map[string]bool{}
	for _, r := range results {
		if r.Outcome != sqlgym.OutcomeGoldError || seen[r.TaskID] {
			continue
		}
		seen[r.TaskID] = true
		out = append(out, BrokenGold{TaskID: r.TaskID, Error: r.Detail})
	}
	return out
}

// BrokenShown is how many broken golds a terminal report names; the rest
// are counted ("and 12 more") and all are in the --json output.
const BrokenShown = 5

// FormatBroken is the compact list a terminal report prints: a heading
// line with the count, then the first BrokenShown tasks with their errors
// and "and M more". It is "" for no broken golds.
func FormatBroken(list []BrokenGold) string {
	if len(list) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "broken golds (%d tasks, never scored; fix or drop them):\n", len(list))
	for _, g := range list[:min(len(list), BrokenShown)] {
		msg := g.Error
		if len(msg) > 160 {
			msg = msg[:157] + "..."
		}
		fmt.Fprintf(&b, "  %s: %s\n", g.TaskID, msg)
	}
	if n := len(list) - BrokenShown; n > 0 {
		fmt.Fprintf(&b, "  and %d more (all in --json)\n", n)
	}
	return b.String()
}
