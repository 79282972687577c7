package serve

import (
	"net/http"
	"strings"

	"github.com/sqlgym/sqlgym"
)

// handleOpenRLHF answers OpenRLHF's remote reward protocol. Its tensors
// take no null, so an answer without a reward (a truncated reply, a broken
// gold) is sent as reward 0 with extra_logs.sqlgym_masked 1; a database
// outage fails the whole request with 503, which OpenRLHF's client retries
// and, if the outage lasts, stops the run on: a trainer never learns 0
// from an outage.
func (s *Server) handleOpenRLHF(w http.ResponseWriter, r *http.Request) {
	var req OpenRLHFRequest
	if !s.decode(w, r, &req) {
		return
	}
	if req.Query == nil {
		s.fail(w, badRequest(`request body has no "query" array: OpenRLHF sends {"query": [...], "prompts": [...], "labels": [...]}`))
		return
	}
	if !s.checkSize(w, len(req.Query)) {
		return
	}
	if len(req.Labels) != len(req.Query) {
		s.fail(w, badRequest("%d queries but %d labels: pass the export's label column with --data.label_key label", len(req.Query), len(req.Labels)))
		return
	}
	if len(req.Prompts) != 0 && len(req.Prompts) != len(req.Query) {
		s.fail(w, badRequest("%d queries but %d prompts", len(req.Query), len(req.Prompts)))
		return
	}
	items := make([]Item, len(req.Query))
	for i, q := range req.Query {
		var p string
		if len(req.Prompts) > 0 {
			p = req.Prompts[i]
		}
		c := responseOf(q, p)
		items[i] = Item{Completion: &c}
		label := strings.TrimSpace(req.Labels[i])
		if strings.HasPrefix(label, "{") {
			// A label may be an object: {"task_id": ..., "mode": "eval"}
			// (a held-out row of an export), or an ad-hoc task {"db": ...,
			// "gold_sql": ...}.
			if err := unmarshalStrict([]byte(label), &items[i]); err != nil {
				s.fail(w, badRequest("label %d: not a task id nor a {\"db\", \"gold_sql\"} object: %v", i, err))
				return
			}
			items[i].Completion, items[i].SQL = &c, nil
		} else {
			items[i].TaskID = label
		}
	}
	res, err := s.score(r.Context(), items)
	if err != nil {
		s.fail(w, err)
		return
	}
	out := OpenRLHFResponse{
		Rewards: make([]float64, len(res)),
		Scores:  make([]float64, len(res)),
		ExtraLogs: map[string][]float64{
			"sqlgym_masked":    make([]float64, len(res)),
			"sqlgym_correct":   make([]float64, len(res)),
			"sqlgym_truncated": make([]float64, len(res)),
		},
	}
	for i, rr := range res {
		if rr.Outcome == sqlgym.OutcomeInfraError {
			s.fail(w, errInfra{rr.Detail})
			return
		}
		if rr.Reward == nil {
			out.ExtraLogs["sqlgym_masked"][i] = 1
		} else {
			out.Rewards[i] = *rr.Reward
		}
		if rr.Outcome == sqlgym.OutcomeCorrect {
			// scores is correctness: --algo.dynamic_filtering_range
			// compares a group's mean score with 0 and 1.
			out.Scores[i] = 1
			out.ExtraLogs["sqlgym_correct"][i] = 1
		}
		if rr.Outcome == sqlgym.OutcomeTruncated {
			out.ExtraLogs["sqlgym_truncated"][i] = 1
		}
	}
	componentLogs(out.ExtraLogs, res)
	s.writeJSON(w, http.StatusOK, out)
}

// errInfra fails an OpenRLHF request whose batch met a database outage.
type errInfra struct{ detail string }

func (e errInfra) Error() string {
	return "a database could not be used, so this batch has no rewards (retry): " + e.detail
}
