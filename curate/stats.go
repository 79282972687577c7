package curate

import (
	"cmp"
	"slices"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/failure"
	"github.com/sqlgym/sqlgym/rundir"
	"github.com/sqlgym/sqlgym/sqltext"
)

// TaskStats is what the selection rules know of one task over the runs.
type TaskStats struct {
	Task sqlgym.Task
	// N and C are the scored and the correct samples of the runs that
	// measure the model (hint runs are left out: a hint makes a task
	// easier than the model finds it).
	N, C int
	// Classes counts the measured samples' failure classes.
	Classes map[failure.Class]int
	// Correct and Wrong are the SQL texts of the correct and of the scored,
	// not correct samples with SQL, of every run (hint runs included, whose
	// prompts are rendered again without the hint).
	Correct []string
	Wrong   []string
	// WrongClasses holds each Wrong text's failure class ("" when the run
	// recorded none).
	WrongClasses []failure.Class
	// Episodes are the correct agent episodes.
	Episodes []Episode
}

// Episode is one correct agent episode: its submitted SQL and its turns.
type Episode struct {
	SQL   string
	Turns []rundir.Turn
}

// Rate is C/N, 0 for a task with no measured sample.
func (t *TaskStats) Rate() float64 {
	if t.N == 0 {
		return 0
	}
	return float64(t.C) / float64(t.N)
}

// TopClass is the task's most frequent failure class; ties go to the
// class package failure lists first. "" when no sample has one.
func (t *TaskStats) TopClass() failure.Class {
	var best failure.Class
	for _, c := range failure.Classes {
		if n := t.Classes[c]; n > 0 && n > t.Classes[best] {
			best = c
		}
	}
	return best
}

// RunSamples are one run's samples and whether its prompts carried a hint.
type RunSamples struct {
	Samples []rundir.Sample
	Hinted  bool
}

// Collect builds each task's statistics from the runs, for the tasks
// given (samples of other tasks are ignored), in the tasks' order.
func Collect(tasks []sqlgym.Task, runs []RunSamples) []TaskStats {
	idx := make(map[string]int, len(tasks))
	out := make([]TaskStats, len(tasks))
	for i, t := range tasks {
		idx[t.ID] = i
		out[i] = TaskStats{Task: t, Classes: map[failure.Class]int{}}
	}
	for _, r := range runs {
		for i := range r.Samples {
			s := &r.Samples[i]
			j, ok := idx[s.TaskID]
			if !ok || !s.Outcome.Scored() {
				continue
			}
			ts := &out[j]
			ok = s.Outcome == sqlgym.OutcomeCorrect
			if !r.Hinted {
				ts.N++
				if ok {
					ts.C++
				} else if s.Failure != nil {
					ts.Classes[s.Failure.Class]++
				}
			}
			switch {
			case ok && s.SQL != "":
				ts.Correct = append(ts.Correct, s.SQL)
				if len(s.Trajectory) > 0 {
					ts.Episodes = append(ts.Episodes, Episode{SQL: s.SQL, Turns: s.Trajectory})
				}
			case !ok && s.SQL != "":
				ts.Wrong = append(ts.Wrong, s.SQL)
				var c failure.Class
				if s.Failure != nil {
					c = s.Failure.Class
				}
				ts.WrongClasses = append(ts.WrongClasses, c)
			}
		}
	}
	return out
}

// NormalizeSQL is how answers are told apart: case, white space, comments
// and a trailing semicolon do not make two answers differ.
func NormalizeSQL(sql string) string { return sqltext.Normalize(sql) }

// Mode is the most frequent text by NormalizeSQL, spelled as it was
// first seen, and how often it occurs; ties go to the first seen, so the
// same samples always give the same answer. Empty texts are skipped.
func Mode(sqls []string) (string, int) {
	type entry struct {
		spelling string
		n, first int
	}
	m := map[string]*entry{}
	for i, s := range sqls {
		k := NormalizeSQL(s)
		if k == "" {
			continue
		}
		e := m[k]
		if e == nil {
			e = &entry{spelling: s, first: i}
			m[k] = e
		}
		e.n++
	}
	if len(m) == 0 {
		return "", 0
	}
	es := make([]*entry, 0, len(m))
	for _, e := range m {
		es = append(es, e)
	}
	slices.SortFunc(es, func(a, b *entry) int { return cmp.Or(cmp.Compare(b.n, a.n), cmp.Compare(a.first, b.first)) })
	return es[0].spelling, es[0].n
}
