package eval_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/agent"
	"github.com/sqlgym/sqlgym/baseline"
	"github.com/sqlgym/sqlgym/catalog"
	"github.com/sqlgym/sqlgym/eval"
	"github.com/sqlgym/sqlgym/rundir"
	"github.com/sqlgym/sqlgym/shopdb"
)

// agentConfig evaluates the baseline agent on the first n held-out shop
// tasks.
func agentConfig(t *testing.T, out string, n int, ac agent.Config) eval.Config {
	t.Helper()
	all, err := shopdb.Tasks()
	if err != nil {
		t.Fatal(err)
	}
	var hold []sqlgym.Task
	for _, tk := range all {
		if tk.Split == sqlgym.SplitHoldout && len(hold) < n {
			hold = append(hold, tk)
		}
	}
	cat, err := catalog.New(catalog.Config{CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cat.Close() })
	pol, err := baseline.New(all, baseline.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return eval.Config{
		Out: out, Tasks: hold, TasksHash: "h", Split: "holdout", DBs: cat,
		Agent: &ac, Actor: &agent.BaselineActor{Policy: pol},
		PolicyKind: "baseline", Model: baseline.PolicyName,
		Decoding: rundir.Decoding{K: 2}, Version: "test", Concurrency: 4,
	}
}

func TestEvalAgentRunAndResume(t *testing.T) {
	out := filepath.Join(t.TempDir(), "run")
	cfg := agentConfig(t, out, 12, agent.Config{Protocol: agent.ProtocolText, MaxTurns: 4})
	res, err := eval.Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.Drawn != 24 || res.Missing != 0 {
		t.Fatalf("drawn %d, missing %d; want 24 and 0", res.Drawn, res.Missing)
	}
	m, err := rundir.ReadManifest(out)
	if err != nil {
		t.Fatal(err)
	}
	if m.Agent == nil || m.Agent.MaxTurns != 4 || m.Agent.Protocol != "text" {
		t.Errorf("manifest agent = %+v", m.Agent)
	}
	samples, err := rundir.ReadSamples(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range samples {
		if len(s.Trajectory) == 0 || s.Extra[agent.ExtraTurns] == nil || s.PromptHash == "" {
			t.Fatalf("sample without an episode: %+v", s)
		}
		if s.Outcome == sqlgym.OutcomeNoQuery {
			t.Errorf("%s: the baseline agent always submits", s.TaskID)
		}
	}
	if res.Summary.Agent["turns_mean"] < 2 {
		t.Errorf("summary agent counters = %v", res.Summary.Agent)
	}

	// The same configuration continues (nothing left to draw); another
	// turn limit is another configuration.
	res, err = eval.Run(context.Background(), cfg)
	if err != nil || res.Drawn != 0 || res.Present != 24 {
		t.Fatalf("resume: drawn %d present %d err %v", res.Drawn, res.Present, err)
	}
	other := agentConfig(t, out, 12, agent.Config{Protocol: agent.ProtocolText, MaxTurns: 3})
	_, err = eval.Run(context.Background(), other)
	var ue *sqlgym.UserError
	if !errors.As(err, &ue) {
		t.Fatalf("a run with another --max-turns was not refused: %v", err)
	}
}
