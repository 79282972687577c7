package chatwire

import (
	"encoding/json"
	"strings"
)

// Message is one chat message. Tool calls and tool results appear only in
// agent conversations. The parquet tags are the columns of verl's
// multi-turn Parquet, which holds role and content only.
type Message struct {
	Role       string     `json:"role" parquet:"role"`
	Content    string     `json:"content" parquet:"content"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty" parquet:"-"`
	ToolCallID string     `json:"tool_call_id,omitempty" parquet:"-"`
	Name       string     `json:"name,omitempty" parquet:"-"`
}

// ToolCall is an assistant's call of a function.
type ToolCall struct {
	ID       string   `json:"id,omitempty"`
	Type     string   `json:"type"`
	Function Function `json:"function"`
}

// Function is a tool call's name and arguments, the arguments as JSON
// (a string or an object, chosen by who writes it).
type Function struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// FunctionCall is a call of the function name with arguments (already
// encoded by ArgumentsString or ArgumentsObject).
func FunctionCall(id, name string, arguments json.RawMessage) ToolCall {
	return ToolCall{ID: id, Type: "function", Function: Function{Name: name, Arguments: arguments}}
}

// ArgumentsString encodes arguments as a JSON string, OpenAI's shape.
func ArgumentsString(arguments string) json.RawMessage {
	b, _ := json.Marshal(arguments) // a string always marshals
	return b
}

// ArgumentsObject keeps arguments that are a JSON object as that object;
// anything else (a model's broken call) becomes a JSON string.
func ArgumentsObject(arguments string) json.RawMessage {
	if json.Valid([]byte(arguments)) && strings.HasPrefix(strings.TrimSpace(arguments), "{") {
		return json.RawMessage(arguments)
	}
	return ArgumentsString(arguments)
}
