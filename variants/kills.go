package variants

import (
	"context"
	"fmt"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/screen"
	"github.com/sqlgym/sqlgym/verify"
)

// kills judges the weak tasks' surviving mutants on the candidate alone
// and returns those it tells from their golds. Only the survivors run:
// the screen of the original (Run) already found every other mutant
// killed, and a candidate cannot undo that, since the original is judged
// too. Screening each task's every mutant again, as screen.Screen does,
// ran five to ten times the statements on every trial of the aims, the
// packing and the trim, the generator's inner loop.
//
// The verdicts are the screen's: a task whose gold fails on the candidate
// or whose database is unavailable kills nothing there; otherwise each
// survivor not judged correct is killed.
func (g *Generator) kills(ctx context.Context, url string, weak []sqlgym.Task, sopt screen.Options, survivors map[string]screen.Mutant) (map[string]bool, error) {
	eng, err := openCandidate(ctx, url)
	if err != nil {
		return nil, fmt.Errorf("open candidate: %w", err)
	}
	defer eng.Close()
	return g.killsOn(ctx, eng, url, weak, sopt, survivors)
}

// killsOn is kills on an engine the caller opened on url.
func (g *Generator) killsOn(ctx context.Context, eng sqlgym.Engine, url string, weak []sqlgym.Task, sopt screen.Options, survivors map[string]screen.Mutant) (map[string]bool, error) {
	over := &overlay{Databases: g.dbs, name: g.name, urls: []string{url}, own: eng}
	var answers []verify.Answer
	var ids []string // the mutant id of each answer, "" for a gold
	var owner []int  // the task of each answer
	tasks := make([]sqlgym.Task, len(weak))
	copy(tasks, weak)
	for i := range tasks {
		t := &tasks[i]
		var ms []string
		for _, m := range screen.WeakMutants(*t) {
			if id := mutantID(t.ID, m.SQL); survivors[id].SQL != "" {
				ms = append(ms, m.SQL)
			}
		}
		if len(ms) == 0 {
			continue
		}
		gold := t.SQL
		if sopt.Dialect != nil {
			gold = t.GoldFor(sopt.Dialect(t.DB))
		}
		answers = append(answers, verify.Answer{TaskID: t.ID, Sample: len(answers), SQL: gold, Task: t})
		ids = append(ids, "")
		owner = append(owner, i)
		for _, q := range ms {
			answers = append(answers, verify.Answer{TaskID: t.ID, Sample: len(answers), SQL: q, Task: t})
			ids = append(ids, mutantID(t.ID, q))
			owner = append(owner, i)
		}
	}
	out := map[string]bool{}
	if len(answers) == 0 {
		return out, nil
	}
	results := verify.New(over, tasks, verify.Config{Mode: g.opt.Mode, Limits: g.opt.Limits}).VerifyBatch(ctx, answers)
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("judge candidate: %w", err)
	}
	// A task's gold comes before its mutants, so its failure is known
	// when they are read; an unavailable database anywhere in a task
	// leaves the whole task undecided.
	void := map[int]bool{}
	for j, r := range results {
		switch {
		case r.Outcome == sqlgym.OutcomeInfraError:
			void[owner[j]] = true
		case ids[j] == "":
			if r.Outcome != sqlgym.OutcomeCorrect {
				void[owner[j]] = true
			}
		case r.Outcome == sqlgym.OutcomeGoldError:
			void[owner[j]] = true
		}
	}
	for j, r := range results {
		if ids[j] != "" && !void[owner[j]] && r.Outcome != sqlgym.OutcomeCorrect {
			out[ids[j]] = true
		}
	}
	return out, nil
}
