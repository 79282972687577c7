package model

import (
	"encoding/json"
	"time"

	"github.com/sqlgym/sqlgym"
)

// Roles of chat messages.
const (
	RoleSystem    = "system"
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleTool      = "tool"
)

// Finish reasons a server reports for a choice. FinishLength means the
// completion hit max_tokens: the caller marks the sample truncated.
const (
	FinishStop      = "stop"
	FinishLength    = "length"
	FinishToolCalls = "tool_calls"
)

// Tool is a function the model may call. Parameters is a JSON Schema object.
type Tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
}

// Request is one chat completion request. Nil pointers and zero values are
// left out of the body so the server's defaults apply.
type Request struct {
	// Model overrides the client's model for this request.
	Model    string
	Messages []sqlgym.Message
	// N is the number of samples asked for in one request (0 means 1).
	// Chat sends it as is; Sample copes with servers that ignore it.
	N           int
	Temperature *float64
	TopP        *float64
	Seed        *int
	MaxTokens   int
	Stop        []string
	Tools       []Tool
	// ToolChoice is "auto", "none" or "required"; empty leaves it out.
	ToolChoice string
	// Extra is merged into the JSON body last, so it can add any
	// server-specific field (chat_template_kwargs, top_k, min_p,
	// repetition_penalty, max_completion_tokens) or replace a standard one.
	Extra map[string]any
}

// Response is the answer to a request.
type Response struct {
	ID      string
	Model   string
	Choices []Choice
	Usage   Usage
	// Latency is the round trip of the attempt that succeeded (for Sample:
	// the longest of its requests): no client queueing, no retries.
	Latency time.Duration
	// Elapsed is the wall time of the whole call, with queueing and retries.
	Elapsed time.Duration
	// Attempts counts HTTP requests made, retries included.
	Attempts int
}

// Choice is one completion.
type Choice struct {
	Index   int
	Content string
	// Reasoning is the thinking a server's reasoning parser split off
	// (reasoning_content or reasoning); empty when the server has none, in
	// which case any <think> block stays in Content.
	Reasoning    string
	FinishReason string
	ToolCalls    []sqlgym.ToolCall
	// Latency is the round trip of the request that produced this choice.
	Latency time.Duration
	// PromptTokens is the prompt's length as the server counted it.
	// CompletionTokens is this choice's share of its request's completion
	// tokens: a server reports only the total for a request that returned
	// several choices, so it is split evenly and sums stay exact.
	PromptTokens     int
	CompletionTokens int
}

// Truncated reports whether the completion stopped at the token limit.
func (c Choice) Truncated() bool { return c.FinishReason == FinishLength }

// Usage counts tokens as the server reported them (summed over requests
// for Sample).
type Usage struct {
	PromptTokens     int
	CompletionTokens int
}

// Float returns a pointer to v, for Request.Temperature and TopP.
func Float(v float64) *float64 { return &v }

// Int returns a pointer to v, for Request.Seed.
func Int(v int) *int { return &v }
