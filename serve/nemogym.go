package serve

import (
	"encoding/json"
	"math"
	"net/http"
	"sort"
	"strings"
)

// NeMo-Gym's resources-server protocol (NVIDIA-NeMo/Gym v0.5.0,
// nemo_gym/base_resources_server.py:88-99 and :136-147): an agent posts
// /seed_session before a rollout, /verify with the row's fields plus the
// model's Responses-API "response", and /aggregate_metrics with the verify
// responses of a run. A verify answer is the request with "reward" added
// (BaseVerifyResponse extends BaseVerifyRequest) and must carry a number:
// an answer without a reward (a truncated reply, a broken gold) is sent as
// 0 with sqlgym_masked 1, and a database outage is a 503, which the
// agent's raise_for_status turns into a failed rollout, never a 0.

// NemoGymResponse is the part of a Responses-API response /verify reads.
type NemoGymResponse struct {
	Status            string `json:"status"`
	IncompleteDetails *struct {
		Reason string `json:"reason"`
	} `json:"incomplete_details"`
	Output []struct {
		Type    string `json:"type"`
		Role    string `json:"role"`
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
	} `json:"output"`
}

// text is the reply's text: the output_text parts of its assistant
// messages, joined as the OpenAI SDK's Response.output_text joins them.
func (r *NemoGymResponse) text() string {
	var b strings.Builder
	for _, o := range r.Output {
		if o.Type != "message" || (o.Role != "" && o.Role != "assistant") {
			continue
		}
		for _, c := range o.Content {
			if c.Type == "output_text" {
				b.WriteString(c.Text)
			}
		}
	}
	return b.String()
}

// cut reports a reply stopped by the output token limit (status
// "incomplete", reason "max_output_tokens").
func (r *NemoGymResponse) cut() bool {
	return r.IncompleteDetails != nil && r.IncompleteDetails.Reason == "max_output_tokens"
}

func (s *Server) handleSeedSession(w http.ResponseWriter, r *http.Request) {
	var body map[string]json.RawMessage
	if !s.decode(w, r, &body) {
		return
	}
	if protocol, ok := nemoAgentRow(body); ok {
		s.seedEpisode(w, r, body, protocol)
		return
	}
	// A single-turn row needs no state on the server.
	s.writeJSON(w, http.StatusOK, map[string]any{})
}

