package chatwire

import (
	"encoding/json"
	"testing"
)

// The two argument encodings are file and wire formats (the episode API's
// steps, the curated training rows): pinned byte for byte.
func TestToolCallArgumentEncodings(t *testing.T) {
	for _, c := range []struct {
		name string
		args json.RawMessage
		want string
	}{
		{"string/object", ArgumentsString(`{"sql": "SELECT 1"}`), `{"role":"assistant","content":"","tool_calls":[{"id":"c1","type":"function","function":{"name":"run_sql","arguments":"{\"sql\": \"SELECT 1\"}"}}]}`},
		{"object/object", ArgumentsObject(`{"sql": "SELECT 1"}`), `{"role":"assistant","content":"","tool_calls":[{"id":"c1","type":"function","function":{"name":"run_sql","arguments":{"sql":"SELECT 1"}}}]}`}, // encoding/json compacts the object
		{"object/broken", ArgumentsObject(`{"sql": "SELECT`), `{"role":"assistant","content":"","tool_calls":[{"id":"c1","type":"function","function":{"name":"run_sql","arguments":"{\"sql\": \"SELECT"}}]}`},
		{"object/array", ArgumentsObject(`["SELECT 1"]`), `{"role":"assistant","content":"","tool_calls":[{"id":"c1","type":"function","function":{"name":"run_sql","arguments":"[\"SELECT 1\"]"}}]}`},
	} {
		m := Message{Role: "assistant", ToolCalls: []ToolCall{FunctionCall("c1", "run_sql", c.args)}}
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.name, b, c.want)
		}
	}
}

func TestToolResultMessageShape(t *testing.T) {
	b, _ := json.Marshal(Message{Role: "tool", Content: "1 row", ToolCallID: "c1", Name: "run_sql"})
	if want := `{"role":"tool","content":"1 row","tool_call_id":"c1","name":"run_sql"}`; string(b) != want {
		t.Errorf("got %s, want %s", b, want)
	}
}
