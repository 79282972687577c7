package serve

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/agent"
	"github.com/sqlgym/sqlgym/model"
	"github.com/sqlgym/sqlgym/verify"
)

// Multi-turn NeMo-Gym rollouts (NVIDIA-NeMo/Gym v0.5.0). NeMo-Gym keeps a
// rollout's state in a session cookie: its resources servers read the
// session id from a signed Starlette session cookie (nemo_gym/
// server_utils.py:557-577, resources_servers/example_session_state_mgmt/
// app.py:67-95), and simple_agent carries the cookies the resources
// server set from /seed_session to every tool call and on to /verify
// (responses_api_agents/simple_agent/app.py:81, :148-155, :169-170,
// :179-206). sqlgym keeps the episode id in its own cookie instead: the
// agent forwards whatever cookies the server set. It forwards only the
// cookies of the last response (aiohttp's response.cookies, app.py:155),
// so every tool answer sets the cookie again, as NeMo-Gym's own
// middleware does (server_utils.py:570).
//
// Each tool call is one POST /<tool name> with the parsed arguments as its
// body (app.py:130-153), and the body of the answer, read as text, is the
// tool output the model sees (app.py:157-161). A call is one episode step
// of one tool call (Reply.Partial): the agent sends an assistant message's
// calls one by one, and its max_steps bounds the model turns.

// NemoGymCookie holds the episode id of a NeMo-Gym rollout.
const NemoGymCookie = "sqlgym_episode"

// nemoTools are the tool routes: the episode's tools (agent/tools.go).
var nemoTools = []string{agent.ToolListTables, agent.ToolDescribeTable, agent.ToolRunSQL, agent.ToolSubmit}

// nemoAgentRow reports whether a NeMo-Gym row is an agent-mode row: one
// exported with `sqlgym export --agent --format nemo-gym`.
func nemoAgentRow(body map[string]json.RawMessage) (protocol string, ok bool) {
	if raw, found := body["protocol"]; found && json.Unmarshal(raw, &protocol) == nil && protocol != "" {
		return protocol, true
	}
	return "", false
}

// nemoEval reports a row of a validation export (split "holdout"): an
// evaluation request, as the other trainers' shims send it.
func nemoEval(body map[string]json.RawMessage) bool {
	var split string
	raw, ok := body["split"]
	return ok && json.Unmarshal(raw, &split) == nil && split == sqlgym.SplitHoldout
}

// seedEpisode opens the episode of an agent-mode row and binds it to the
// rollout by the cookie.
func (s *Server) seedEpisode(w http.ResponseWriter, r *http.Request, body map[string]json.RawMessage, protocol string) {
	if protocol != string(agent.ProtocolTools) {
		s.fail(w, badRequest("protocol %s: NeMo-Gym's agents call tools, so a NeMo-Gym agent row is exported with `sqlgym export --agent --protocol tools --format nemo-gym`", quote(protocol)))
		return
	}
	var taskID string
	if raw, ok := body["task_id"]; !ok || json.Unmarshal(raw, &taskID) != nil || taskID == "" {
		s.fail(w, badRequest("the agent-mode row has no task_id: export it with `sqlgym export --agent --format nemo-gym`"))
		return
	}
	id, _, env, err := s.openEpisode(r.Context(), taskID, agent.ProtocolTools, nemoEval(body))
	if err != nil {
		s.fail(w, err)
		return
	}
	setEpisodeCookie(w, id)
	s.writeJSON(w, http.StatusOK, map[string]any{"sqlgym_episode_id": id, "max_turns": env.Config().MaxTurns})
}

func setEpisodeCookie(w http.ResponseWriter, id string) {
	http.SetCookie(w, &http.Cookie{Name: NemoGymCookie, Value: id, Path: "/", HttpOnly: true})
}

