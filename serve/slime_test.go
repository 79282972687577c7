package serve

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/verify"
)

// slime's remote reward model (slime/rollout/rm_hub/__init__.py:34-46 at
// 624b824a8) posts {"prompt", "response", "label"} per sample and keeps the
// JSON body as the sample's reward: a number, or a dict read with
// --reward-key (slime/utils/types.py:246-247).
func TestSlimeRemoteRM(t *testing.T) {
	_, hs := newTestServer(t, Config{})
	slime := func(body string, query string) (int, string) {
		resp, out := post(t, hs.URL+"/slime/reward"+query, []byte(body))
		return resp.StatusCode, strings.TrimSpace(string(out))
	}
	gold := `"<think>count them</think>` + "\\n```sql\\nSELECT count(*) FROM orders\\n```" + `"`
	wrong := `"` + "```sql\\nSELECT count(*) + 1 FROM orders\\n```" + `"`
	chat := `[{"role": "user", "content": "How many orders?"}]`
	cases := []struct {
		body, query string
		reward      float64
		outcome     sqlgym.Outcome
		masked      float64
	}{
		{`{"prompt": "How many orders?", "response": ` + gold + `, "label": "orders"}`, "", 1, sqlgym.OutcomeCorrect, 0},
		{`{"prompt": ` + chat + `, "response": ` + wrong + `, "label": "orders"}`, "", 0.1, sqlgym.OutcomeWrong, 0},
		// The export's label object, as an object and as JSON text.
		{`{"prompt": "p", "response": ` + gold + `, "label": {"task_id": "orders"}}`, "", 1, sqlgym.OutcomeCorrect, 0},
		{`{"prompt": "p", "response": ` + gold + `, "label": "{\"task_id\": \"secret\", \"mode\": \"eval\"}"}`, "", 0, "", 0},
		// A broken gold has no reward: 0 with sqlgym_masked 1, for the sample filter to drop.
		{`{"prompt": "p", "response": ` + gold + `, "label": {"db": "shop", "gold_sql": "SELECT * FROM nope"}}`, "", 0, sqlgym.OutcomeGoldError, 1},
	}
	for _, c := range cases {
		code, out := slime(c.body, c.query)
		if c.outcome == "" {
			// A held-out task on a server without --eval-holdout: refused, never scored.
			if code != 400 || !strings.Contains(out, "--eval-holdout") {
				t.Errorf("%s: %d %s, want 400 naming --eval-holdout", c.body, code, out)
			}
			continue
		}
		var got SlimeReward
		if code != 200 || json.Unmarshal([]byte(out), &got) != nil {
			t.Fatalf("%s: %d %s", c.body, code, out)
		}
		if got.Reward != c.reward || got.Outcome != c.outcome || got.Masked != c.masked {
			t.Errorf("%s: %+v, want reward %g %s masked %g", c.body, got, c.reward, c.outcome, c.masked)
		}
	}
	// Without --reward-key slime takes the body itself as the reward: a number.
	for body, want := range map[string]string{
		`{"prompt": "p", "response": ` + gold + `, "label": "orders"}`:  "1",
		`{"prompt": "p", "response": ` + wrong + `, "label": "orders"}`: "0.1",
	} {
		if code, out := slime(body, "?answer=number"); code != 200 || out != want {
			t.Errorf("number form: %d %s, want %s", code, out, want)
		}
	}
	for body, hint := range map[string]string{
		`{"prompt": "p", "response": "x"}`:                  "--label-key",
		`{"prompt": "p", "label": "orders"}`:                "has no",
		`{"prompt": "p", "response": "x", "label": "nope"}`: "no task",
	} {
		if code, out := slime(body, ""); code != 400 || !strings.Contains(out, hint) {
			t.Errorf("%s: %d %s, want 400 naming %s", body, code, out, hint)
		}
	}
}

func TestSlimeOutageIsNotAReward(t *testing.T) {
	cat := testCatalog(t, "down=postgres://postgres@127.0.0.1:1/none?sslmode=disable&connect_timeout=1")
	tasks := append(testTasks(), sqlgym.Task{ID: "pg", DB: "down", SQL: "SELECT 1"})
	_, hs := newTestServer(t, Config{DBs: cat, Tasks: tasks, Verify: verify.Config{InfraRetries: -1}})
	resp, body := post(t, hs.URL+"/slime/reward", []byte(`{"prompt": "p", "response": "SELECT 1", "label": "pg"}`))
	if resp.StatusCode != 503 || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("outage: %d %s, want 503 (slime's client retries, then raises)", resp.StatusCode, body)
	}
}
