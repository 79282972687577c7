package serve

import (
	"bytes"
	"flag"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/sqlgym/sqlgym/verify"
)

var updateGolden = flag.Bool("update", false, "rewrite testdata/*.golden from the current output")

// checkWireGolden compares a response body with testdata/name: trainers
// and the Python shims read these bodies by field name, so the names,
// their order and which are left out must not move when the Go types
// behind them do.
func checkWireGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *updateGolden || os.Getenv("SQLGYM_UPDATE_GOLDEN") == "1" {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -run %s -update writes it)", err, t.Name())
	}
	if !bytes.Equal(got, want) {
		t.Errorf("body differs from %s (the wire format changed):\n got %s\nwant %s", path, got, want)
	}
}

// A /v1/rewards answer holding each kind of result: correct and wrong
// with reward components, an error, a truncated reply, no query, and a
// task the server does not hold.
func TestRewardsResponseGolden(t *testing.T) {
	_, hs := newTestServer(t, Config{RewardWeights: verify.Weights{"outcome": 1, "rows": 0.5}})
	resp, raw := post(t, hs.URL+"/v1/rewards", []byte(`{"items": [
		{"task_id": "orders", "sql": "SELECT COUNT(*) FROM orders"},
		{"task_id": "top", "sql": "SELECT order_id FROM orders ORDER BY order_id LIMIT 2"},
		{"task_id": "orders", "sql": "SELECT count(*) FROM nope"},
		{"task_id": "orders", "completion": "SELECT count(", "finish_reason": "length"},
		{"task_id": "orders", "completion": "I do not know."},
		{"task_id": "missing", "sql": "SELECT 1"}]}`))
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("%d %s", resp.StatusCode, raw)
	}
	checkWireGolden(t, "rewards.golden.json", raw)
}

// Episode steps: one that goes on (no verdict yet), the submitting one
// (the verdict and the counters), and an episode the trainer ends.
func TestEpisodeStepResponseGolden(t *testing.T) {
	_, hs := newTestServer(t, Config{})
	code, ep, raw := startEpisode(t, hs.URL, map[string]string{"task_id": "orders"})
	if code != http.StatusOK {
		t.Fatalf("start: %d %s", code, raw)
	}
	code, _, raw = step(t, hs.URL, ep.ID, `{"message": {"role": "assistant", "content": "", "tool_calls": [
		{"id": "c2", "type": "function", "function": {"name": "run_sql", "arguments": {"sql": "SELECT count(*) FROM order"}}}]}}`)
	if code != http.StatusOK {
		t.Fatalf("step 1: %d %s", code, raw)
	}
	steps := append(append([]byte{}, raw...), '\n')
	code, _, raw = step(t, hs.URL, ep.ID, `{"message": {"role": "assistant", "content": "Fixed.", "tool_calls": [
		{"id": "c3", "type": "function", "function": {"name": "submit", "arguments": "{\"sql\": \"SELECT order_id FROM orders\"}"}}]}}`)
	if code != http.StatusOK {
		t.Fatalf("step 2: %d %s", code, raw)
	}
	steps = append(append(steps, raw...), '\n')

	code, ep, raw = startEpisode(t, hs.URL, map[string]string{"task_id": "top", "protocol": "text"})
	if code != http.StatusOK {
		t.Fatalf("start: %d %s", code, raw)
	}
	req, _ := http.NewRequest(http.MethodDelete, hs.URL+"/v1/episodes/"+ep.ID, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var body bytes.Buffer
	body.ReadFrom(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("delete: %d %s", resp.StatusCode, body.Bytes())
	}
	steps = append(append(steps, body.Bytes()...), '\n')
	checkWireGolden(t, "steps.golden.jsonl", steps)
}
