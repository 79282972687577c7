package serve

import (
	"net/http"
	"strings"
	"testing"
)

// Every JSON route reads its body strictly: a key given twice is refused
// naming it, and so is anything after the object. The bodies are otherwise
// valid for their route, so a 400 here is the decoder's.
func TestStrictJSONEveryRoute(t *testing.T) {
	_, hs := newTestServer(t, Config{EvalHoldout: true})
	code, ep, raw := startEpisode(t, hs.URL, map[string]string{"task_id": "orders"})
	if code != 200 {
		t.Fatalf("episode: %d %s", code, raw)
	}
	routes := []struct{ path, dup, trailing string }{
		{"/v1/rewards", `{"items": [{"task_id": "orders", "sql": "SELECT 1", "mode": "train", "mode": "eval"}]}`,
			`{"items": [{"task_id": "orders", "sql": "SELECT 1"}]} x`},
		{"/get_reward", `{"query": ["SELECT 1"], "labels": ["orders"], "labels": ["secret"]}`,
			`{"query": ["SELECT 1"], "labels": ["orders"]}{}`},
		{"/v1/episodes", `{"task_id": "orders", "task_id": "secret"}`, `{"task_id": "orders"}]`},
		{"/v1/episodes/" + ep.ID + "/step", `{"message": {"role": "assistant", "content": "x", "content": "y"}}`,
			`{"message": {"role": "assistant", "content": "x"}} {"message": {}}`},
		{"/seed_session", `{"task_id": "orders", "task_id": "secret"}`, `{"task_id": "orders"},`},
		{"/verify", `{"task_id": "orders", "split": "train", "split": "holdout", "response": {"output": []}}`,
			`{"task_id": "orders", "response": {"output": []}} null`},
		{"/aggregate_metrics", `{"verify_responses": [{"reward": 1, "reward": 0}]}`, `{"verify_responses": []}"x"`},
	}
	for _, r := range routes {
		resp, body := post(t, hs.URL+r.path, []byte(r.dup))
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), "duplicate") {
			t.Errorf("%s with a key given twice: %d %s, want 400 naming the key", r.path, resp.StatusCode, body)
		}
		resp, body = post(t, hs.URL+r.path, []byte(r.trailing))
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), "after top-level value") {
			t.Errorf("%s with bytes after the object: %d %s, want 400", r.path, resp.StatusCode, body)
		}
	}
}

// The duplicate's error names the key, nested or not.
func TestStrictJSONNamesTheKey(t *testing.T) {
	_, hs := newTestServer(t, Config{})
	resp, body := post(t, hs.URL+"/v1/rewards", []byte(`{"items": [{"task_id": "orders", "sql": "SELECT 1", "mode": "train", "mode": "eval"}]}`))
	if resp.StatusCode != 400 || !strings.Contains(string(body), `\"mode\"`) {
		t.Fatalf("duplicate mode: %d %s", resp.StatusCode, body)
	}
}

// A key matches only as spelled, and one that spells a field's key in
// another case is refused by name: "Mode" cannot make a training request
// an evaluation one, nor be silently dropped. The same holds inside an
// OpenRLHF label, which is JSON in a string.
func TestMiscasedKeyIsRefused(t *testing.T) {
	_, hs := newTestServer(t, Config{EvalHoldout: true})
	gold := "SELECT count(*) FROM customers"
	resp, body := post(t, hs.URL+"/v1/rewards", []byte(`{"items": [{"task_id": "secret", "sql": "`+gold+`", "Mode": "eval"}]}`))
	if resp.StatusCode != 400 || !strings.Contains(string(body), `unknown key \"Mode\"`) || !strings.Contains(string(body), `did you mean \"mode\"`) {
		t.Errorf(`"Mode": "eval" on a held-out task: %d %s, want 400 naming the key`, resp.StatusCode, body)
	}
	resp, body = post(t, hs.URL+"/v1/rewards", []byte(`{"Items": [{"task_id": "orders", "sql": "SELECT 1"}]}`))
	if resp.StatusCode != 400 || !strings.Contains(string(body), `\"Items\"`) {
		t.Errorf(`"Items": %d %s, want 400 naming the key`, resp.StatusCode, body)
	}
	resp, body = post(t, hs.URL+"/get_reward", OpenRLHFRequest{Query: []string{gold}, Labels: []string{`{"task_id": "secret", "MODE": "eval"}`}})
	if resp.StatusCode != 400 || !strings.Contains(string(body), "MODE") {
		t.Errorf(`OpenRLHF label with "MODE": "eval": %d %s, want 400 naming the key`, resp.StatusCode, body)
	}
	resp, body = post(t, hs.URL+"/get_reward", OpenRLHFRequest{Query: []string{gold}, Labels: []string{`{"task_id": "orders", "task_id": "secret"}`}})
	if resp.StatusCode != 400 || !strings.Contains(string(body), "duplicate") {
		t.Errorf(`OpenRLHF label with task_id twice: %d %s, want 400`, resp.StatusCode, body)
	}
	// Unknown keys are still ignored: trainers add fields of their own.
	resp, body = post(t, hs.URL+"/v1/rewards", []byte(`{"items": [{"task_id": "orders", "sql": "SELECT count(*) FROM orders", "extra": 1}], "trainer": "x"}`))
	if resp.StatusCode != 200 {
		t.Errorf("unknown keys: %d %s, want 200", resp.StatusCode, body)
	}
}
