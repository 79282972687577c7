package curate

import (
	"context"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/chatwire"
	"github.com/sqlgym/sqlgym/screen"
)

// BuildDPO mines, checks and writes preference pairs, then the manifest
// with the style audit. Both sides are executed again: the chosen must
// still be correct, the rejected still not.
func BuildDPO(ctx context.Context, env *Env, runs []*Run, tasks []sqlgym.Task, o DPOOptions, out Output) (*Manifest, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	stats, m, err := begin("dpo", env, runs, tasks, o, out)
	if err != nil {
		return nil, err
	}
	pairs, counts := MinePairs(stats, o)
	m.Selection = counts
	checks := make([]check, 0, 2*len(pairs))
	for _, p := range pairs {
		id := stats[p.Index].Task.ID
		checks = append(checks, check{task: id, sql: p.Chosen, correct: true}, check{task: id, sql: p.Rejected, correct: false})
	}
	passed, err := recheck(ctx, env, runs, tasks, checks)
	if err != nil {
		return nil, err
	}
	m.Checked = len(checks)
	var kept []Pair
	var idx []int
	for i, p := range pairs {
		if passed[2*i] && passed[2*i+1] {
			kept = append(kept, p)
			idx = append(idx, p.Index)
		} else {
			m.CheckFailed++
		}
	}
	if len(kept) == 0 {
		return nil, errNothing("dpo", counts)
	}
	exs, err := prompts(ctx, env, tasksOf(stats, idx))
	if err != nil {
		return nil, err
	}
	m.PromptsAsRun, m.PromptsDiffer = promptAudit(runs, exs)
	rows := make([]DPORow, 0, len(kept))
	for _, p := range kept {
		t := &stats[p.Index]
		rows = append(rows, DPORow{
			Prompt:   promptMessages(exs[t.Task.ID].Prompt),
			Chosen:   []chatwire.Message{{Role: "assistant", Content: Answer(p.Chosen)}},
			Rejected: []chatwire.Message{{Role: "assistant", Content: Answer(p.Rejected)}},
			TaskID:   t.Task.ID, DB: t.Task.DB, Source: p.Source, RejectedClass: string(p.RejectedClass),
		})
		m.BySource[p.Source]++
		if screen.IsWeak(t.Task) {
			m.Weak++ // one row per task
		}
		if p.RejectedClass != "" {
			m.ByClass[string(p.RejectedClass)]++
		}
	}
	m.Rows, m.Tasks = len(rows), len(rows)
	audit := Audit(kept)
	m.Style = &audit
	if err := WriteDPO(out.Path, out.Format, out.Replace, rows); err != nil {
		return nil, err
	}
	return m, writeManifest(out, m)
}
