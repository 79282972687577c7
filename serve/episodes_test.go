package serve

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym/agent"
)

func startEpisode(t *testing.T, url string, body any) (int, EpisodeResponse, []byte) {
	t.Helper()
	resp, raw := post(t, url+"/v1/episodes", body)
	var er EpisodeResponse
	if resp.StatusCode == http.StatusOK {
		if err := json.Unmarshal(raw, &er); err != nil {
			t.Fatalf("episode response: %v: %s", err, raw)
		}
	}
	return resp.StatusCode, er, raw
}

func step(t *testing.T, url, id string, body string) (int, StepResponse, []byte) {
	t.Helper()
	resp, raw := post(t, url+"/v1/episodes/"+id+"/step", []byte(body))
	var sr StepResponse
	if resp.StatusCode == http.StatusOK {
		if err := json.Unmarshal(raw, &sr); err != nil {
			t.Fatalf("step response: %v: %s", err, raw)
		}
	}
	return resp.StatusCode, sr, raw
}

// A whole tools-protocol episode over HTTP: explore, hit an error, fix
// it, submit; the reward is the verifier's.
func TestEpisodeToolsOverHTTP(t *testing.T) {
	_, hs := newTestServer(t, Config{})
	code, ep, raw := startEpisode(t, hs.URL, map[string]string{"task_id": "orders"})
	if code != http.StatusOK {
		t.Fatalf("start: %d %s", code, raw)
	}
	if ep.Protocol != "tools" || ep.MaxTurns != 4 || len(ep.Tools) != 4 || ep.Tools[2].Function.Name != "run_sql" ||
		len(ep.Messages) != 2 || ep.Messages[0].Role != "system" || !strings.Contains(ep.Messages[1].Content, "CREATE TABLE orders") {
		t.Fatalf("opening = %+v", ep)
	}

	code, sr, raw := step(t, hs.URL, ep.ID, `{"message": {"role": "assistant", "content": "", "tool_calls": [
		{"id": "c1", "type": "function", "function": {"name": "describe_table", "arguments": "{\"name\": \"orders\"}"}},
		{"id": "c2", "type": "function", "function": {"name": "run_sql", "arguments": {"sql": "SELECT count(*) FROM order"}}}]}}`)
	if code != http.StatusOK || sr.Done || sr.Turn != 1 || len(sr.Observations) != 2 {
		t.Fatalf("step 1: %d %s", code, raw)
	}
	if o := sr.Observations[0]; o.Role != "tool" || o.ToolCallID != "c1" || !strings.Contains(o.Content, "primary key: order_id") {
		t.Errorf("describe observation = %+v", o)
	}
	if o := sr.Observations[1]; o.ToolCallID != "c2" || !strings.HasPrefix(o.Content, "Error: ") {
		t.Errorf("run_sql of a broken query (arguments given as an object) = %+v", o)
	}
	if sr.Reward != nil || sr.Outcome != "" {
		t.Errorf("a reward before the end: %s", raw)
	}

	code, sr, raw = step(t, hs.URL, ep.ID, `{"message": {"role": "assistant", "content": "Fixed.", "tool_calls": [
		{"id": "c3", "type": "function", "function": {"name": "submit", "arguments": "{\"sql\": \"SELECT COUNT(*) FROM orders\"}"}}]}}`)
	if code != http.StatusOK || !sr.Done || sr.Outcome != "correct" || sr.Reward == nil || *sr.Reward != 1 {
		t.Fatalf("step 2: %d %s", code, raw)
	}
	if sr.Stats == nil || !sr.Stats.CrashFixed || sr.Stats.Turns != 2 || sr.Stats.Queries != 1 {
		t.Errorf("stats = %+v", sr.Stats)
	}
	// A finished episode is gone.
	if code, _, _ := step(t, hs.URL, ep.ID, `{"message": {"content": "again"}}`); code != http.StatusNotFound {
		t.Errorf("step after the end: %d, want 404", code)
	}
}

