package rundir

import (
	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/failure"
)

// Sample is one line of samples.jsonl: one sampled answer to one task and
// its verdict.
type Sample struct {
	TaskID       string         `json:"task_id"`
	Sample       int            `json:"sample"`
	DB           string         `json:"db,omitempty"`
	PromptHash   string         `json:"prompt_hash"`
	Completion   string         `json:"completion"`
	Reasoning    string         `json:"reasoning,omitempty"`
	FinishReason string         `json:"finish_reason,omitempty"`
	SQL          string         `json:"sql"`
	Outcome      sqlgym.Outcome `json:"outcome"`
	Reward       *float64       `json:"reward"`
	Detail       string         `json:"detail,omitempty"`
	ErrorKind    string         `json:"error_kind,omitempty"`
	Why          string         `json:"why,omitempty"`
	// Gold is the gold SQL the sample was judged against; PredPreview and
	// GoldPreview are the first rows each returned (set on failures, so a
	// report can show them without the database).
	Gold        string   `json:"gold,omitempty"`
	PredPreview *Preview `json:"pred_preview,omitempty"`
	GoldPreview *Preview `json:"gold_preview,omitempty"`
	// Failure is the class of a scored sample that was not correct (see
	// package failure).
	Failure *failure.Failure `json:"failure,omitempty"`
	// Variant is the variant database that decided a sample right on the
	// original (verify.Result.Variant).
	Variant string `json:"variant,omitempty"`
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

// Turn is one message of an agent episode.
type Turn struct {
	Role       string     `json:"role"`
	Content    string     `json:"content,omitempty"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
	Name       string     `json:"name,omitempty"`
}

// ToolCall is one tool call the model made.
type ToolCall struct {
	ID        string `json:"id,omitempty"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}
