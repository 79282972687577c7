package precision

import (
	"fmt"
	"io"
	"slices"

	"github.com/sqlgym/sqlgym/stats"
)

// Screened is the precision on held-out systems once the gold suspects
// found from other systems' answers are judged on the original alone, as
// a user's data-quality screen would leave them: the suspects are decided
// on Options.SuspectsFrom's answers only, and precision is counted on the
// other systems' flips of the judged sample, so the rule is never scored
// on the answers that chose its tasks.
type Screened struct {
	From     []string `json:"suspects_from"`
	Suspects []string `json:"suspects"`
	// HeldOut counts the other systems' flips before and after the
	// screen; Before and After are their judged sample's precision.
	FlipsBefore int            `json:"flips_before"`
	FlipsAfter  int            `json:"flips_after"`
	Before      screenTally    `json:"before"`
	After       screenTally    `json:"after"`
	Precision   stats.Interval `json:"precision_before"`
	Screened    stats.Interval `json:"precision_after"`
}

type screenTally struct {
	Wrong, Right, Unclear, WrongGold int
}

func (t *screenTally) add(j Judgment) {
	switch j.Label {
	case Wrong:
		t.Wrong++
	case Right:
		t.Right++
		if j.Cause == "wrong_gold" {
			t.WrongGold++
		}
	default:
		t.Unclear++
	}
}

// screenSuspects measures the screen (Screened) on the examined flips.
func screenSuspects(preds []Prediction, base map[answerKey]Result, flips, examined []Flip, judgments map[judgKey]Judgment, o Options) *Screened {
	from := map[string]bool{}
	for _, s := range o.SuspectsFrom {
		from[s] = true
	}
	keep := func(sys string) bool { return from[sys] }
	var fp []Prediction
	for _, p := range preds {
		if keep(p.System) {
			fp = append(fp, p)
		}
	}
	var ff []Flip
	for _, f := range flips {
		if keep(f.System) {
			ff = append(ff, f)
		}
	}
	s := &Screened{From: slices.Sorted(slices.Values(o.SuspectsFrom))}
	suspect := map[string]bool{}
	for _, g := range goldSuspects(fp, base, ff, nil, o) {
		suspect[g.TaskID] = true
		s.Suspects = append(s.Suspects, g.TaskID)
	}
	slices.Sort(s.Suspects)
	for _, f := range flips {
		if from[f.System] {
			continue
		}
		s.FlipsBefore++
		if !suspect[f.TaskID] {
			s.FlipsAfter++
		}
	}
	for _, f := range examined {
		if from[f.System] {
			continue
		}
		j, ok := judgments[judgKey{o.Generator, o.DBCopy, f.TaskID, f.SQLSHA256}]
		if !ok {
			continue
		}
		s.Before.add(j)
		if !suspect[f.TaskID] {
			s.After.add(j)
		}
	}
	s.Precision = stats.Wilson(s.Before.Wrong, s.Before.Wrong+s.Before.Right)
	s.Screened = stats.Wilson(s.After.Wrong, s.After.Wrong+s.After.Right)
	return s
}

func (s *Screened) write(w io.Writer) {
	fmt.Fprintf(w, "gold-suspect screen, suspects from %v (%d tasks judged on the original alone): the other systems' flips %d -> %d\n",
		s.From, len(s.Suspects), s.FlipsBefore, s.FlipsAfter)
	fmt.Fprintf(w, "  their judged sample before: wrong %d, right %d (wrong gold %d), unclear %d: %s\n",
		s.Before.Wrong, s.Before.Right, s.Before.WrongGold, s.Before.Unclear, pctInterval(s.Precision))
	fmt.Fprintf(w, "  after the screen:           wrong %d, right %d (wrong gold %d), unclear %d: %s\n",
		s.After.Wrong, s.After.Right, s.After.WrongGold, s.After.Unclear, pctInterval(s.Screened))
	fmt.Fprintf(w, "  suspects: %v\n", s.Suspects)
}
