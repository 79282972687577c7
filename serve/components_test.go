package serve

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/verify"
)

func rewards(t *testing.T, url string, req RewardsRequest) (int, RewardsResponse, string) {
	t.Helper()
	resp, body := post(t, url+"/v1/rewards", req)
	var got RewardsResponse
	if resp.StatusCode == 200 {
		if err := json.Unmarshal(body, &got); err != nil {
			t.Fatal(err)
		}
	}
	return resp.StatusCode, got, string(body)
}

// Components through /v1/rewards: returned beside the reward, the reward
// itself the outcome unless weights say otherwise (the server's or the
// request's), and logged in /metrics.
func TestRewardComponentsOverHTTP(t *testing.T) {
	_, hs := newTestServer(t, Config{Verify: verify.Config{Components: true}})
	items := []Item{
		{TaskID: "top", Completion: str("```sql\nSELECT order_id FROM orders ORDER BY order_id LIMIT 3\n```")},
		{TaskID: "top", Completion: str("```sql\nSELECT order_id FROM orders ORDER BY order_id LIMIT 2\n```")},
		{TaskID: "top", Completion: str("```sql\nSELECT 42\n```")},
		{TaskID: "top", Completion: str("```sql\nSELECT order_id FROM orders ORDER BY order_id LIMIT"), FinishReason: "length"},
	}
	code, got, body := rewards(t, hs.URL, RewardsRequest{Items: items})
	if code != 200 {
		t.Fatalf("%d %s", code, body)
	}
	want := []*float64{ptr(1), ptr(0.1), ptr(0.1), nil}
	for i, r := range got.Results {
		if !sameP(r.Reward, want[i]) {
			t.Errorf("item %d: reward %v, want %v (the default weights keep the outcome reward)", i, deref(r.Reward), deref(want[i]))
		}
	}
	near, nonsense := got.Results[1].Components, got.Results[2].Components
	if near[verify.CompRowPrecision] != 1 || near[verify.CompRowRecall] < 0.6 || near[verify.CompSchema] != 1 || nonsense[verify.CompRows] != 0 {
		t.Errorf("components: near miss %v, nonsense %v", near, nonsense)
	}
	if got.Results[3].Components != nil {
		t.Errorf("a truncated reply got components %v", got.Results[3].Components)
	}

	// The request's own weights: the near miss now outscores the nonsense.
	code, got, body = rewards(t, hs.URL, RewardsRequest{Items: items, Weights: map[string]float64{"outcome": 1, "rows": 0.5, "schema": 0.2}})
	if code != 200 {
		t.Fatalf("%d %s", code, body)
	}
	if r := got.Results; *r[1].Reward <= *r[2].Reward+0.3 || *r[0].Reward != 1+0.5+0.2 || r[3].Reward != nil {
		t.Errorf("weighted rewards %v %v %v %v", deref(r[0].Reward), deref(r[1].Reward), deref(r[2].Reward), deref(r[3].Reward))
	}
	code, _, body = rewards(t, hs.URL, RewardsRequest{Items: items[:1], Weights: map[string]float64{"nosuch": 1}})
	if code != 400 || !strings.Contains(body, "nosuch") {
		t.Errorf("unknown component: %d %s", code, body)
	}

	// /metrics has each component's distribution over training items.
	_, text := get(t, hs.URL+"/metrics")
	m := regexp.MustCompile(`sqlgym_serve_reward_component_count\{component="rows"\} (\S+)`).FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("no component series in /metrics:\n%s", text)
	}
	if n, _ := strconv.ParseFloat(m[1], 64); n != 6 {
		t.Errorf("rows observed %v times, want 6 (3 scored items x 2 requests)", n)
	}
}

