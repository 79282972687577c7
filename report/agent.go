package report

import (
	"fmt"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/rundir"
)

// Keys of summary.json's "agent" object. Counts are numbers of episodes
// (samples); the _mean keys average over episodes.
const (
	AgentEpisodes      = "episodes"
	AgentTurnsMean     = "turns_mean"
	AgentQueriesMean   = "queries_mean"
	AgentQueryErrored  = "episodes_with_query_error"
	AgentCrashFixed    = "crash_fixed"
	AgentSubmitted     = "submitted"
	AgentSubmitLast    = "submit_last"
	AgentBrokenCalls   = "broken_calls"
	AgentDoesNotRun    = "failures_does_not_run"
	AgentRunsWrongRows = "failures_runs_wrong_rows"
)

// The counters package agent writes into a sample's Extra. They are read
// by name here so report does not depend on the loop's package.
const (
	extraTurns       = "agent_turns"
	extraQueries     = "agent_queries"
	extraQueryErrors = "agent_query_errors"
	extraBrokenCalls = "agent_broken_calls"
	extraSubmitted   = "agent_submitted"
	extraSubmitLast  = "agent_submit_last"
	extraCrashFixed  = "agent_crash_fixed"
)

// agentSummary aggregates the agent counters of the run's samples; nil
// when no sample is an episode. The failures split the scored answers
// that were not right into those that do not run (error, timeout,
// too_large) and those that run but return the wrong rows (wrong): the
// split that says whether execution feedback fixes crashes or
// misunderstandings.
func agentSummary(samples []rundir.Sample, inRun map[string]bool) map[string]float64 {
	out := map[string]float64{}
	n, turns, queries := 0, 0.0, 0.0
	for i := range samples {
		s := &samples[i]
		if !inRun[s.TaskID] || s.Extra == nil || s.Extra[extraTurns] == nil {
			continue
		}
		n++
		turns += number(s.Extra[extraTurns])
		queries += number(s.Extra[extraQueries])
		out[AgentBrokenCalls] += number(s.Extra[extraBrokenCalls])
		if number(s.Extra[extraQueryErrors]) > 0 {
			out[AgentQueryErrored]++
		}
		for key, extra := range map[string]string{AgentCrashFixed: extraCrashFixed, AgentSubmitted: extraSubmitted, AgentSubmitLast: extraSubmitLast} {
			if s.Extra[extra] == true {
				out[key]++
			}
		}
		switch s.Outcome {
		case sqlgym.OutcomeError, sqlgym.OutcomeTimeout, sqlgym.OutcomeTooLarge:
			out[AgentDoesNotRun]++
		case sqlgym.OutcomeWrong:
			out[AgentRunsWrongRows]++
		}
	}
	if n == 0 {
		return nil
	}
	out[AgentEpisodes] = float64(n)
	out[AgentTurnsMean] = turns / float64(n)
	out[AgentQueriesMean] = queries / float64(n)
	for _, k := range []string{AgentQueryErrored, AgentCrashFixed, AgentSubmitted, AgentSubmitLast, AgentBrokenCalls, AgentDoesNotRun, AgentRunsWrongRows} {
		out[k] += 0 // every key present, zeros included
	}
	return out
}

// number reads a counter written as an int (in memory) or read back from
// JSON (a float64).
func number(v any) float64 {
	switch x := v.(type) {
	case int:
		return float64(x)
	case float64:
		return x
	}
	return 0
}

// agentLine is the report's one-line account of the episodes.
func agentLine(a map[string]float64) string {
	if a == nil {
		return ""
	}
	return fmt.Sprintf("%d episodes, %.2f turns and %.2f queries each on average; %d submitted (%d more by --submit-last); "+
		"%d with a query that failed, %d crashes fixed by revision; %d broken tool calls; failures: %d do not run, %d run with wrong rows",
		int(a[AgentEpisodes]), a[AgentTurnsMean], a[AgentQueriesMean], int(a[AgentSubmitted]), int(a[AgentSubmitLast]),
		int(a[AgentQueryErrored]), int(a[AgentCrashFixed]), int(a[AgentBrokenCalls]), int(a[AgentDoesNotRun]), int(a[AgentRunsWrongRows]))
}
