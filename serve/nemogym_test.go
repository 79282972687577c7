package serve

import (
	"encoding/json"
	"math"
	"net/http"
	"testing"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/verify"
)

// The bodies below are NeMo-Gym v0.5.0's: simple_agent posts the row
// (its responses_create_params and the dataset's own fields) to
// /seed_session (responses_api_agents/simple_agent/app.py:179-185), then
// the row plus the model's Responses-API response to /verify (:197-208),
// and validates the answer as a BaseVerifyResponse: the request plus a
// float "reward" (nemo_gym/base_resources_server.py:92-97).

func nemoResponse(text string, cut bool) map[string]any {
	r := map[string]any{
		"id": "resp_1", "object": "response", "created_at": 1.0, "model": "policy", "status": "completed",
		"parallel_tool_calls": true, "tool_choice": "auto", "tools": []any{}, "incomplete_details": nil,
		"output": []any{
			map[string]any{"type": "reasoning", "id": "rs_1", "summary": []any{}},
			map[string]any{"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
				"content": []any{map[string]any{"type": "output_text", "text": text, "annotations": []any{}}}},
		},
	}
	if cut {
		r["status"] = "incomplete"
		r["incomplete_details"] = map[string]any{"reason": "max_output_tokens"}
	}
	return r
}

func nemoRow(task string) map[string]any {
	return map[string]any{
		"responses_create_params": map[string]any{"input": []any{
			map[string]any{"role": "system", "content": "..."}, map[string]any{"role": "user", "content": "Question: ..."}}},
		"task_id": task, "db": "shop", "split": "train", "prompt_hash": "abc",
		"_ng_task_index": 3, "_ng_rollout_index": 1,
	}
}

func verifyBody(task, text string, cut bool) map[string]any {
	b := nemoRow(task)
	b["response"] = nemoResponse(text, cut)
	return b
}

func TestNemoGymVerify(t *testing.T) {
	_, hs := newTestServer(t, Config{})
	resp, raw := post(t, hs.URL+"/seed_session", nemoRow("orders"))
	if resp.StatusCode != http.StatusOK || string(raw) != "{}\n" {
		t.Fatalf("seed_session: %d %s", resp.StatusCode, raw)
	}
	cases := []struct {
		text           string
		cut            bool
		reward, masked float64
		outcome        string
	}{
		{"Counting.\n```sql\nSELECT COUNT(*) FROM orders\n```", false, 1, 0, "correct"},
		{"```sql\nSELECT count(*) + 1 FROM orders\n```", false, 0.1, 0, "wrong"},
		{"```sql\nSELECT count(*) FROM ord", true, 0, 1, "truncated"},
	}
	for _, c := range cases {
		resp, raw := post(t, hs.URL+"/verify", verifyBody("orders", c.text, c.cut))
		var out map[string]any
		if err := json.Unmarshal(raw, &out); err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("verify: %d %s", resp.StatusCode, raw)
		}
		if out["reward"] != c.reward || out["sqlgym_masked"] != c.masked || out["sqlgym_outcome"] != c.outcome {
			t.Errorf("%q: %v", c.text, out)
		}
		// The answer is the request plus the reward: the row's fields and the response come back.
		if out["task_id"] != "orders" || out["_ng_task_index"] != 3.0 || out["response"].(map[string]any)["id"] != "resp_1" ||
			out["responses_create_params"] == nil {
			t.Errorf("request fields not echoed: %v", out)
		}
	}
	// Mistakes the client must fix.
	noResp := nemoRow("orders")
	if resp, _ := post(t, hs.URL+"/verify", noResp); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("no response: %d", resp.StatusCode)
	}
	noTask := verifyBody("", "x", false)
	delete(noTask, "task_id")
	delete(noTask, "db")
	if resp, raw := post(t, hs.URL+"/verify", noTask); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("no task: %d %s", resp.StatusCode, raw)
	}
	if resp, _ := post(t, hs.URL+"/verify", verifyBody("secret", "x", false)); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("held-out task: %d", resp.StatusCode)
	}
}

