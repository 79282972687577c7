package serve

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/verify"
)

// A NeMo-Gym v0.5.0 agent rollout as responses_api_agents/simple_agent/
// app.py drives it: run() posts the row to /seed_session and keeps the
// cookies of its answer (:179-186); responses() posts each function call
// to /<name> with json.loads(arguments) as the body and the cookies of the
// previous resources-server answer (:130-155), uses the answer's text as
// the function_call_output (:157-161); run() posts the row plus the final
// response to /verify with the cookies (:188-206).

// nemoAgent is simple_agent's cookie handling: each request carries the
// cookies of the previous resources-server answer only (aiohttp's
// ClientResponse.cookies, app.py:155 and :186).
type nemoAgent struct {
	t       *testing.T
	url     string
	cookies []*http.Cookie
}

func (a *nemoAgent) post(path string, body any) (int, []byte) {
	a.t.Helper()
	j, _ := json.Marshal(body)
	req, _ := http.NewRequest(http.MethodPost, a.url+path, bytes.NewReader(j))
	req.Header.Set("Content-Type", "application/json")
	for _, c := range a.cookies {
		req.AddCookie(c)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		a.t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	a.cookies = resp.Cookies()
	return resp.StatusCode, out
}

// nemoAgentRow is a row of `sqlgym export --agent --format nemo-gym`.
func nemoAgentRowFor(task string) map[string]any {
	row := nemoRow(task)
	row["protocol"] = "tools"
	row["responses_create_params"].(map[string]any)["tools"] = []any{
		map[string]any{"type": "function", "name": "run_sql", "parameters": map[string]any{"type": "object"}, "strict": false}}
	return row
}

// nemoToolResponse is the response run() gets back from responses(): the
// model's function calls, their outputs, then its last message
// (app.py:104-105, :157-162, :172).
func nemoToolResponse(calls [][3]string, final string) map[string]any {
	r := nemoResponse(final, false)
	var out []any
	for i, c := range calls {
		id := "call_" + string(rune('a'+i))
		out = append(out,
			map[string]any{"type": "function_call", "id": "fc_" + id, "call_id": id, "name": c[0], "arguments": c[1], "status": "completed"},
			map[string]any{"type": "function_call_output", "call_id": id, "output": c[2]})
	}
	r["output"] = append(out, r["output"].([]any)...)
	return r
}

func TestNemoGymAgentRollout(t *testing.T) {
	s, hs := newTestServer(t, Config{})
	a := &nemoAgent{t: t, url: hs.URL}
	row := nemoAgentRowFor("orders")
	code, raw := a.post("/seed_session", row)
	if code != http.StatusOK || len(a.cookies) != 1 || a.cookies[0].Name != NemoGymCookie || s.eps.count() != 1 {
		t.Fatalf("seed_session: %d %s cookies %v", code, raw, a.cookies)
	}
	var calls [][3]string
	for _, c := range []struct{ name, args, want string }{
		{"describe_table", `{"name": "orders"}`, "primary key: order_id"},
		{"run_sql", `{"sql": "SELECT count(*) FROM orders"}`, "count"},
		{"submit", `{"sql": "SELECT COUNT(*) FROM orders"}`, ""},
	} {
		var args any
		if err := json.Unmarshal([]byte(c.args), &args); err != nil {
			t.Fatal(err)
		}
		code, out := a.post("/"+c.name, args)
		if code != http.StatusOK || !strings.Contains(string(out), c.want) {
			t.Fatalf("%s: %d %q lacks %q", c.name, code, out, c.want)
		}
		if len(a.cookies) != 1 || a.cookies[0].Name != NemoGymCookie {
			t.Fatalf("%s did not set the session cookie again: %v", c.name, a.cookies)
		}
		calls = append(calls, [3]string{c.name, c.args, string(out)})
	}
	// A call after the submission: the episode has ended, told as a tool error.
	if code, out := a.post("/run_sql", map[string]any{"sql": "SELECT 1"}); code != http.StatusConflict || !strings.Contains(string(out), "answer without tool calls") {
		t.Errorf("call after submit: %d %s", code, out)
	}
	body := nemoAgentRowFor("orders")
	body["response"] = nemoToolResponse(calls, "Done.")
	session := a.cookies
	code, raw = a.post("/verify", body)
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil || code != http.StatusOK {
		t.Fatalf("verify: %d %s", code, raw)
	}
	if out["reward"] != 1.0 || out["sqlgym_masked"] != 0.0 || out["sqlgym_outcome"] != "correct" || out["task_id"] != "orders" ||
		out["sqlgym_sql"] != "SELECT COUNT(*) FROM orders" || out["_ng_task_index"] != 3.0 {
		t.Errorf("verify answer %v", out)
	}
	if n := s.eps.count(); n != 0 {
		t.Errorf("%d episodes left open after /verify", n)
	}
	// The session is over: a second verify of it is a 404, not a reward.
	a.cookies = session
	if code, _ := a.post("/verify", body); code != http.StatusNotFound {
		t.Errorf("second verify: %d", code)
	}
}

// A rollout whose last reply hit max_output_tokens has no reward: 0 with
// sqlgym_masked 1, as the single-turn path sends it; one that stopped
// without submitting is judged no_query.
func TestNemoGymAgentUnfinished(t *testing.T) {
	s, hs := newTestServer(t, Config{})
	for _, c := range []struct {
		cut            bool
		reward, masked float64
		outcome        string
	}{{true, 0, 1, "truncated"}, {false, 0, 0, "no_query"}} {
		a := &nemoAgent{t: t, url: hs.URL}
		if code, raw := a.post("/seed_session", nemoAgentRowFor("orders")); code != http.StatusOK {
			t.Fatalf("seed: %d %s", code, raw)
		}
		if code, _ := a.post("/list_tables", map[string]any{}); code != http.StatusOK {
			t.Fatalf("list_tables: %d", code)
		}
		body := nemoAgentRowFor("orders")
		body["response"] = nemoResponse("SELECT count(*) FROM ord", c.cut)
		code, raw := a.post("/verify", body)
		var out map[string]any
		if err := json.Unmarshal(raw, &out); err != nil || code != http.StatusOK {
			t.Fatalf("verify: %d %s", code, raw)
		}
		if out["reward"] != c.reward || out["sqlgym_masked"] != c.masked || out["sqlgym_outcome"] != c.outcome {
			t.Errorf("cut %v: %v", c.cut, out)
		}
	}
	if n := s.eps.count(); n != 0 {
		t.Errorf("%d episodes leaked", n)
	}
}

// Calls without a session, and agent rows that cannot work, get a 4xx JSON
// error naming the fix; none opens an episode.
func TestNemoGymAgentRefusals(t *testing.T) {
	s, hs := newTestServer(t, Config{})
	a := &nemoAgent{t: t, url: hs.URL}
	code, raw := a.post("/run_sql", map[string]any{"sql": "SELECT 1"})
	var e errorBody
	if err := json.Unmarshal(raw, &e); err != nil || code != http.StatusBadRequest || !strings.Contains(e.Error, "POST /seed_session") {
		t.Errorf("tool call without a session: %d %s", code, raw)
	}
	body := nemoAgentRowFor("orders")
	body["response"] = nemoResponse("x", false)
	if code, raw := a.post("/verify", body); code != http.StatusBadRequest || !strings.Contains(string(raw), "cookie") {
		t.Errorf("agent verify without a session: %d %s", code, raw)
	}
	a.cookies = []*http.Cookie{{Name: NemoGymCookie, Value: "ep-gone"}}
	if code, raw := a.post("/submit", map[string]any{"sql": "SELECT 1"}); code != http.StatusNotFound || !strings.Contains(string(raw), "expired") {
		t.Errorf("unknown episode: %d %s", code, raw)
	}
	text := nemoAgentRowFor("orders")
	text["protocol"] = "text"
	if code, raw := a.post("/seed_session", text); code != http.StatusBadRequest || !strings.Contains(string(raw), "--protocol tools") {
		t.Errorf("text protocol row: %d %s", code, raw)
	}
	if code, raw := a.post("/seed_session", nemoAgentRowFor("secret")); code != http.StatusBadRequest {
		t.Errorf("held-out task on a training row: %d %s", code, raw)
	}
	if n := s.eps.count(); n != 0 {
		t.Errorf("%d episodes opened by refused requests", n)
	}
}

// A database outage while opening the rollout's episode is a 503 (the
// agent's raise_for_status fails the rollout, app.py:185), never a reward.
func TestNemoGymAgentOutage(t *testing.T) {
	s, hs := newTestServer(t, Config{
		DBs:    testCatalog(t, "down=postgres://postgres@127.0.0.1:1/none?sslmode=disable&connect_timeout=1"),
		Tasks:  append(testTasks(), sqlgym.Task{ID: "pg", DB: "down", SQL: "SELECT 1", Split: sqlgym.SplitTrain}),
		Verify: verify.Config{InfraRetries: -1},
	})
	a := &nemoAgent{t: t, url: hs.URL}
	if code, raw := a.post("/seed_session", nemoAgentRowFor("pg")); code != http.StatusServiceUnavailable {
		t.Errorf("seed on a down database: %d %s", code, raw)
	}
	if n := s.eps.count(); n != 0 {
		t.Errorf("%d episodes leaked", n)
	}
}