// The text protocol over HTTP, to the end of its turns.
func TestEpisodeTextOverHTTP(t *testing.T) {
	_, hs := newTestServer(t, Config{Agent: agentCfg(2)})
	code, ep, raw := startEpisode(t, hs.URL, map[string]string{"task_id": "top", "protocol": "text"})
	if code != http.StatusOK || len(ep.Tools) != 0 || ep.MaxTurns != 2 {
		t.Fatalf("start: %d %s", code, raw)
	}
	code, sr, raw := step(t, hs.URL, ep.ID, `{"message": {"role": "assistant", "content": "<sql>SELECT order_id FROM orders ORDER BY order_id LIMIT 3</sql>"}}`)
	if code != http.StatusOK || sr.Done || len(sr.Observations) != 1 || sr.Observations[0].Role != "user" ||
		!strings.Contains(sr.Observations[0].Content, "3 rows:\norder_id\n1\n2\n3") || !strings.Contains(sr.Observations[0].Content, "last turn") {
		t.Fatalf("step 1: %d %s", code, raw)
	}
	code, sr, raw = step(t, hs.URL, ep.ID, `{"message": {"role": "assistant", "content": "Still thinking."}}`)
	if code != http.StatusOK || !sr.Done || sr.Outcome != "no_query" || sr.Reward == nil || *sr.Reward != 0 {
		t.Fatalf("step 2: %d %s", code, raw)
	}
}

func TestEpisodeRefusals(t *testing.T) {
	s, hs := newTestServer(t, Config{MaxEpisodes: 2, RetryAfter: 2 * time.Second})
	for _, c := range []struct {
		body any
		want string
	}{
		{map[string]string{"task_id": "nope"}, "no task"},
		{map[string]string{"task_id": "secret"}, "held out"},
		{map[string]string{"task_id": "orders", "protocol": "xml"}, "protocol"},
	} {
		code, _, raw := startEpisode(t, hs.URL, c.body)
		if code != http.StatusBadRequest || !strings.Contains(string(raw), c.want) {
			t.Errorf("%v: %d %s", c.body, code, raw)
		}
	}
	var ids []string
	for range 2 {
		code, ep, raw := startEpisode(t, hs.URL, map[string]string{"task_id": "orders"})
		if code != http.StatusOK {
			t.Fatalf("start: %d %s", code, raw)
		}
		ids = append(ids, ep.ID)
	}
	resp, raw := post(t, hs.URL+"/v1/episodes", map[string]string{"task_id": "orders"})
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") != "2" {
		t.Errorf("a third episode: %d %s, want 429 with Retry-After", resp.StatusCode, raw)
	}
	if code, _, raw := step(t, hs.URL, ids[0], `{"message": {"role": "user", "content": "hi"}}`); code != http.StatusBadRequest {
		t.Errorf("a user message as a step: %d %s", code, raw)
	}
	// Idle past the TTL, the episodes expire and make room.
	s.eps.now = func() time.Time { return time.Now().Add(DefaultEpisodeTTL + time.Second) }
	if code, _, _ := step(t, hs.URL, ids[1], `{"message": {"content": "<sql>SELECT 1</sql>"}}`); code != http.StatusNotFound {
		t.Errorf("step on an expired episode: %d, want 404", code)
	}
	if code, _, raw := startEpisode(t, hs.URL, map[string]string{"task_id": "orders"}); code != http.StatusOK {
		t.Errorf("start after expiry: %d %s", code, raw)
	}
}

func agentCfg(turns int) agent.Config { return agent.Config{MaxTurns: turns} }

func TestEpisodeDeleteJudges(t *testing.T) {
	_, hs := newTestServer(t, Config{Agent: agent.Config{SubmitLast: true}})
	_, ep, _ := startEpisode(t, hs.URL, map[string]string{"task_id": "orders", "protocol": "text"})
	step(t, hs.URL, ep.ID, `{"message": {"content": "<sql>SELECT count(*) FROM orders</sql>"}}`)
	req, _ := http.NewRequest(http.MethodDelete, hs.URL+"/v1/episodes/"+ep.ID, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var sr StepResponse
	if err := json.NewDecoder(resp.Body).Decode(&sr); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("delete: %d %v", resp.StatusCode, err)
	}
	if !sr.Done || sr.Outcome != "correct" || sr.Stats == nil || !sr.Stats.SubmitLast {
		t.Errorf("delete with --submit-last judges the last query: %+v", sr)
	}
	if code, _, _ := step(t, hs.URL, ep.ID, `{"message": {"content": "x"}}`); code != http.StatusNotFound {
		t.Errorf("step after delete: %d", code)
	}
}