func TestWeightsNeedComponents(t *testing.T) {
	_, hs := newTestServer(t, Config{})
	code, _, body := rewards(t, hs.URL, RewardsRequest{Items: []Item{{TaskID: "orders", SQL: str("SELECT 1")}}, Weights: map[string]float64{"rows": 1}})
	if code != 400 || !strings.Contains(body, "--components") {
		t.Errorf("weights on a server without components: %d %s", code, body)
	}
	// Without components, results carry none: the default is unchanged.
	code, got, _ := rewards(t, hs.URL, RewardsRequest{Items: []Item{{TaskID: "orders", SQL: str("SELECT 1")}}})
	if code != 200 || got.Results[0].Components != nil || *got.Results[0].Reward != 0.1 {
		t.Errorf("default server: %+v", got.Results)
	}
	// Server weights other than outcome=1 turn components on.
	w, _ := verify.ParseWeights("outcome=1,executes=0.5")
	_, hs2 := newTestServer(t, Config{RewardWeights: w})
	code, got, body = rewards(t, hs2.URL, RewardsRequest{Items: []Item{{TaskID: "orders", SQL: str("SELECT 1")}, {TaskID: "orders", SQL: str("SELECT nope")}}})
	if code != 200 || *got.Results[0].Reward != 0.6 || *got.Results[1].Reward != 0 || got.Results[1].Outcome != sqlgym.OutcomeError {
		t.Errorf("server weights: %d %s", code, body)
	}
}

func ptr(x float64) *float64 { return &x }

func sameP(a, b *float64) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

func deref(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}

// OpenRLHF logs every extra_logs key: each component is one list there.
func TestComponentsInOpenRLHFExtraLogs(t *testing.T) {
	_, hs := newTestServer(t, Config{Verify: verify.Config{Components: true}})
	resp, body := post(t, hs.URL+"/get_reward", OpenRLHFRequest{
		Query:  []string{"```sql\nSELECT order_id FROM orders ORDER BY order_id LIMIT 3\n```", "```sql\nSELECT 42\n```"},
		Labels: []string{"top", "top"},
	})
	var got OpenRLHFResponse
	if resp.StatusCode != 200 || json.Unmarshal(body, &got) != nil {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	if rows := got.ExtraLogs["sqlgym_c_rows"]; len(rows) != 2 || rows[0] != 1 || rows[1] != 0 {
		t.Errorf("sqlgym_c_rows = %v, want [1 0]", rows)
	}
	if got.Rewards[0] != 1 || got.Rewards[1] != 0.1 {
		t.Errorf("rewards %v: the default weights keep the outcome reward", got.Rewards)
	}
}

func TestComponentsInNemoGymVerify(t *testing.T) {
	_, hs := newTestServer(t, Config{Verify: verify.Config{Components: true}})
	for text, want := range map[string]float64{"```sql\nSELECT count(*) FROM orders\n```": 1, "```sql\nSELECT 42\n```": 0} {
		resp, raw := post(t, hs.URL+"/verify", verifyBody("orders", text, false))
		var got map[string]any
		if resp.StatusCode != 200 || json.Unmarshal(raw, &got) != nil {
			t.Fatalf("%d %s", resp.StatusCode, raw)
		}
		comps, _ := got["reward_components"].(map[string]any)
		if len(comps) != len(verify.ComponentNames) || comps["rows"] != want || got["sqlgym_c_rows"] != want {
			t.Errorf("%q: reward_components %v, sqlgym_c_rows %v, want rows %v", text, comps, got["sqlgym_c_rows"], want)
		}
	}
	// Same keys for an answer without a reward (masked): zeros.
	resp, raw := post(t, hs.URL+"/verify", verifyBody("orders", "```sql\nSELECT", true))
	var got map[string]any
	if resp.StatusCode != 200 || json.Unmarshal(raw, &got) != nil {
		t.Fatalf("%d %s", resp.StatusCode, raw)
	}
	if comps, _ := got["reward_components"].(map[string]any); len(comps) != len(verify.ComponentNames) || got["sqlgym_masked"] != 1.0 {
		t.Errorf("masked answer: %v", got)
	}
}
