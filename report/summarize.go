package report

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/rundir"
	"github.com/sqlgym/sqlgym/stats"
)

// Resamples and Seed are the bootstrap settings of every interval this
// package prints. They are fixed so the same samples always give the same
// summary.json, report and comparison.
const (
	Resamples        = stats.DefaultResamples
	Seed      uint64 = 0x5eed
)

// TaskResult is one task's counts in a run.
type TaskResult struct {
	ID         string `json:"id"`
	DB         string `json:"db,omitempty"`
	Complexity string `json:"complexity,omitempty"`
	// N is the number of scored samples and C how many were right.
	N int `json:"n"`
	C int `json:"c"`
	// Unscored counts gold_error and infra_error samples, which enter no
	// score (see the package comment).
	Unscored int `json:"unscored,omitempty"`
}

// Rate is C/N, NaN for a task with no scored sample.
func (t TaskResult) Rate() float64 {
	if t.N == 0 {
		return math.NaN()
	}
	return float64(t.C) / float64(t.N)
}

// Count gives each task its counts, sorted by task id. The tasks are the
// given tasks when there are any (samples of other tasks are ignored), else
// every task a sample names. Sorting by id makes the bootstrap, which
// resamples tasks in order, independent of the order samples were written.
func Count(tasks []sqlgym.Task, samples []rundir.Sample) []TaskResult {
	index := map[string]int{}
	var out []TaskResult
	for _, t := range tasks {
		if _, dup := index[t.ID]; dup {
			continue
		}
		index[t.ID] = len(out)
		out = append(out, TaskResult{ID: t.ID, DB: t.DB, Complexity: t.Complexity})
	}
	fixed := len(tasks) > 0
	for i := range samples {
		s := &samples[i]
		j, ok := index[s.TaskID]
		if !ok {
			if fixed {
				continue
			}
			j = len(out)
			index[s.TaskID] = j
			out = append(out, TaskResult{ID: s.TaskID, DB: s.DB})
		}
		tr := &out[j]
		if tr.DB == "" {
			tr.DB = s.DB
		}
		switch {
		case !s.Outcome.Scored():
			tr.Unscored++
		case s.Outcome == sqlgym.OutcomeCorrect:
			tr.N++
			tr.C++
		default:
			tr.N++
		}
	}
	slices.SortFunc(out, func(a, b TaskResult) int { return strings.Compare(a.ID, b.ID) })
	return out
}

// Summarize computes summary.json from a run's samples: pass@1, pass@k and
// pass^k (k the run's samples per task) with 95% bootstrap intervals over
// tasks (Resamples resamples, Seed), the outcome counts, the error-kind and
// wrong-why breakdowns, the difficulty histogram and pass@1 per database
// and per complexity. tasks is optional: given, it fixes the task set (a
// task without samples then counts k missing samples) and supplies
// complexity; without it the tasks are those the samples name.
//
// Samples = the scored samples (sum of n_i); Missing = the samples short of
// k per task, whether never written or gold_error/infra_error. Metrics that
// cannot be computed (no task with k scored samples) are left out.
// Unreplicated is always set: a summary describes one run.
func Summarize(tasks []sqlgym.Task, samples []rundir.Sample, k int) rundir.Summary {
	sum, _ := summarize(Count(tasks, samples), samples, k)
	return sum
}

// summarize also returns the stats summary (nil when no task was scored),
// which says how many tasks pass@k left out.
func summarize(counts []TaskResult, samples []rundir.Sample, k int) (rundir.Summary, *stats.Summary) {
	k = max(k, 1)
	sum := rundir.Summary{K: k, Outcomes: map[string]int{}, Unreplicated: true}
	inRun := make(map[string]bool, len(counts))
	for _, t := range counts {
		inRun[t.ID] = true
	}
	for i := range samples {
		s := &samples[i]
		if !inRun[s.TaskID] {
			continue
		}
		sum.Outcomes[string(s.Outcome)]++
		if s.Failure != nil {
			sum.Failures = inc(sum.Failures, string(s.Failure.Class))
		}
		switch s.Outcome {
		case sqlgym.OutcomeError:
			sum.ErrorKinds = inc(sum.ErrorKinds, orUnknown(string(s.ErrorKind)))
		case sqlgym.OutcomeWrong:
			sum.WrongWhy = inc(sum.WrongWhy, orUnknown(s.Why))
		}
	}
	sum.Agent = agentSummary(samples, inRun)
	var scored []stats.TaskCounts
	for _, t := range counts {
		sum.Missing += max(0, k-t.N)
		if t.N > 0 {
			sum.Samples += t.N
			scored = append(scored, stats.TaskCounts{N: t.N, C: t.C})
		}
	}
	sum.Tasks = len(scored)
	sum.ByDB = groups(counts, func(t TaskResult) string { return t.DB })
	sum.ByComplexity = groups(counts, func(t TaskResult) string { return t.Complexity })
	if len(scored) == 0 {
		sum.Histogram = []int{}
		return sum, nil
	}
	st, err := stats.Summarize(scored, k, Resamples, Seed)
	if err != nil {
		// Only invalid counts fail, and Count cannot make them.
		panic(fmt.Sprintf("report: summarize: %v", err))
	}
	sum.Histogram = st.Histogram
	sum.Metrics = map[string]rundir.Metric{}
	put := func(key string, iv stats.Interval) {
		if iv.Valid() {
			sum.Metrics[key] = rundir.Metric{Value: iv.Value, CI: [2]float64{iv.Lo, iv.Hi}}
		}
	}
	put("pass@1", st.PassAt1)
	put(PassAtKey(k), st.PassAtK)
	put(PassHatKey(k), st.PassHatK)
	return sum, &st
}

// PassAtKey and PassHatKey are the summary keys of pass@k and pass^k.
func PassAtKey(k int) string  { return fmt.Sprintf("pass@%d", k) }
func PassHatKey(k int) string { return fmt.Sprintf("pass^%d", k) }

func groups(counts []TaskResult, key func(TaskResult) string) map[string]rundir.GroupStats {
	type acc struct {
		n   int
		sum float64
	}
	m := map[string]*acc{}
	var order []string
	for _, t := range counts {
		g := key(t)
		if g == "" || t.N == 0 {
			continue
		}
		a := m[g]
		if a == nil {
			a = &acc{}
			m[g] = a
			order = append(order, g)
		}
		a.n++
		a.sum += t.Rate()
	}
	if len(m) == 0 {
		return nil
	}
	out := make(map[string]rundir.GroupStats, len(m))
	for _, g := range order {
		out[g] = rundir.GroupStats{Tasks: m[g].n, Pass1: m[g].sum / float64(m[g].n)}
	}
	return out
}

func inc(m map[string]int, k string) map[string]int {
	if m == nil {
		m = map[string]int{}
	}
	m[k]++
	return m
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}
