package report

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/sqlgym/sqlgym/failure"
	"github.com/sqlgym/sqlgym/rundir"
	"github.com/sqlgym/sqlgym/sqltext"
)

// examplesPerClass is how many distinct failures a report shows for each
// failure class.
const examplesPerClass = 2

// ClassCount is one failure class in a run: how many samples and tasks it
// took, and a few distinct examples.
type ClassCount struct {
	Class string `json:"class"`
	// Runs says whether answers of the class ran (wrong rows) or not.
	Runs     bool      `json:"runs"`
	Samples  int       `json:"samples"`
	Tasks    int       `json:"tasks"`
	Examples []Failure `json:"examples"`
}

// HintSummary is what a hint run recovered: of the failed tasks it asked
// again, those with a right sample now.
type HintSummary struct {
	Hint      string `json:"hint"`
	RetryOf   string `json:"retry_of"`
	Tasks     int    `json:"tasks"`
	Recovered int    `json:"recovered"`
}

func hintSummary(m rundir.Manifest, tasks []TaskResult) *HintSummary {
	if m.RetryOf == "" {
		return nil
	}
	h := &HintSummary{Hint: m.Hint, RetryOf: m.RetryOf}
	for _, t := range tasks {
		if t.N > 0 {
			h.Tasks++
			if t.C > 0 {
				h.Recovered++
			}
		}
	}
	return h
}

// Line words the summary for a report.
func (h *HintSummary) Line() string {
	hint := h.Hint
	if hint == "" {
		hint = "none"
	}
	return fmt.Sprintf("retry of %s's failed tasks with hint %s: %d of %d recovered (%s)", h.RetryOf, hint, h.Recovered, h.Tasks,
		pct(float64(h.Recovered)/float64(max(h.Tasks, 1))))
}

// distinctFailures keeps one failure per task and normalised SQL, listing
// in Samples every sample that gave it, whatever outcome each got: sixteen
// samples of one task that all wrote the same query are one thing to read.
// failures must be sorted by task then sample.
func distinctFailures(fs []Failure) []Failure {
	type key struct{ task, sql string }
	at := map[key]int{}
	out := fs[:0:0]
	for _, f := range fs {
		k := key{f.TaskID, sqltext.Normalize(f.SQL)}
		if i, ok := at[k]; ok {
			out[i].Samples = append(out[i].Samples, f.Sample)
			continue
		}
		at[k] = len(out)
		f.Samples = []int{f.Sample}
		out = append(out, f)
	}
	return out
}

// classCounts counts the samples' failure classes and picks, for each,
// examples from distinct tasks first (the distinct failures are in task
// order, so the examples are the first tasks in id order).
func classCounts(samples []rundir.Sample, distinct []Failure) []ClassCount {
	by := map[string]*ClassCount{}
	tasks := map[string]map[string]bool{}
	for i := range samples {
		s := &samples[i]
		if s.Failure == nil {
			continue
		}
		c := string(s.Failure.Class)
		cc := by[c]
		if cc == nil {
			cc = &ClassCount{Class: c, Runs: failure.Runs(s.Failure.Class), Examples: []Failure{}}
			by[c] = cc
			tasks[c] = map[string]bool{}
		}
		cc.Samples++
		tasks[c][s.TaskID] = true
	}
	used := map[string]map[string]bool{}
	for _, f := range distinct {
		cc := by[f.Class]
		if cc == nil || len(cc.Examples) >= examplesPerClass || used[f.Class][f.TaskID] {
			continue
		}
		if used[f.Class] == nil {
			used[f.Class] = map[string]bool{}
		}
		used[f.Class][f.TaskID] = true
		cc.Examples = append(cc.Examples, f)
	}
	out := make([]ClassCount, 0, len(by))
	for c, cc := range by {
		cc.Tasks = len(tasks[c])
		out = append(out, *cc)
	}
	slices.SortFunc(out, func(a, b ClassCount) int {
		return cmp.Or(cmp.Compare(b.Samples, a.Samples), strings.Compare(a.Class, b.Class))
	})
	return out
}
