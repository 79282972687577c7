package precision

import (
	"cmp"
	"fmt"
	"slices"
)

// minSuspectSystems is the fewest systems whose flips make a gold suspect:
// independent systems that agree with the gold on the original and all
// part from it on the variants more often share a reading of the question
// the gold misses than share one mistake.
const minSuspectSystems = 3

// Suspect is a task whose gold the flips put in doubt.
type Suspect struct {
	TaskID string `json:"task_id"`
	// RightBefore and Flipped count systems: matched the gold on the
	// original, and of those, flipped by the variants.
	RightBefore int `json:"right_before"`
	Flipped     int `json:"flipped"`
	// WrongGold and Judged count this generator's judgments of the task's
	// flipped answers (distinct SQL): those blaming the gold, and all.
	WrongGold int `json:"judged_wrong_gold"`
	Judged    int `json:"judged"`
}

func (s Suspect) judgedText() string {
	if s.Judged == 0 {
		return ""
	}
	return fmt.Sprintf(" (judged %d, %d of them for a wrong gold)", s.Judged, s.WrongGold)
}

// goldSuspects lists the tasks where at least minSuspectSystems systems
// matched the gold on the original and more than half of those were
// flipped: a variant that parts most systems from a gold they all matched
// shows the gold's reading as often as their mistake, and a wrong gold
// caps what any generator reaches, so the user reads it rather than the
// report hiding it. Most flipped first.
func goldSuspects(preds []Prediction, base map[answerKey]Result, flips []Flip, judgments map[judgKey]Judgment, o Options) []Suspect {
	type acc struct {
		right, flipped map[string]bool
		shas           map[string]bool
	}
	by := map[string]*acc{}
	get := func(task string) *acc {
		a := by[task]
		if a == nil {
			a = &acc{right: map[string]bool{}, flipped: map[string]bool{}, shas: map[string]bool{}}
			by[task] = a
		}
		return a
	}
	for _, p := range preds {
		if base[answerKey{p.TaskID, p.Sample}].Outcome == "correct" {
			get(p.TaskID).right[p.System] = true
		}
	}
	for _, f := range flips {
		a := get(f.TaskID)
		a.flipped[f.System] = true
		a.shas[f.SQLSHA256] = true
	}
	var out []Suspect
	for task, a := range by {
		if len(a.flipped) < minSuspectSystems || 2*len(a.flipped) <= len(a.right) {
			continue
		}
		s := Suspect{TaskID: task, RightBefore: len(a.right), Flipped: len(a.flipped)}
		for sha := range a.shas {
			if j, ok := judgments[judgKey{o.Generator, o.DBCopy, task, sha}]; ok {
				s.Judged++
				if j.Label == Right && j.Cause == "wrong_gold" {
					s.WrongGold++
				}
			}
		}
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b Suspect) int {
		return cmp.Or(cmp.Compare(b.Flipped, a.Flipped), cmp.Compare(a.TaskID, b.TaskID))
	})
	return out
}
