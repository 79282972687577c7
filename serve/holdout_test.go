package serve

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// With --eval-holdout a held-out task is scored on evaluation requests
// (mode eval) on every route, counted apart in /metrics, and still
// refused on training requests; without it, evaluation requests for it
// are refused too, naming the flag.
func TestEvalHoldout(t *testing.T) {
	_, hs := newTestServer(t, Config{EvalHoldout: true})
	gold := "SELECT count(*) FROM customers"
	resp, body := post(t, hs.URL+"/v1/rewards", RewardsRequest{Items: []Item{
		{TaskID: "secret", SQL: str(gold), Mode: ModeEval},
		{TaskID: "secret", SQL: str("SELECT 1"), Mode: ModeEval},
		{TaskID: "orders", SQL: str("SELECT count(*) FROM orders"), Mode: ModeEval}, // a train task may be validated on too
	}})
	var got RewardsResponse
	if err := json.Unmarshal(body, &got); err != nil || resp.StatusCode != 200 {
		t.Fatalf("eval request: %d %s", resp.StatusCode, body)
	}
	if got.Results[0].Outcome != "correct" || got.Results[1].Outcome != "wrong" || got.Results[2].Outcome != "correct" {
		t.Fatalf("eval results %+v", got.Results)
	}
	// Training requests: refused, saying how to validate.
	for _, mode := range []string{"", ModeTrain} {
		resp, body = post(t, hs.URL+"/v1/rewards", RewardsRequest{Items: []Item{{TaskID: "secret", SQL: str(gold), Mode: mode}}})
		if resp.StatusCode != 400 || !strings.Contains(string(body), `scored only on evaluation requests`) {
			t.Errorf("training request (mode %q) on a held-out task: %d %s", mode, resp.StatusCode, body)
		}
	}
	resp, body = post(t, hs.URL+"/v1/rewards", RewardsRequest{Items: []Item{{TaskID: "orders", SQL: str(gold), Mode: "test"}}})
	if resp.StatusCode != 400 || !strings.Contains(string(body), `mode \"test\"`) {
		t.Errorf("unknown mode: %d %s", resp.StatusCode, body)
	}
	// OpenRLHF: the export's label of a held-out row carries the mode.
	resp, body = post(t, hs.URL+"/get_reward", OpenRLHFRequest{Query: []string{gold}, Labels: []string{`{"task_id": "secret", "mode": "eval"}`}})
	var orl OpenRLHFResponse
	if err := json.Unmarshal(body, &orl); err != nil || resp.StatusCode != 200 || orl.Scores[0] != 1 {
		t.Fatalf("OpenRLHF eval label: %d %s", resp.StatusCode, body)
	}
	resp, body = post(t, hs.URL+"/get_reward", OpenRLHFRequest{Query: []string{gold}, Labels: []string{"secret"}})
	if resp.StatusCode != 400 {
		t.Errorf("OpenRLHF training label on a held-out task: %d %s", resp.StatusCode, body)
	}
	// Episodes: an eval episode opens; a training one does not.
	if code, _, raw := startEpisode(t, hs.URL, map[string]string{"task_id": "secret"}); code != 400 {
		t.Errorf("training episode on a held-out task: %d %s", code, raw)
	}
	code, ep, raw := startEpisode(t, hs.URL, map[string]string{"task_id": "secret", "mode": "eval"})
	if code != 200 {
		t.Fatalf("eval episode: %d %s", code, raw)
	}
	code, sr, raw := step(t, hs.URL, ep.ID, `{"message": {"role": "assistant", "tool_calls": [
		{"id": "c1", "type": "function", "function": {"name": "submit", "arguments": {"sql": "SELECT 2"}}}]}}`)
	if code != 200 || !sr.Done || sr.Outcome != "wrong" {
		t.Fatalf("eval episode step: %d %s", code, raw)
	}

	// Evaluation is counted apart: 3 correct (two items, one OpenRLHF) and
	// 2 wrong (an item, the episode); the training series saw nothing.
	_, text := get(t, hs.URL+"/metrics")
	for _, want := range []string{
		`sqlgym_serve_eval_outcomes_total{outcome="correct"} 3`,
		`sqlgym_serve_eval_outcomes_total{outcome="wrong"} 2`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
	if strings.Contains(text, `sqlgym_serve_outcomes_total{`) {
		t.Errorf("evaluation counted in the training series:\n%s", grepLines(text, "outcomes_total"))
	}

	// Without --eval-holdout, an evaluation request names the flag.
	_, plain := newTestServer(t, Config{})
	resp, body = post(t, plain.URL+"/v1/rewards", RewardsRequest{Items: []Item{{TaskID: "secret", SQL: str(gold), Mode: ModeEval}}})
	if resp.StatusCode != 400 || !strings.Contains(string(body), "--eval-holdout") {
		t.Errorf("eval request without --eval-holdout: %d %s", resp.StatusCode, body)
	}
	if code, _, raw := startEpisode(t, plain.URL, map[string]string{"task_id": "secret", "mode": "eval"}); code != http.StatusBadRequest || !strings.Contains(string(raw), "--eval-holdout") {
		t.Errorf("eval episode without --eval-holdout: %d %s", code, raw)
	}
}

func grepLines(text, sub string) string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