// sessionEpisode finds the rollout's episode from its cookie, answering
// the error itself when there is none.
func (s *Server) sessionEpisode(w http.ResponseWriter, r *http.Request, route string) (string, *agent.Episode, bool, bool) {
	c, err := r.Cookie(NemoGymCookie)
	if err != nil || c.Value == "" {
		s.m.rejected.WithLabelValues("bad_request").Inc()
		s.writeError(w, http.StatusBadRequest, route+": no "+NemoGymCookie+" cookie, so no episode to act on: "+
			"POST /seed_session with the row of `sqlgym export --agent --format nemo-gym` first and send the cookies it sets "+
			"(NeMo-Gym's simple_agent does; a custom agent must forward the resources server's cookies)")
		return "", nil, false, false
	}
	ep, eval := s.eps.get(c.Value)
	if ep == nil {
		s.episodeNotFound(w, c.Value)
		return "", nil, false, false
	}
	return c.Value, ep, eval, true
}

// handleNemoTool runs one tool call of a NeMo-Gym rollout as an episode
// step and answers the observation as the tool output.
func (s *Server) handleNemoTool(name string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id, ep, _, ok := s.sessionEpisode(w, r, "/"+name)
		if !ok {
			return
		}
		var args json.RawMessage
		if !s.decode(w, r, &args) {
			return
		}
		setEpisodeCookie(w, id)
		reply := agent.Reply{Partial: true, ToolCalls: []sqlgym.ToolCall{{Name: name, Arguments: argumentsText(args)}}}
		res, err := s.step(r.Context(), ep, reply)
		if errors.Is(err, agent.ErrDone) {
			s.writeError(w, http.StatusConflict, "the episode has ended (a submission, or its call budget spent): answer without tool calls")
			return
		}
		if err != nil {
			s.fail(w, err)
			return
		}
		// The episode stays open when done: /verify reads its verdict.
		parts := make([]string, 0, len(res.Observations))
		for _, o := range res.Observations {
			parts = append(parts, o.Content)
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write([]byte(strings.Join(parts, "\n")))
	}
}

// verifyEpisode ends the rollout's episode and answers its reward. An
// episode the model left without a submission is judged as the end of its
// turns would be; a last reply cut at the token limit makes it truncated.
func (s *Server) verifyEpisode(w http.ResponseWriter, r *http.Request, body map[string]json.RawMessage, resp *NemoGymResponse) {
	id, ep, eval, ok := s.sessionEpisode(w, r, "/verify")
	if !ok {
		return
	}
	var res *verify.Result
	// The episode is dropped only once the slot is held: a verify turned
	// away (429, deadline) leaves it for NeMo-Gym's retry.
	err := s.underSlot(r.Context(), ep.Task().DB, func(ctx context.Context) error {
		if !s.eps.drop(id) {
			return errEpisodeGone
		}
		if resp.cut() {
			if sr, err := ep.Step(ctx, agent.Reply{Content: resp.text(), FinishReason: model.FinishLength}); err == nil {
				res = sr.Result
				return nil
			}
		}
		res = ep.Stop(ctx)
		return nil
	})
	if errors.Is(err, errEpisodeGone) {
		s.episodeNotFound(w, id)
		return
	}
	if err != nil {
		s.fail(w, err)
		return
	}
	s.countOutcome(eval, res.Outcome)
	if res.Outcome == sqlgym.OutcomeInfraError {
		s.fail(w, errInfra{res.Detail})
		return
	}
	out := nemoVerifyAnswer(body, res.Reward, res.Outcome, res.SQL, res.Detail)
	st := ep.Stats()
	out["sqlgym_stats"] = st
	s.writeJSON(w, http.StatusOK, out)
}

// nemoVerifyAnswer is the verify request with the reward added
// (BaseVerifyResponse extends BaseVerifyRequest). NeMo-Gym needs a number:
// no reward is 0 with sqlgym_masked 1.
func nemoVerifyAnswer(body map[string]json.RawMessage, r *float64, o sqlgym.Outcome, sql, detail string) map[string]any {
	out := make(map[string]any, len(body)+7)
	for k, v := range body {
		out[k] = v
	}
	reward, masked := 0.0, 1.0
	if r != nil {
		reward, masked = *r, 0
	}
	out["reward"] = reward
	out["sqlgym_masked"] = masked
	out["sqlgym_correct"] = b2f(o == sqlgym.OutcomeCorrect)
	out["sqlgym_outcome"] = o
	out["sqlgym_sql"] = sql
	out["sqlgym_detail"] = detail
	return out
}