// A database outage is a 503 (the agent's raise_for_status fails the
// rollout), never a reward.
func TestNemoGymVerifyOutage(t *testing.T) {
	_, hs := newTestServer(t, Config{
		DBs:    testCatalog(t, "down=postgres://postgres@127.0.0.1:1/none?sslmode=disable&connect_timeout=1"),
		Tasks:  append(testTasks(), sqlgym.Task{ID: "pg", DB: "down", SQL: "SELECT 1"}),
		Verify: verify.Config{InfraRetries: -1},
	})
	resp, raw := post(t, hs.URL+"/verify", verifyBody("pg", "```sql\nSELECT 1\n```", false))
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("outage: %d %s", resp.StatusCode, raw)
	}
}

// /aggregate_metrics: NeMo-Gym's AggregateMetricsRequest in, AggregateMetrics
// out (nemo_gym/config_types.py:762-790), masked rollouts counted apart.
func TestNemoGymAggregate(t *testing.T) {
	_, hs := newTestServer(t, Config{})
	vr := func(task int, reward, correct, masked float64) map[string]any {
		return map[string]any{"_ng_task_index": task, "_ng_rollout_index": 0, "reward": reward, "sqlgym_correct": correct,
			"sqlgym_masked": masked, "response": map[string]any{}}
	}
	body := map[string]any{"verify_responses": []any{vr(0, 1, 1, 0), vr(0, 0.1, 0, 0), vr(1, 1, 1, 0), vr(1, 0, 0, 1)}}
	resp, raw := post(t, hs.URL+"/aggregate_metrics", body)
	var out AggregateResponse
	if err := json.Unmarshal(raw, &out); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("%d %s", resp.StatusCode, raw)
	}
	near := func(v any, want float64) bool { f, ok := v.(float64); return ok && math.Abs(f-want) < 1e-9 }
	if len(out.GroupLevel) != 2 || out.GroupLevel[0]["_ng_task_index"] != 0.0 || !near(out.GroupLevel[0]["reward/mean"], 0.55) ||
		out.GroupLevel[1]["num_rollouts"] != 1.0 || !near(out.GroupLevel[1]["reward/std"], 0) {
		t.Errorf("group level %v", out.GroupLevel)
	}
	if !near(out.Agent["reward/mean"], 0.7) || !near(out.Agent["sqlgym_correct/mean"], 2.0/3) || out.Agent["sqlgym_masked_rollouts"] != 1.0 ||
		!near(out.Agent["reward/std"], math.Sqrt((0.09+0.36+0.09)/2)) || !near(out.Key["sqlgym_correct/mean"], 2.0/3) {
		t.Errorf("agent %v key %v", out.Agent, out.Key)
	}
	if resp, _ := post(t, hs.URL+"/aggregate_metrics", map[string]any{"verify_responses": []any{map[string]any{"reward": "x"}}}); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("bad reward: %d", resp.StatusCode)
	}
}

// A held-out row of a validation export (split "holdout") is scored as an
// evaluation request under --eval-holdout; the same task as a training
// row is still refused.
func TestNemoGymVerifyHeldOutRow(t *testing.T) {
	_, hs := newTestServer(t, Config{EvalHoldout: true})
	row := verifyBody("secret", "```sql\nSELECT 1\n```", false)
	row["split"] = sqlgym.SplitHoldout
	resp, raw := post(t, hs.URL+"/verify", row)
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil || resp.StatusCode != http.StatusOK || out["reward"] == nil {
		t.Fatalf("held-out row under --eval-holdout: %d %s", resp.StatusCode, raw)
	}
	if resp, raw := post(t, hs.URL+"/verify", verifyBody("secret", "```sql\nSELECT 1\n```", false)); resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("held-out task on a training row: %d %s", resp.StatusCode, raw)
	}
}
