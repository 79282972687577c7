package sqlgym

// Message is one message of a chat, the one type every package passes
// around: prompts, agent episodes and their trajectories in run files, and
// the training exports. An assistant message may carry ToolCalls; the
// answer to one of them is a "tool" message whose ToolCallID names it.
// Package model converts it to and from the OpenAI wire layout.
//
// The parquet names are the columns of the Parquet exports, which hold a
// prompt's role and content only.
type Message struct {
	Role       string     `json:"role" parquet:"role"`
	Content    string     `json:"content" parquet:"content"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty" parquet:"-"`
	ToolCallID string     `json:"tool_call_id,omitempty" parquet:"-"`
	Name       string     `json:"name,omitempty" parquet:"-"`
}

// ToolCall is a function call the model asked for. Arguments is the JSON
// text the model wrote, unparsed: it may be invalid, and that is the
// model's mistake for the caller to score.
type ToolCall struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}
