package dataset

import (
	"encoding/json"
	"fmt"
	"sort"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/rundir"
)

// BandStats counts a run's tasks by how often the model got them right.
type BandStats struct {
	Tasks        int `json:"tasks"`
	Band         int `json:"band"`
	AlwaysRight  int `json:"always_right"`
	AlwaysWrong  int `json:"always_wrong"`
	Unscored     int `json:"unscored"`
	SamplesTotal int `json:"samples"`
}

// Band returns the tasks of a run that were answered correctly in some
// samples and not in all (0 < c < n), each with a "pass_rate" field c/n,
// in the order of tasks. Samples whose outcome is not scored (gold_error,
// infra_error) count for neither; a truncated reply counts as not right.
// Every sample must name a task in tasks.
func Band(tasks []sqlgym.Task, samples []rundir.Sample) ([]sqlgym.Task, BandStats, error) {
	type count struct{ c, n int }
	counts := map[string]*count{}
	byID := make(map[string]bool, len(tasks))
	for _, t := range tasks {
		byID[t.ID] = true
	}
	for _, s := range samples {
		if !byID[s.TaskID] {
			return nil, BandStats{}, sqlgym.Userf("give band the run's own task file (its manifest names it)",
				"sample of task %q: no such task in the task file", s.TaskID)
		}
		k := counts[s.TaskID]
		if k == nil {
			k = &count{}
			counts[s.TaskID] = k
		}
		if !s.Outcome.Scored() {
			continue
		}
		k.n++
		if s.Outcome == sqlgym.OutcomeCorrect {
			k.c++
		}
	}
	st := BandStats{Tasks: len(counts), SamplesTotal: len(samples)}
	var band []sqlgym.Task
	for _, t := range tasks {
		k := counts[t.ID]
		switch {
		case k == nil:
			continue // not in the run
		case k.n == 0:
			st.Unscored++
		case k.c == 0:
			st.AlwaysWrong++
		case k.c == k.n:
			st.AlwaysRight++
		default:
			st.Band++
			bt := t
			bt.Extra = make(map[string]json.RawMessage, len(t.Extra)+1)
			for key, v := range t.Extra {
				bt.Extra[key] = v
			}
			rate, _ := json.Marshal(float64(k.c) / float64(k.n))
			bt.Extra["pass_rate"] = rate
			band = append(band, bt)
		}
	}
	return band, st, nil
}

// PassRate reads the "pass_rate" field a band file's task carries.
func PassRate(t *sqlgym.Task) (float64, bool) {
	raw, ok := t.Extra["pass_rate"]
	if !ok {
		return 0, false
	}
	var f float64
	if err := json.Unmarshal(raw, &f); err != nil {
		return 0, false
	}
	return f, true
}

// Select returns the tasks of all whose ids are in ids, in the order of
// ids, with the fields of all but any extra fields the selection carries
// (a band file's pass_rate). An id missing from all is an error.
func Select(all []sqlgym.Task, ids []sqlgym.Task) ([]sqlgym.Task, error) {
	byID := make(map[string]*sqlgym.Task, len(all))
	for i := range all {
		byID[all[i].ID] = &all[i]
	}
	out := make([]sqlgym.Task, 0, len(ids))
	var missing []string
	for _, sel := range ids {
		t, ok := byID[sel.ID]
		if !ok {
			missing = append(missing, sel.ID)
			continue
		}
		c := *t
		if len(sel.Extra) > 0 {
			c.Extra = make(map[string]json.RawMessage, len(t.Extra)+len(sel.Extra))
			for k, v := range t.Extra {
				c.Extra[k] = v
			}
			for k, v := range sel.Extra {
				c.Extra[k] = v
			}
		}
		out = append(out, c)
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		return nil, sqlgym.Userf("give --tasks the task file the band was made from",
			"%d band tasks are not in the task file (first: %s)", len(missing), missing[0])
	}
	return out, nil
}

// RunTasksFile is the task file a run was made with, from its manifest.
func RunTasksFile(dir string) (string, error) {
	m, err := rundir.ReadManifest(dir)
	if err != nil {
		return "", err
	}
	if m.TasksFile == "" {
		return "", fmt.Errorf("%s: the manifest names no task file", dir)
	}
	return m.TasksFile, nil
}
