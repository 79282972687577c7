package root

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/rundir"

	"github.com/sqlgym/sqlgym/internal/cmd/cmdkit"
)

// `sqlgym demo --agent` plays the held-out shop tasks as episodes offline
// and reports the agent's counters.
func TestDemoAgent(t *testing.T) {
	t.Setenv("SQLGYM_CACHE", t.TempDir())
	out := filepath.Join(t.TempDir(), "run")
	code, stdout, errOut := run(t, "demo", "--agent", "--protocol", "text", "--k", "1", "--out", out)
	if code != cmdkit.ExitOK {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, errOut)
	}
	m, err := rundir.ReadManifest(out)
	if err != nil {
		t.Fatal(err)
	}
	if m.Agent == nil || m.Agent.Protocol != "text" || m.Agent.MaxTurns != 4 {
		t.Errorf("manifest agent = %+v", m.Agent)
	}
	samples, err := rundir.ReadSamples(out)
	if err != nil {
		t.Fatal(err)
	}
	correct := 0
	for _, s := range samples {
		if len(s.Trajectory) < 2 || !strings.Contains(s.Trajectory[len(s.Trajectory)-1].Content+s.Completion, "<solution>") {
			t.Fatalf("%s: no episode ending in a submission: %+v", s.TaskID, s.Trajectory)
		}
		if s.Outcome == sqlgym.OutcomeCorrect {
			correct++
		}
	}
	if correct == 0 {
		t.Error("the baseline agent got nothing right")
	}
	for _, want := range []string{"Agent mode: each answer is an episode of up to 4 turns (text protocol)", "agent  ", "crashes fixed by revision", "run with wrong rows"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
}

func TestAgentFlagsNeedAgent(t *testing.T) {
	code, _, errOut := run(t, "eval", "--tasks", "x.jsonl", "--out", t.TempDir(), "--max-turns", "3")
	if code != cmdkit.ExitUsage || !strings.Contains(errOut, "--max-turns needs --agent") {
		t.Errorf("exit %d: %s", code, errOut)
	}
	code, _, errOut = run(t, "demo", "--agent", "--protocol", "xml")
	if code != cmdkit.ExitUsage || !strings.Contains(errOut, `--protocol "xml"`) {
		t.Errorf("exit %d: %s", code, errOut)
	}
}
