package curate

import (
	"context"
	"encoding/json"
	"io"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/chatwire"
	"github.com/sqlgym/sqlgym/screen"
)

// BuildSFT selects, checks and writes a supervised set, then its manifest
// (beside the output, ManifestPath). It returns the manifest.
func BuildSFT(ctx context.Context, env *Env, runs []*Run, tasks []sqlgym.Task, o SFTOptions, out Output) (*Manifest, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	stats, m, err := begin("sft", env, runs, tasks, o, out)
	if err != nil {
		return nil, err
	}
	picks, counts := SelectSFT(stats, o)
	m.Selection = counts
	// Each distinct (task, target) is executed again once.
	type tt struct {
		i   int
		sql string
	}
	at := map[tt]int{}
	var checks []check
	for _, p := range picks {
		k := tt{p.Index, p.Target}
		if _, ok := at[k]; !ok {
			at[k] = len(checks)
			checks = append(checks, check{task: stats[p.Index].Task.ID, sql: p.Target, correct: true})
		}
	}
	passed, err := recheck(ctx, env, runs, tasks, checks)
	if err != nil {
		return nil, err
	}
	m.Checked = len(checks)
	var kept []Pick
	var idx []int
	for _, p := range picks {
		if !passed[at[tt{p.Index, p.Target}]] {
			continue
		}
		kept = append(kept, p)
		idx = append(idx, p.Index)
	}
	for _, ok := range passed {
		if !ok {
			m.CheckFailed++
		}
	}
	if len(kept) == 0 {
		return nil, errNothing("sft", counts)
	}
	exs, err := prompts(ctx, env, tasksOf(stats, idx))
	if err != nil {
		return nil, err
	}
	m.PromptsAsRun, m.PromptsDiffer = promptAudit(runs, exs)
	rows := make([]SFTRow, 0, len(kept))
	tools := ToolsJSON(env.Tools)
	byReason := map[string]int{}
	tasksIn := map[string]bool{}
	for _, p := range kept {
		t := &stats[p.Index]
		ex := exs[t.Task.ID]
		msgs := promptMessages(ex.Prompt)
		if o.Agent {
			msgs = append(msgs, episodeMessages(t.Episodes[p.Episode].Turns)...)
		} else {
			msgs = append(msgs, chatwire.Message{Role: "assistant", Content: Answer(p.Target)})
		}
		row := SFTRow{Messages: msgs, TaskID: t.Task.ID, DB: t.Task.DB, Reason: p.Reason, Source: string(p.Source), Class: string(p.Class)}
		if o.Agent {
			row.Tools = tools
		}
		rows = append(rows, row)
		m.BySource[string(p.Source)]++
		byReason[p.Reason]++
		if p.Class != "" {
			m.ByClass[string(p.Class)]++
		}
		if !tasksIn[t.Task.ID] && screen.IsWeak(t.Task) {
			m.Weak++
		}
		tasksIn[t.Task.ID] = true
	}
	m.ByReason, m.Rows, m.Tasks = byReason, len(rows), len(tasksIn)
	if err := WriteSFT(out.Path, out.Format, out.Replace, rows); err != nil {
		return nil, err
	}
	return m, writeManifest(out, m)
}

// refuseExisting refuses, before any work, an output or manifest that
// exists when --replace is not given.
func refuseExisting(out Output) error {
	if out.Replace {
		return nil
	}
	for _, p := range []string{out.Path, ManifestPath(out.Path)} {
		if err := writeNewCheck(p); err != nil {
			return err
		}
	}
	return nil
}

func writeManifest(out Output, m *Manifest) error {
	return writeNew(ManifestPath(out.Path), true, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(m)
	})
}
