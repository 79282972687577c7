package rundir

import (
	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/internal/jsonl"
)

// Sample is one line of samples.jsonl: one sampled answer to one task and
// its verdict.
type Sample struct {
	TaskID       string `json:"task_id"`
	Sample       int    `json:"sample"`
	DB           string `json:"db,omitempty"`
	PromptHash   string `json:"prompt_hash"`
	Completion   string `json:"completion"`
	Reasoning    string `json:"reasoning,omitempty"`
	FinishReason string `json:"finish_reason,omitempty"`
	// Verdict is the sample's judgement; a run file leaves out its
	// score, modes and components, and its previews and
	// gold on correct answers (Judged).
	sqlgym.Verdict
	// LatencyMS is the model's time to answer.
	LatencyMS        int64 `json:"latency_ms"`
	PromptTokens     int   `json:"prompt_tokens,omitempty"`
	CompletionTokens int   `json:"completion_tokens,omitempty"`
	// Trajectory holds an agent episode's messages, tool calls and
	// observations; empty for single-turn samples.
	Trajectory []Turn `json:"trajectory,omitempty"`
	// Extra is free-form per-sample data a policy wants recorded
	// (retrieved neighbour for the baseline, agent counters, ...).
	Extra map[string]any `json:"extra,omitempty"`
}

// Key identifies a sample within a run.
type Key struct {
	TaskID string
	Sample int
}

// Key returns the sample's key.
func (s *Sample) Key() Key { return Key{s.TaskID, s.Sample} }

// Turn is one message of an agent episode, written as trajectories in
// run files always have been (MarshalJSON).
type Turn struct {
	sqlgym.Message
}

// turnJSON is a Turn in samples.jsonl: unlike a prompt's messages, an
// empty content and a tool call's empty id are left out.
type turnJSON struct {
	Role       string         `json:"role"`
	Content    string         `json:"content,omitempty"`
	ToolCalls  []toolCallJSON `json:"tool_calls,omitempty"`
	ToolCallID string         `json:"tool_call_id,omitempty"`
	Name       string         `json:"name,omitempty"`
}

type toolCallJSON struct {
	ID        string `json:"id,omitempty"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// MarshalJSON writes the run file's shape of the message.
func (t Turn) MarshalJSON() ([]byte, error) {
	w := turnJSON{Role: t.Role, Content: t.Content, ToolCallID: t.ToolCallID, Name: t.Name}
	for _, tc := range t.ToolCalls {
		w.ToolCalls = append(w.ToolCalls, toolCallJSON(tc))
	}
	return jsonl.Marshal(w)
}

// Judged records v as the sample's verdict, as a run file keeps it: the
// gold and both previews only on an answer that was not correct (the gold
// falls back to taskSQL when the verifier named none), and nothing of the
// score, modes or components, which reports recompute from the run's mode.
func (s *Sample) Judged(v sqlgym.Verdict, taskSQL string) {
	v.Score, v.Modes, v.Components = nil, nil, nil
	if v.Outcome == sqlgym.OutcomeCorrect {
		v.Gold, v.PredPreview, v.GoldPreview = "", nil, nil
	} else if v.Gold == "" {
		v.Gold = taskSQL
	}
	s.Verdict = v
}

// MarshalJSON writes the sample as samples.jsonl always has (sampleJSON).
func (s Sample) MarshalJSON() ([]byte, error) {
	v := s.Verdict
	return jsonl.Marshal(sampleJSON{
		TaskID: s.TaskID, Sample: s.Sample, DB: s.DB, PromptHash: s.PromptHash,
		Completion: s.Completion, Reasoning: s.Reasoning, FinishReason: s.FinishReason,
		SQL: v.SQL, Outcome: v.Outcome, Reward: v.Reward, Detail: v.Detail, ErrorKind: v.ErrorKind,
		Why: v.Why, Score: v.Score, Modes: v.Modes, Gold: v.Gold, PredPreview: v.PredPreview,
		GoldPreview: v.GoldPreview, Failure: v.Failure, Components: v.Components, Variant: v.Variant,
		LatencyMS: s.LatencyMS, PromptTokens: s.PromptTokens, CompletionTokens: s.CompletionTokens,
		Trajectory: s.Trajectory, Extra: s.Extra,
	})
}
