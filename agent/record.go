package agent

import (
	"strings"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/model"
	"github.com/sqlgym/sqlgym/rundir"
)

// Stats count what an episode did.
type Stats struct {
	Turns       int `json:"turns"`
	Queries     int `json:"queries"`
	QueryErrors int `json:"query_errors"`
	// BrokenCalls are tool calls with invalid arguments, unknown tools,
	// calls past the per-turn bound and empty tags.
	BrokenCalls int `json:"broken_calls"`
	// NoAction counts turns with no tool call (tools) or no tag (text).
	NoAction   int  `json:"no_action"`
	Submitted  bool `json:"submitted"`
	SubmitLast bool `json:"submit_last,omitempty"`
	// CrashFixed: a query of the episode failed to run and the final
	// query ran (correct or wrong). Execution feedback fixed a crash; it
	// says nothing of whether the answer became right.
	CrashFixed       bool `json:"crash_fixed"`
	CompletionTokens int  `json:"completion_tokens"`
	// PartialCalls counts the tool calls that came one per step (Reply.Partial):
	// they cost no turn.
	PartialCalls int `json:"partial_calls,omitempty"`
}

// Extra keys of a sample's counters, read back by package report.
const (
	ExtraTurns       = "agent_turns"
	ExtraQueries     = "agent_queries"
	ExtraQueryErrors = "agent_query_errors"
	ExtraBrokenCalls = "agent_broken_calls"
	ExtraNoAction    = "agent_no_action"
	ExtraSubmitted   = "agent_submitted"
	ExtraSubmitLast  = "agent_submit_last"
	ExtraCrashFixed  = "agent_crash_fixed"
)

// Stats returns the episode's counters so far.
func (ep *Episode) Stats() Stats {
	ep.mu.Lock()
	defer ep.mu.Unlock()
	return ep.stats()
}

func (ep *Episode) stats() Stats {
	s := Stats{Turns: ep.turns, Queries: len(ep.queries), BrokenCalls: ep.broken, NoAction: ep.noAction,
		Submitted: ep.submitted, SubmitLast: ep.submitLast, CompletionTokens: ep.tokens, PartialCalls: ep.calls}
	for _, q := range ep.queries {
		if !q.Ran() {
			s.QueryErrors++
		}
	}
	if ep.result != nil && s.QueryErrors > 0 {
		o := ep.result.Outcome
		s.CrashFixed = o == sqlgym.OutcomeCorrect || o == sqlgym.OutcomeWrong
	}
	return s
}

// Extra renders the counters for rundir.Sample.Extra.
func (s Stats) Extra() map[string]any {
	return map[string]any{
		ExtraTurns: s.Turns, ExtraQueries: s.Queries, ExtraQueryErrors: s.QueryErrors,
		ExtraBrokenCalls: s.BrokenCalls, ExtraNoAction: s.NoAction, ExtraSubmitted: s.Submitted,
		ExtraSubmitLast: s.SubmitLast, ExtraCrashFixed: s.CrashFixed,
	}
}

// Trajectory is the episode after its opening messages (which the prompt
// hash identifies): each assistant message with its tool calls, and each
// observation.
func (ep *Episode) Trajectory() []rundir.Turn {
	ep.mu.Lock()
	defer ep.mu.Unlock()
	return turns(ep.msgs[ep.opening:])
}

func turns(msgs []sqlgym.Message) []rundir.Turn {
	out := make([]rundir.Turn, len(msgs))
	for i, m := range msgs {
		out[i] = rundir.Turn{Message: m}
	}
	return out
}

// Record is the finished episode as one line of a run's samples: the
// verdict, the trajectory and the counters in Extra. Completion is the
// last assistant message's text; Reasoning joins each turn's thinking.
func (ep *Episode) Record() rundir.Sample {
	ep.mu.Lock()
	defer ep.mu.Unlock()
	s := rundir.Sample{
		TaskID: ep.task.ID, Sample: ep.sample, DB: ep.task.DB, PromptHash: ep.promptHash,
		FinishReason:     ep.finalFinish,
		LatencyMS:        ep.latency.Milliseconds(),
		PromptTokens:     ep.prompt,
		CompletionTokens: ep.tokens,
		Trajectory:       turns(ep.msgs[ep.opening:]),
		Extra:            ep.stats().Extra(),
	}
	for i := len(ep.msgs) - 1; i >= ep.opening; i-- {
		if ep.msgs[i].Role == model.RoleAssistant {
			s.Completion = ep.msgs[i].Content
			break
		}
	}
	var thinking []string
	for _, r := range ep.reasoning {
		if strings.TrimSpace(r) != "" {
			thinking = append(thinking, r)
		}
	}
	s.Reasoning = strings.Join(thinking, "\n\n")
	if r := ep.result; r != nil {
		s.Judged(r.Verdict, ep.task.SQL)
	}
	return s
}
