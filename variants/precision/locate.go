package precision

import (
	"context"
	"fmt"
	"path"
	"strings"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/sqltext"
	"github.com/sqlgym/sqlgym/verify/compare"
)

// Located is a flip with what a judge reads first: the question, the gold,
// the variant that told the answer from the gold, and both results there.
type Located struct {
	Flip
	Question string `json:"question"`
	Gold     string `json:"gold"`
	// Variant is the base name of the first of the task's db_variants on
	// which the answer does not match (empty when none does: the flip came
	// from a limit or an error the verify run met and this run did not).
	Variant    string     `json:"variant,omitempty"`
	Why        string     `json:"why,omitempty"`
	GoldRows   [][]string `json:"gold_rows,omitempty"`
	AnswerRows [][]string `json:"answer_rows,omitempty"`
	// Error is the answer's own error on that variant, if it failed.
	Error string `json:"error,omitempty"`
}

// Opener opens a database URL (engine.Open does).
type Opener func(ctx context.Context, url string) (sqlgym.Engine, error)

// previewRows is how many rows of each result a Located keeps: enough to
// see why they differ, little enough to read a hundred of them.
const previewRows = 8

// Locate runs each flip's answer and its task's gold on the task's
// db_variants, in order, the way `verify --mode testsuite --keep-distinct`
// compares them, and reports the first variant where they differ. It
// opens each database once.
func Locate(ctx context.Context, flips []Flip, tasks map[string]sqlgym.Task, open Opener) ([]Located, error) {
	engines := map[string]sqlgym.Engine{}
	defer func() {
		for _, e := range engines {
			e.Close()
		}
	}()
	engineFor := func(url string) (sqlgym.Engine, error) {
		if e, ok := engines[url]; ok {
			return e, nil
		}
		e, err := open(ctx, url)
		if err != nil {
			return nil, fmt.Errorf("open %s: %w", url, err)
		}
		engines[url] = e
		return e, nil
	}
	var out []Located
	for _, f := range flips {
		t, ok := tasks[f.TaskID]
		if !ok {
			return nil, fmt.Errorf("flip of task %s: no such task\nhint: pass the variants' tasks.jsonl (it holds db_variants)", f.TaskID)
		}
		if len(t.DBVariants) == 0 {
			return nil, fmt.Errorf("task %s has no db_variants\nhint: pass the tasks.jsonl that sqlgym variants wrote", f.TaskID)
		}
		l, err := locateOne(ctx, f, t, engineFor)
		if err != nil {
			return nil, err
		}
		out = append(out, l)
	}
	return out, nil
}

func locateOne(ctx context.Context, f Flip, t sqlgym.Task, engineFor func(string) (sqlgym.Engine, error)) (Located, error) {
	gold := sqltext.TestSuiteGold(t.SQL, true)
	pred := sqltext.TestSuitePred(f.SQL, true)
	opt := compare.Options{GoldOrdered: sqltext.ContainsOrderByQuirk(gold)}
	l := Located{Flip: f, Question: t.Question, Gold: t.SQL}
	lim := sqlgym.Limits{}.WithDefaults()
	for _, u := range t.DBVariants {
		e, err := engineFor(u)
		if err != nil {
			return l, err
		}
		g, err := e.Query(ctx, gold, lim.GoldLimits())
		if err != nil {
			continue // the verifier skips a variant its gold fails on
		}
		p, perr := e.Query(ctx, pred, lim)
		if perr != nil {
			l.Variant, l.Error = variantName(u), perr.Error()
			l.GoldRows = preview(g)
			return l, nil
		}
		if v := compare.Compare(compare.TestSuite, p, g, opt); !v.Match {
			l.Variant, l.Why = variantName(u), v.Why
			l.GoldRows, l.AnswerRows = preview(g), preview(p)
			return l, nil
		}
	}
	return l, nil
}

// variantName is a variant's file or schema name without its folder, so
// a judgment names the variant wherever the folder was moved.
func variantName(url string) string {
	if i := strings.Index(url, "schema="); i >= 0 {
		return url[i+len("schema="):]
	}
	return strings.TrimSuffix(strings.TrimSuffix(path.Base(url), ".sqlite"), ".duckdb")
}

func preview(rs *sqlgym.ResultSet) [][]string {
	var out [][]string
	for i, r := range rs.Rows {
		if i == previewRows {
			break
		}
		row := make([]string, len(r))
		for j, v := range r {
			row[j] = v.String()
		}
		out = append(out, row)
	}
	return out
}
