package serve

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym"
)

// One stale task id must not cost a trainer the rest of its batch: the
// others are scored and that item alone carries a null reward naming it.
func TestUnknownTaskIsPerItem(t *testing.T) {
	_, hs := newTestServer(t, Config{})
	resp, body := post(t, hs.URL+"/v1/rewards", RewardsRequest{Items: []Item{
		{TaskID: "orders", SQL: str("SELECT count(*) FROM orders")},
		{TaskID: "gone", SQL: str("SELECT 1")},
		{TaskID: "orders", SQL: str("SELECT count(*) + 1 FROM orders")},
	}})
	if resp.StatusCode != 200 {
		t.Fatalf("status %d, want 200: %s", resp.StatusCode, body)
	}
	var rr RewardsResponse
	if err := json.Unmarshal(body, &rr); err != nil {
		t.Fatal(err)
	}
	if len(rr.Results) != 3 {
		t.Fatalf("%d results, want 3: %s", len(rr.Results), body)
	}
	if r := rr.Results[0]; r.Outcome != sqlgym.OutcomeCorrect || r.Reward == nil || *r.Reward != 1 {
		t.Errorf("item 0: %+v, want correct with reward 1", r)
	}
	u := rr.Results[1]
	if u.Outcome != OutcomeUnknownTask || u.Reward != nil || !strings.Contains(u.Detail, `"gone"`) {
		t.Errorf("item 1: %+v, want unknown_task, null reward, detail naming \"gone\"", u)
	}
	if !strings.Contains(string(body), `"reward":null`) {
		t.Errorf("the unknown item's reward must be JSON null: %s", body)
	}
	if r := rr.Results[2]; r.Outcome == OutcomeUnknownTask || r.Reward == nil {
		t.Errorf("item 2: %+v, want scored", r)
	}

	// A body of the wrong shape is still the client's error.
	resp, body = post(t, hs.URL+"/v1/rewards", []byte(`{"items": {"task_id": "orders"}}`))
	if resp.StatusCode != 400 {
		t.Errorf("wrong shape: status %d, want 400: %s", resp.StatusCode, body)
	}
}