func (s *Server) handleVerify(w http.ResponseWriter, r *http.Request) {
	var body map[string]json.RawMessage
	if !s.decode(w, r, &body) {
		return
	}
	var (
		resp NemoGymResponse
		it   Item
	)
	if raw, ok := body["response"]; !ok || unmarshalStrict(raw, &resp) != nil {
		s.fail(w, badRequest(`the verify body has no Responses-API "response" object`))
		return
	}
	if _, ok := nemoAgentRow(body); ok {
		s.verifyEpisode(w, r, body, &resp)
		return
	}
	for key, dst := range map[string]*string{"task_id": &it.TaskID, "db": &it.DB, "gold_sql": &it.GoldSQL} {
		if raw, ok := body[key]; ok {
			if err := json.Unmarshal(raw, dst); err != nil {
				s.fail(w, badRequest("%s: %v", key, err))
				return
			}
		}
	}
	switch {
	case it.TaskID != "":
		// The row's db is the task's; only a row without a task id is ad hoc.
		it.DB, it.GoldSQL = "", ""
	case it.DB == "" || it.GoldSQL == "":
		s.fail(w, badRequest("the row has no task_id (nor db and gold_sql): export it with `sqlgym export --format nemo-gym`"))
		return
	}
	if nemoEval(body) {
		it.Mode = ModeEval
	}
	text := resp.text()
	it.Completion = &text
	if resp.cut() {
		it.FinishReason = "length"
	}
	rr, err := s.scoreOne(r.Context(), it)
	if err != nil {
		s.fail(w, err)
		return
	}
	out := nemoVerifyAnswer(body, rr.Reward, rr.Outcome, rr.SQL, rr.Detail)
	s.nemoComponents(out, rr)
	s.writeJSON(w, http.StatusOK, out)
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// NeMo-Gym's rollout keys (nemo_gym/global_config.py:129-130).
const (
	nemoTaskIndex    = "_ng_task_index"
	nemoRolloutIndex = "_ng_rollout_index"
)

// AggregateRequest is the body of /aggregate_metrics
// (nemo_gym/config_types.py:762-770).
type AggregateRequest struct {
	VerifyResponses []map[string]json.RawMessage `json:"verify_responses"`
}

// AggregateResponse is NeMo-Gym's AggregateMetrics
// (nemo_gym/config_types.py:773-790): flat keys, "<field>/<stat>" as its
// RewardProfiler names them.
type AggregateResponse struct {
	GroupLevel []map[string]any `json:"group_level_metrics"`
	Agent      map[string]any   `json:"agent_metrics"`
	Key        map[string]any   `json:"key_metrics"`
}

// handleAggregate summarises verify responses per task and over the run.
// Masked rollouts (no reward to learn from) are counted, not averaged:
// their 0 is not the model's.
func (s *Server) handleAggregate(w http.ResponseWriter, r *http.Request) {
	var req AggregateRequest
	if !s.decode(w, r, &req) {
		return
	}
	type acc struct{ rewards, correct []float64 }
	byTask := map[int64]*acc{}
	var all acc
	masked := 0
	for i, vr := range req.VerifyResponses {
		var task int64
		if raw, ok := vr[nemoTaskIndex]; ok {
			if err := json.Unmarshal(raw, &task); err != nil {
				s.fail(w, badRequest("verify_responses[%d].%s: %v", i, nemoTaskIndex, err))
				return
			}
		}
		var reward, m, c float64
		if err := json.Unmarshal(vr["reward"], &reward); err != nil {
			s.fail(w, badRequest("verify_responses[%d].reward: not a number", i))
			return
		}
		_ = json.Unmarshal(vr["sqlgym_masked"], &m)
		_ = json.Unmarshal(vr["sqlgym_correct"], &c)
		if m == 1 {
			masked++
			continue
		}
		a := byTask[task]
		if a == nil {
			a = &acc{}
			byTask[task] = a
		}
		a.rewards, a.correct = append(a.rewards, reward), append(a.correct, c)
		all.rewards, all.correct = append(all.rewards, reward), append(all.correct, c)
	}
	out := AggregateResponse{GroupLevel: []map[string]any{}, Agent: map[string]any{}, Key: map[string]any{}}
	tasks := make([]int64, 0, len(byTask))
	for t := range byTask {
		tasks = append(tasks, t)
	}
	sort.Slice(tasks, func(i, j int) bool { return tasks[i] < tasks[j] })
	for _, t := range tasks {
		g := map[string]any{nemoTaskIndex: t, "num_rollouts": len(byTask[t].rewards)}
		describe(g, "reward", byTask[t].rewards)
		describe(g, "sqlgym_correct", byTask[t].correct)
		out.GroupLevel = append(out.GroupLevel, g)
	}
	describe(out.Agent, "reward", all.rewards)
	describe(out.Agent, "sqlgym_correct", all.correct)
	out.Agent["sqlgym_masked_rollouts"] = masked
	out.Agent["num_rollouts"] = len(req.VerifyResponses)
	for _, k := range []string{"reward/mean", "sqlgym_correct/mean"} {
		if v, ok := out.Agent[k]; ok {
			out.Key[k] = v
		}
	}
	s.writeJSON(w, http.StatusOK, out)
}

// describe adds mean, max, min, median and std of xs under name/..., as
// NeMo-Gym's RewardProfiler computes and names them (pandas' sample std,
// 0 for a single value: nemo_gym/reward_profile.py:169-183); nothing for
// no xs.
func describe(into map[string]any, name string, xs []float64) {
	if len(xs) == 0 {
		return
	}
	sorted := append([]float64(nil), xs...)
	sort.Float64s(sorted)
	var sum float64
	for _, x := range xs {
		sum += x
	}
	mean := sum / float64(len(xs))
	var ss float64
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	n := len(sorted)
	median := sorted[n/2]
	if n%2 == 0 {
		median = (sorted[n/2-1] + sorted[n/2]) / 2
	}
	into[name+"/mean"] = mean
	into[name+"/max"] = sorted[n-1]
	into[name+"/min"] = sorted[0]
	into[name+"/median"] = median
	std := 0.0
	if n > 1 {
		std = math.Sqrt(ss / float64(n-1))
	}
	into[name+"/std"] = std
}
