package serve

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/sqlgym/sqlgym"
)

// SlimeRequest is the body slime's remote reward model posts for each
// sample (--rm-type remote_rm --rm-url URL; slime/rollout/rm_hub/
// __init__.py:34-39 at 624b824a8): the prompt (text or chat messages),
// the generated response alone, and the dataset's label column (a task
// id, or the export's {"task_id", "mode"} or {"db", "gold_sql"} object,
// as a JSON object or as text).
type SlimeRequest struct {
	Prompt   json.RawMessage `json:"prompt"`
	Response *string         `json:"response"`
	Label    json.RawMessage `json:"label"`
}

// SlimeReward is the answer's dict form: slime stores the body as the
// sample's reward and, with --reward-key reward, trains on "reward". Its
// group normalisation takes no null, so a null reward is 0 with
// sqlgym_masked 1, which the rollout sample filter in
// integrations/python/sqlgym_slime.py (--rollout-sample-filter-path)
// turns into slime's remove_sample.
type SlimeReward struct {
	Reward     float64            `json:"reward"`
	Masked     float64            `json:"sqlgym_masked"`
	Correct    float64            `json:"sqlgym_correct"`
	Truncated  float64            `json:"sqlgym_truncated"`
	Outcome    sqlgym.Outcome     `json:"outcome"`
	SQL        string             `json:"sql"`
	Components map[string]float64 `json:"components,omitempty"`
}

// handleSlime answers slime's remote reward model: one sample per request.
// The body is the reward as slime reads it: the dict above by default,
// a bare number with ?answer=number (for runs without --reward-key; a
// null reward is then 0, indistinguishable). A database outage is a 503,
// which slime's client retries with backoff (10 tries) and then raises, so
// an outage is never learned as 0.
func (s *Server) handleSlime(w http.ResponseWriter, r *http.Request) {
	var req SlimeRequest
	if !s.decode(w, r, &req) {
		return
	}
	if req.Response == nil {
		s.fail(w, badRequest(`request body has no "response": slime's remote RM sends {"prompt", "response", "label"}`))
		return
	}
	s.checkSize(w, 1)
	item, err := slimeItem(req.Label)
	if err != nil {
		s.fail(w, err)
		return
	}
	item.Completion = req.Response
	rr, err := s.scoreOne(r.Context(), item)
	if err != nil {
		s.fail(w, err)
		return
	}
	out := SlimeReward{Outcome: rr.Outcome, SQL: rr.SQL, Components: rr.Components}
	if rr.Reward == nil {
		out.Masked = 1
	} else {
		out.Reward = *rr.Reward
	}
	if rr.Outcome == sqlgym.OutcomeCorrect {
		out.Correct = 1
	}
	if rr.Outcome == sqlgym.OutcomeTruncated {
		out.Truncated = 1
	}
	if r.URL.Query().Get("answer") == "number" {
		s.writeJSON(w, http.StatusOK, out.Reward)
		return
	}
	s.writeJSON(w, http.StatusOK, out)
}

// slimeItem reads the task a slime label names: a task id, or an object
// (JSON, or JSON text) with task_id and mode, or db and gold_sql.
func slimeItem(label json.RawMessage) (Item, error) {
	var it Item
	raw := strings.TrimSpace(string(label))
	if raw == "" || raw == "null" {
		return it, badRequest(`the sample has no label: give slime the export's label column (--label-key label)`)
	}
	if strings.HasPrefix(raw, `"`) {
		var text string
		if err := json.Unmarshal(label, &text); err != nil {
			return it, badRequest("label: %v", err)
		}
		text = strings.TrimSpace(text)
		if !strings.HasPrefix(text, "{") {
			it.TaskID = text
			return it, nil
		}
		raw = text
	}
	if !strings.HasPrefix(raw, "{") {
		return it, badRequest("label %s: a task id or a {\"task_id\"} / {\"db\", \"gold_sql\"} object", raw)
	}
	if err := json.Unmarshal([]byte(raw), &it); err != nil {
		return it, badRequest("label: not a task id nor a {\"task_id\"} / {\"db\", \"gold_sql\"} object: %v", err)
	}
	it.Completion, it.SQL = nil, nil
	return it, nil
}
