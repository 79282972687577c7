package report

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/internal/redact"
	"github.com/sqlgym/sqlgym/rundir"
	"github.com/sqlgym/sqlgym/stats"
)

// Run is a run folder, loaded and counted.
type Run struct {
	Dir      string
	Manifest rundir.Manifest
	Samples  []rundir.Sample
	// Stored is summary.json as the run wrote it; nil when there is none
	// (a run still going, or killed).
	Stored *rundir.Summary
	// Summary is recomputed from the samples with Summarize.
	Summary rundir.Summary
	// Stats is the stats summary behind Summary; nil when no task was
	// scored.
	Stats *stats.Summary
	// Tasks are the per-task counts, sorted by id.
	Tasks []TaskResult
	// AbsentTasks counts tasks the manifest promises (TaskCount) that no
	// sample names; their samples are in Summary.Missing.
	AbsentTasks int
	// TasksFileRead says whether the manifest's tasks file could be read;
	// without it there is no complexity table, question or task-file gold.
	TasksFileRead bool
	// Failures are the wrong, error, timeout and too_large samples, by task
	// id then sample, one entry per task and distinct SQL (Samples lists
	// the samples that gave it).
	Failures []Failure
	// Classes are the failure classes with their counts and examples,
	// most frequent first.
	Classes []ClassCount
	// Hint is set for a run that asked a failed run's tasks again with a
	// hint (eval --retry-failed --hint): how many it recovered.
	Hint *HintSummary
	// Notes are things a reader should know: a stored summary that
	// disagrees with the samples, an unreadable tasks file.
	Notes []string
}

// Failure is one failed sample, with what is needed to read it.
type Failure struct {
	TaskID  string         `json:"task_id"`
	Sample  int            `json:"sample"`
	DB      string         `json:"db,omitempty"`
	Outcome sqlgym.Outcome `json:"outcome"`
	Kind    string         `json:"kind,omitempty"` // error_kind for errors, why for wrong answers
	// Class and ClassDetail are the sample's failure class (package
	// failure), when the run recorded one.
	Class       string `json:"class,omitempty"`
	ClassDetail string `json:"class_detail,omitempty"`
	// Variant is the variant database that decided the sample, when one
	// did (its previews are that database's rows).
	Variant string `json:"variant,omitempty"`
	// Samples are every sample of the task that gave this SQL (by its
	// normalised text), Sample the first of them.
	Samples  []int  `json:"samples"`
	Detail   string `json:"detail,omitempty"`
	Question string `json:"question,omitempty"`
	SQL      string `json:"sql"`
	Gold     string `json:"gold,omitempty"`
	// PredPreview and GoldPreview are the first rows each query returned,
	// when the run recorded them.
	PredPreview *sqlgym.Preview `json:"pred_preview,omitempty"`
	GoldPreview *sqlgym.Preview `json:"gold_preview,omitempty"`
}

// Name is the run folder's base name, how reports refer to the run.
func (r *Run) Name() string { return filepath.Base(filepath.Clean(r.Dir)) }

// K is the run's samples per task (at least 1).
func (r *Run) K() int { return max(r.Summary.K, 1) }

// Rates returns each scored task's c_i/n_i, in task-id order.
func (r *Run) Rates() []float64 {
	var out []float64
	for _, t := range r.Tasks {
		if t.N > 0 {
			out = append(out, t.Rate())
		}
	}
	return out
}

