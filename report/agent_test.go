package report

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/rundir"
)

func TestAgentSummary(t *testing.T) {
	ep := func(id string, o sqlgym.Outcome, turns, queries, errs int, crashFixed, submitted bool) rundir.Sample {
		return rundir.Sample{TaskID: id, Extra: map[string]any{
			"agent_turns": turns, "agent_queries": queries, "agent_query_errors": errs, "agent_broken_calls": 1,
			"agent_submitted": submitted, "agent_submit_last": false, "agent_crash_fixed": crashFixed}, Verdict: sqlgym.Verdict{Outcome: o}}
	}
	samples := []rundir.Sample{
		ep("a", sqlgym.OutcomeCorrect, 4, 2, 1, true, true),
		ep("b", sqlgym.OutcomeWrong, 2, 1, 0, false, true),
		ep("c", sqlgym.OutcomeError, 3, 3, 3, false, true),
		ep("d", sqlgym.OutcomeNoQuery, 4, 4, 0, false, false),
		{TaskID: "e", Verdict: sqlgym.Verdict{Outcome: sqlgym.OutcomeTimeout}}, // not an episode
	}
	// Counters read back from samples.jsonl are float64s.
	b, _ := json.Marshal(samples[1])
	if err := json.Unmarshal(b, &samples[1]); err != nil {
		t.Fatal(err)
	}
	sum := Summarize(nil, samples, 1)
	want := map[string]float64{
		AgentEpisodes: 4, AgentTurnsMean: 13.0 / 4, AgentQueriesMean: 10.0 / 4, AgentQueryErrored: 2,
		AgentCrashFixed: 1, AgentSubmitted: 3, AgentSubmitLast: 0, AgentBrokenCalls: 4,
		AgentDoesNotRun: 1, AgentRunsWrongRows: 1,
	}
	for k, v := range want {
		if sum.Agent[k] != v {
			t.Errorf("%s = %v, want %v", k, sum.Agent[k], v)
		}
	}
	if len(sum.Agent) != len(want) {
		t.Errorf("agent summary = %v", sum.Agent)
	}
	if s := Summarize(nil, samples[4:], 1); s.Agent != nil {
		t.Errorf("a single-turn run has no agent summary: %v", s.Agent)
	}
	line := agentLine(sum.Agent)
	for _, part := range []string{"4 episodes", "3.25 turns", "1 crashes fixed by revision", "1 do not run, 1 run with wrong rows"} {
		if !strings.Contains(line, part) {
			t.Errorf("agent line %q lacks %q", line, part)
		}
	}
}
