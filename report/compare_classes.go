package report

import (
	"cmp"
	"slices"
	"strings"
)

// ClassDelta is one failure class on both sides of a comparison, over the
// paired tasks: the share of scored samples in the class (averaged over
// each side's runs), and the tasks it fixed.
type ClassDelta struct {
	Class string  `json:"class"`
	Base  float64 `json:"base"`
	Treat float64 `json:"treat"`
	// BaseTasks counts paired tasks with a sample of the class in some
	// baseline run; Fixed counts those with no sample of the class in any
	// treatment run and a higher rate there: the class the treatment
	// fixed on them.
	BaseTasks int `json:"base_tasks"`
	Fixed     int `json:"fixed"`
}

// classCountsByTask counts each task's samples per failure class in a run.
func classCountsByTask(r *Run) map[string]map[string]int {
	out := map[string]map[string]int{}
	for i := range r.Samples {
		s := &r.Samples[i]
		if s.Failure == nil {
			continue
		}
		m := out[s.TaskID]
		if m == nil {
			m = map[string]int{}
			out[s.TaskID] = m
		}
		m[string(s.Failure.Class)]++
	}
	return out
}

// classDeltas compares the failure classes of the two sides on the paired
// tasks ids, whose per-task rates are bp and tp. Classes are ordered by
// the baseline's share, largest first.
func classDeltas(base, treat []*Run, ids []string, bp, tp []float64) []ClassDelta {
	type sideCounts struct {
		byTask []map[string]map[string]int
		scored []map[string]int
	}
	count := func(runs []*Run) sideCounts {
		var sc sideCounts
		for _, r := range runs {
			sc.byTask = append(sc.byTask, classCountsByTask(r))
			n := map[string]int{}
			for _, t := range r.Tasks {
				n[t.ID] = t.N
			}
			sc.scored = append(sc.scored, n)
		}
		return sc
	}
	b, t := count(base), count(treat)
	classes := map[string]bool{}
	for _, sc := range []sideCounts{b, t} {
		for _, m := range sc.byTask {
			for _, cs := range m {
				for c := range cs {
					classes[c] = true
				}
			}
		}
	}
	if len(classes) == 0 {
		return nil
	}
	// share is the class's share of a task's scored samples, averaged
	// over the side's runs and then over the paired tasks; has says
	// whether some run of the side has the class on the task.
	share := func(sc sideCounts, c, id string) (float64, bool) {
		sum, has := 0.0, false
		for i := range sc.byTask {
			k := sc.byTask[i][id][c]
			has = has || k > 0
			if n := sc.scored[i][id]; n > 0 {
				sum += float64(k) / float64(n)
			}
		}
		return sum / float64(len(sc.byTask)), has
	}
	var out []ClassDelta
	for c := range classes {
		d := ClassDelta{Class: c}
		for i, id := range ids {
			bs, bh := share(b, c, id)
			ts, th := share(t, c, id)
			d.Base += bs
			d.Treat += ts
			if bh {
				d.BaseTasks++
				if !th && tp[i] > bp[i] {
					d.Fixed++
				}
			}
		}
		d.Base /= float64(len(ids))
		d.Treat /= float64(len(ids))
		out = append(out, d)
	}
	slices.SortFunc(out, func(x, y ClassDelta) int {
		return cmp.Or(cmp.Compare(y.Base, x.Base), cmp.Compare(y.Treat, x.Treat), strings.Compare(x.Class, y.Class))
	})
	return out
}