// Load reads the run folder dir: manifest.json (required), samples.jsonl,
// summary.json when present, and the tasks file the manifest names when it
// still exists. loadTasks reads that file (the command passes
// shopdb.LoadTasks, which also knows the built-in set by name, so report
// need not depend on the shop database); nil reads it as a plain file.
func Load(dir string, loadTasks func(path string) ([]sqlgym.Task, error)) (*Run, error) {
	if loadTasks == nil {
		loadTasks = sqlgym.ReadTasks
	}
	m, err := rundir.ReadManifest(dir)
	if err != nil {
		return nil, err
	}
	samples, err := rundir.ReadSamples(dir)
	if err != nil {
		return nil, err
	}
	// Runs written before manifests were redacted may hold a password in
	// their base URL: a report never shows it.
	m.BaseURL = redact.URL(m.BaseURL)
	m.Decoding.Extra = redact.Map(m.Decoding.Extra)
	r := &Run{Dir: dir, Manifest: *m, Samples: samples}
	if s, err := rundir.ReadSummary(dir); err == nil {
		r.Stored = s
	} else if !errors.Is(err, os.ErrNotExist) {
		r.Notes = append(r.Notes, fmt.Sprintf("summary.json unreadable (%v); numbers recomputed from samples", err))
	}
	info := map[string]sqlgym.Task{}
	if m.TasksFile != "" {
		if tasks, err := loadTasks(m.TasksFile); err == nil {
			r.TasksFileRead = true
			for _, t := range tasks {
				info[t.ID] = t
			}
		} else {
			r.Notes = append(r.Notes, fmt.Sprintf("tasks file %s not readable, so no complexity table: %v", m.TasksFile, err))
		}
	}
	// The run's tasks are those its samples name; the tasks file (which
	// may hold other splits) only adds what it knows about them.
	var known []sqlgym.Task
	seen := map[string]bool{}
	for _, s := range samples {
		if seen[s.TaskID] {
			continue
		}
		seen[s.TaskID] = true
		if t, ok := info[s.TaskID]; ok {
			known = append(known, t)
		} else {
			known = append(known, sqlgym.Task{ID: s.TaskID, DB: s.DB})
		}
	}
	r.Tasks = Count(known, samples)
	r.Summary, r.Stats = summarize(r.Tasks, samples, m.Decoding.K)
	if m.TaskCount > len(r.Tasks) {
		r.AbsentTasks = m.TaskCount - len(r.Tasks)
		r.Summary.Missing += r.AbsentTasks * r.K()
	}
	r.Failures = failures(samples, info)
	r.Classes = classCounts(samples, r.Failures)
	r.Hint = hintSummary(*m, r.Tasks)
	if r.Stored != nil && !sameHeadline(*r.Stored, r.Summary) {
		r.Notes = append(r.Notes, "summary.json disagrees with samples.jsonl (a run still going, or resumed); this report recomputes from the samples")
	}
	return r, nil
}

func sameHeadline(a, b rundir.Summary) bool {
	if a.Tasks != b.Tasks || a.K != b.K {
		return false
	}
	for k, m := range b.Metrics {
		o, ok := a.Metrics[k]
		if !ok || abs(o.Value-m.Value) > 1e-9 {
			return false
		}
	}
	return true
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// failing are the outcomes shown as failures: answers that ran (or tried
// to) and were not right. no_query and truncated carry no SQL to read.
var failing = map[sqlgym.Outcome]bool{
	sqlgym.OutcomeWrong: true, sqlgym.OutcomeError: true,
	sqlgym.OutcomeTimeout: true, sqlgym.OutcomeTooLarge: true,
}

func failures(samples []rundir.Sample, info map[string]sqlgym.Task) []Failure {
	var out []Failure
	for i := range samples {
		s := &samples[i]
		if !failing[s.Outcome] {
			continue
		}
		f := Failure{TaskID: s.TaskID, Sample: s.Sample, DB: s.DB, Outcome: s.Outcome, Detail: s.Detail,
			SQL: s.SQL, Gold: s.Gold, PredPreview: s.PredPreview, GoldPreview: s.GoldPreview}
		if s.Failure != nil {
			f.Class, f.ClassDetail = string(s.Failure.Class), s.Failure.Detail
		}
		if s.Variant != "" {
			f.Variant = s.Variant
		}
		if s.Outcome == sqlgym.OutcomeWrong {
			f.Kind = s.Why
		} else {
			f.Kind = string(s.ErrorKind)
		}
		if t, ok := info[s.TaskID]; ok {
			f.Question = t.Question
			if f.Gold == "" {
				f.Gold = t.SQL
			}
			if f.DB == "" {
				f.DB = t.DB
			}
		}
		out = append(out, f)
	}
	slices.SortStableFunc(out, func(a, b Failure) int {
		if c := strings.Compare(a.TaskID, b.TaskID); c != 0 {
			return c
		}
		return a.Sample - b.Sample
	})
	return distinctFailures(out)
}