// TRL's environment_factory runs a message's tool calls one method call at
// a time, so the environment sends each as a partial step: partial steps
// cost no turn (a turn is a whole assistant message), the episode still
// ends after MaxTurns x MaxCalls of them, and a partial step must be one
// tool call.
func TestPartialStepsCostNoTurn(t *testing.T) {
	_, hs := newTestServer(t, Config{Agent: agent.Config{MaxTurns: 2, MaxCalls: 2}})
	call := func(name, args string) string {
		return `{"partial": true, "message": {"role": "assistant", "tool_calls": [
			{"type": "function", "function": {"name": "` + name + `", "arguments": ` + args + `}}]}}`
	}
	_, ep, _ := startEpisode(t, hs.URL, map[string]string{"task_id": "orders"})
	// Three calls, more than MaxTurns: the episode goes on, at turn 0.
	for i := 0; i < 3; i++ {
		code, sr, raw := step(t, hs.URL, ep.ID, call("run_sql", `{"sql": "SELECT count(*) FROM orders"}`))
		if code != 200 || sr.Done || sr.Turn != 0 || len(sr.Observations) != 1 || strings.Contains(sr.Observations[0].Content, "last turn") {
			t.Fatalf("partial call %d: %d %s", i+1, code, raw)
		}
	}
	code, sr, raw := step(t, hs.URL, ep.ID, call("submit", `{"sql": "SELECT count(*) FROM orders"}`))
	if code != 200 || !sr.Done || sr.Outcome != "correct" || sr.Stats.Turns != 0 || sr.Stats.PartialCalls != 4 || sr.Stats.Queries != 3 {
		t.Fatalf("partial submit: %d %s", code, raw)
	}

	// The bound: MaxTurns x MaxCalls = 4 partial calls, then the episode ends unsubmitted.
	_, ep, _ = startEpisode(t, hs.URL, map[string]string{"task_id": "orders"})
	for i := 1; i <= 4; i++ {
		code, sr, raw = step(t, hs.URL, ep.ID, call("list_tables", `{}`))
		if code != 200 || sr.Done != (i == 4) {
			t.Fatalf("partial call %d of 4: %d %s", i, code, raw)
		}
	}
	if sr.Outcome != "no_query" || !strings.Contains(sr.Detail, "4 tool calls") {
		t.Errorf("after the call bound: %s", raw)
	}

	// Two calls in one partial step, or a text-protocol episode: 400.
	_, ep, _ = startEpisode(t, hs.URL, map[string]string{"task_id": "orders"})
	code, _, raw = step(t, hs.URL, ep.ID, `{"partial": true, "message": {"tool_calls": [
		{"type": "function", "function": {"name": "list_tables", "arguments": {}}},
		{"type": "function", "function": {"name": "list_tables", "arguments": {}}}]}}`)
	if code != 400 || !strings.Contains(string(raw), "exactly one tool call") {
		t.Errorf("two calls in a partial step: %d %s", code, raw)
	}
	_, ep, _ = startEpisode(t, hs.URL, map[string]string{"task_id": "orders", "protocol": "text"})
	if code, _, raw = step(t, hs.URL, ep.ID, `{"partial": true, "message": {"content": "<sql>SELECT 1</sql>"}}`); code != 400 {
		t.Errorf("partial text step: %d %s", code, raw)
	}
	// A whole message still costs one turn, whatever its number of calls.
	_, ep, _ = startEpisode(t, hs.URL, map[string]string{"task_id": "orders"})
	code, sr, raw = step(t, hs.URL, ep.ID, `{"message": {"tool_calls": [
		{"type": "function", "function": {"name": "list_tables", "arguments": {}}},
		{"type": "function", "function": {"name": "run_sql", "arguments": {"sql": "SELECT 1"}}}]}}`)
	if code != 200 || sr.Turn != 1 || len(sr.Observations) != 2 || !strings.Contains(sr.Observations[1].Content, "last turn") {
		t.Errorf("a whole message of two calls: %d %s", code, raw)
	}
}
