package precision

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
)

// Flip is an answer that matched its gold on the original database and
// not on the variants.
type Flip struct {
	System    string `json:"system"`
	Sample    int    `json:"sample"`
	TaskID    string `json:"task_id"`
	SQL       string `json:"sql"`
	SQLSHA256 string `json:"sql_sha256"`
	// Outcome and Detail are the variants run's verdict: the detail names
	// the variant that told the answer from the gold.
	Outcome string `json:"outcome"`
	Detail  string `json:"detail,omitempty"`
}

// flipped are the outcomes that count as the variants rejecting an answer.
// gold_error, infra_error and truncated are not verdicts on the answer.
var flipped = map[string]bool{"wrong": true, "error": true, "timeout": true, "too_large": true}

// tally is what the two runs say of the corpus, per system and in all.
type tally struct {
	Answers  int `json:"answers"`
	Before   int `json:"correct_before"`
	After    int `json:"correct_after"`
	Flips    int `json:"flips"`
	Unscored int `json:"unscored"`
}

// findFlips pairs every prediction with its two verdicts. A prediction
// missing from a run, or a run whose SQL differs, means the runs were
// not made from these predictions: an error, not a silent gap.
func findFlips(preds []Prediction, base, withVariants map[answerKey]Result) ([]Flip, map[string]*tally, error) {
	per := map[string]*tally{}
	var flips []Flip
	for _, p := range preds {
		k := answerKey{p.TaskID, p.Sample}
		b, ok1 := base[k]
		v, ok2 := withVariants[k]
		if !ok1 || !ok2 || b.SQL != p.SQL || v.SQL != p.SQL {
			return nil, nil, fmt.Errorf("task %s sample %d (%s): missing from a verify run or judged with other SQL\nhint: run both verify commands on this predictions file", p.TaskID, p.Sample, p.System)
		}
		t := per[p.System]
		if t == nil {
			t = &tally{}
			per[p.System] = t
		}
		t.Answers++
		if b.Outcome == "correct" {
			t.Before++
		}
		if v.Outcome == "correct" {
			t.After++
		}
		if b.Outcome != "correct" || v.Outcome == "correct" {
			continue
		}
		if !flipped[v.Outcome] {
			t.Unscored++
			continue
		}
		t.Flips++
		flips = append(flips, Flip{System: p.System, Sample: p.Sample, TaskID: p.TaskID, SQL: p.SQL,
			SQLSHA256: SQLHash(p.SQL), Outcome: v.Outcome, Detail: v.Detail})
	}
	slices.SortFunc(flips, func(a, b Flip) int {
		return cmp.Or(cmp.Compare(a.TaskID, b.TaskID), cmp.Compare(a.Sample, b.Sample))
	})
	return flips, per, nil
}

// sampleFlips draws n flips uniformly without replacement, the same n for
// the same flips and seed; n <= 0 or n >= len keeps them all. The draw is
// made over answers, so an SQL that several systems wrote weighs as many
// answers, as it does in the precision of all flips.
func sampleFlips(flips []Flip, n int, seed uint64) []Flip {
	if n <= 0 || n >= len(flips) {
		return flips
	}
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	idx := r.Perm(len(flips))[:n]
	slices.Sort(idx)
	out := make([]Flip, n)
	for i, j := range idx {
		out[i] = flips[j]
	}
	return out
}
