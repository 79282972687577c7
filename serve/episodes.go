package serve

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"sync"
	"time"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/agent"
	"github.com/sqlgym/sqlgym/chatwire"
	"github.com/sqlgym/sqlgym/internal/jsonl"
	"github.com/sqlgym/sqlgym/model"
	"github.com/sqlgym/sqlgym/verify"
)

// The episode API: a multi-turn trainer plays package agent's loop over
// HTTP. POST /v1/episodes opens an episode of a task; each POST
// /v1/episodes/{id}/step brings the model's next assistant message and
// gets the observations back, and the last one the reward. The episode's
// queries run in the task database's sandbox and its submission is judged
// by the server's verifier: the reward is the one /v1/rewards gives.

// EpisodeRequest is the body of POST /v1/episodes.
type EpisodeRequest struct {
	TaskID string `json:"task_id"`
	// Protocol is "tools" (default) or "text".
	Protocol string `json:"protocol,omitempty"`
	// Mode "eval" opens a validation episode (see Item.Mode).
	Mode string `json:"mode,omitempty"`
}

// EpisodeResponse opens an episode: the messages to send the model first,
// and the tools to offer it (tools protocol).
type EpisodeResponse struct {
	ID       string             `json:"episode_id"`
	Protocol string             `json:"protocol"`
	MaxTurns int                `json:"max_turns"`
	Messages []chatwire.Message `json:"messages"`
	Tools    []WireTool         `json:"tools,omitempty"`
}

// StepRequest is the body of POST /v1/episodes/{id}/step.
type StepRequest struct {
	Message chatwire.Message `json:"message"`
	// FinishReason "length" says the message was cut at the token limit:
	// the episode ends truncated, with no reward.
	FinishReason string `json:"finish_reason,omitempty"`
	// CompletionTokens, when the trainer sends it, counts toward the
	// episode's token budget (--token-budget).
	CompletionTokens int `json:"completion_tokens,omitempty"`
	// Partial says the message is one tool call of an assistant message
	// the client sees only call by call (TRL's environment_factory): it
	// costs no turn, since a turn is a whole assistant message; the
	// trainer bounds the messages (agent.Reply.Partial).
	Partial bool `json:"partial,omitempty"`
}

// StepResponse answers a step. The verdict is set once Done; its reward
// stays null for outcomes that carry none (truncated, infra_error).
type StepResponse struct {
	Observations []chatwire.Message `json:"observations"`
	Done         bool               `json:"done"`
	Turn         int                `json:"turn"`
	sqlgym.Verdict
	Stats *agent.Stats `json:"stats,omitempty"`
}

// stepJSON is a StepResponse as the episode API has always written it:
// of the verdict, the reward, outcome, SQL and detail.
type stepJSON struct {
	Observations []chatwire.Message `json:"observations"`
	Done         bool               `json:"done"`
	Turn         int                `json:"turn"`
	Reward       *float64           `json:"reward"`
	Outcome      sqlgym.Outcome     `json:"outcome,omitempty"`
	SQL          string             `json:"sql,omitempty"`
	Detail       string             `json:"detail,omitempty"`
	Stats        *agent.Stats       `json:"stats,omitempty"`
}

// MarshalJSON writes the episode API's shape of a step.
func (r StepResponse) MarshalJSON() ([]byte, error) {
	return jsonl.Marshal(stepJSON{Observations: r.Observations, Done: r.Done, Turn: r.Turn,
		Reward: r.Reward, Outcome: r.Outcome, SQL: r.SQL, Detail: r.Detail, Stats: r.Stats})
}

// WireTool is a tool definition in the OpenAI shape.
type WireTool struct {
	Type     string `json:"type"`
	Function struct {
		Name        string          `json:"name"`
		Description string          `json:"description,omitempty"`
		Parameters  json.RawMessage `json:"parameters,omitempty"`
	} `json:"function"`
}

// episodes holds the open episodes, each dropped once done or idle past
// the TTL.
type episodes struct {
	ttl time.Duration
	max int
	now func() time.Time

	replica string // the ids' prefix (replica.go)

	mu   sync.Mutex
	open map[string]*openEpisode
}

type openEpisode struct {
	ep   *agent.Episode
	eval bool // opened with mode eval: its outcome is counted apart
	last time.Time
}

var errEpisodesFull = errors.New("too many open episodes")

func newEpisodes(replica string, ttl time.Duration, max int) *episodes {
	return &episodes{replica: replica, ttl: ttl, max: max, now: time.Now, open: map[string]*openEpisode{}}
}

// sweep drops idle episodes; the caller holds mu.
func (e *episodes) sweep() {
	now := e.now()
	for id, o := range e.open {
		if now.Sub(o.last) > e.ttl {
			delete(e.open, id)
		}
	}
}

func (e *episodes) add(ep *agent.Episode, eval bool) (string, error) {
	var b [12]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	id := e.replica + ".ep-" + hex.EncodeToString(b[:])
	e.mu.Lock()
	defer e.mu.Unlock()
	e.sweep()
	if len(e.open) >= e.max {
		return "", errEpisodesFull
	}
	e.open[id] = &openEpisode{ep: ep, eval: eval, last: e.now()}
	return id, nil
}

func (e *episodes) get(id string) (ep *agent.Episode, eval bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.sweep()
	o := e.open[id]
	if o == nil {
		return nil, false
	}
	o.last = e.now()
	return o.ep, o.eval
}

func (e *episodes) drop(id string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	_, ok := e.open[id]
	delete(e.open, id)
	return ok
}

func (e *episodes) count() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.sweep()
	return len(e.open)
}

// engines gives package agent engines by database name. It wraps the
// catalog itself, not the server's timed databases: describe_table needs
// the engine's sqlgym.Describer, which the timing wrapper hides.
type engines struct{ dbs Databases }

func (g engines) Engine(ctx context.Context, name string) (sqlgym.Engine, error) {
	u, err := g.dbs.Resolve(name)
	if err != nil {
		return nil, err
	}
	return g.dbs.EngineURL(ctx, u)
}

// agentEnv returns the environment of a protocol, built on first use.
func (s *Server) agentEnv(p agent.Protocol) (*agent.Env, error) {
	s.envMu.Lock()
	defer s.envMu.Unlock()
	if env := s.envs[p]; env != nil {
		return env, nil
	}
	cfg := s.cfg.Agent
	cfg.Protocol = p
	env, err := agent.NewEnv(s.v, engines{s.cfg.DBs}, nil, cfg)
	if err != nil {
		return nil, err
	}
	env.SetSchema(s.cfg.Schema)
	s.envs[p] = env
	return env, nil
}

func (s *Server) handleEpisodeStart(w http.ResponseWriter, r *http.Request) {
	var req EpisodeRequest
	if !s.decode(w, r, &req) {
		return
	}
	eval, err := checkMode(req.Mode)
	if err != nil {
		s.fail(w, err)
		return
	}
	id, ep, env, err := s.openEpisode(r.Context(), req.TaskID, agent.Protocol(req.Protocol), eval)
	if err != nil {
		s.fail(w, err)
		return
	}
	p := env.Config().Protocol
	resp := EpisodeResponse{ID: id, Protocol: string(p), MaxTurns: env.Config().MaxTurns, Messages: toWire(ep.Opening())}
	for _, tl := range ep.Tools() {
		var wt WireTool
		wt.Type = "function"
		wt.Function.Name, wt.Function.Description, wt.Function.Parameters = tl.Name, tl.Description, tl.Parameters
		resp.Tools = append(resp.Tools, wt)
	}
	s.writeJSON(w, http.StatusOK, resp)
}

// openEpisode starts an episode of a task and keeps it open under a new
// id: the episode API and NeMo-Gym's /seed_session open them alike.
func (s *Server) openEpisode(ctx context.Context, taskID string, p agent.Protocol, eval bool) (string, *agent.Episode, *agent.Env, error) {
	t, ok := s.tasks[taskID]
	if !ok {
		return "", nil, nil, badRequest("no task with id %s", quote(taskID))
	}
	if err := s.admit(t, eval); err != nil {
		return "", nil, nil, err
	}
	if p == "" {
		p = s.cfg.Agent.Protocol
	}
	if _, err := agent.ParseProtocol(string(p)); err != nil {
		return "", nil, nil, badRequest(`protocol %s: "tools" or "text"`, quote(string(p)))
	}
	env, err := s.agentEnv(p)
	if err != nil {
		return "", nil, nil, err
	}
	if s.eps.count() >= s.eps.max {
		return "", nil, nil, errEpisodesFull
	}
	var ep *agent.Episode
	err = s.underSlot(ctx, t.DB, func(ctx context.Context) error {
		var err error
		ep, err = env.Start(ctx, t, 0)
		return err
	})
	if err != nil {
		return "", nil, nil, err
	}
	id, err := s.eps.add(ep, eval)
	if err != nil {
		return "", nil, nil, err
	}
	s.m.episodes.Inc()
	return id, ep, env, nil
}

func (s *Server) handleEpisodeStep(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	ep, eval := s.eps.get(id)
	if ep == nil {
		s.episodeNotFound(w, id)
		return
	}
	var req StepRequest
	if !s.decode(w, r, &req) {
		return
	}
	if req.Message.Role != "" && req.Message.Role != model.RoleAssistant {
		s.writeError(w, http.StatusBadRequest, "message: the role of a step is assistant, not "+quote(req.Message.Role))
		return
	}
	reply := agent.Reply{Content: req.Message.Content, FinishReason: req.FinishReason, CompletionTokens: req.CompletionTokens, Partial: req.Partial}
	for _, tc := range req.Message.ToolCalls {
		reply.ToolCalls = append(reply.ToolCalls, sqlgym.ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: argumentsText(tc.Function.Arguments)})
	}
	res, err := s.step(r.Context(), ep, reply)
	if errors.Is(err, agent.ErrPartial) {
		s.writeError(w, http.StatusBadRequest, "a partial step (\"partial\": true) carries exactly one tool call, in a tools-protocol episode")
		return
	}
	if errors.Is(err, agent.ErrDone) {
		s.writeError(w, http.StatusConflict, "episode "+quote(id)+" has ended")
		return
	}
	if err != nil {
		s.fail(w, err)
		return
	}
	out := StepResponse{Observations: toWire(res.Observations), Done: res.Done, Turn: ep.Turn()}
	if out.Observations == nil {
		out.Observations = []chatwire.Message{}
	}
	if res.Done {
		s.eps.drop(id)
		st := ep.Stats()
		out.Verdict, out.Stats = res.Result.Verdict, &st
		s.countOutcome(eval, res.Result.Outcome)
	}
	s.writeJSON(w, http.StatusOK, out)
}

// step runs one episode step under the database's slot. A step whose
// request deadline passed is errDeadline: a statement cut short by the
// deadline is not the model's doing.
func (s *Server) step(ctx context.Context, ep *agent.Episode, reply agent.Reply) (agent.StepResult, error) {
	var res agent.StepResult
	err := s.underSlot(ctx, ep.Task().DB, func(ctx context.Context) error {
		var err error
		res, err = ep.Step(ctx, reply)
		return err
	})
	if err == nil && ctx.Err() != nil {
		return res, errDeadline
	}
	return res, err
}

// errEpisodeGone is an episode another request ended first.
var errEpisodeGone = errors.New("episode already ended")

// handleEpisodeDelete ends an episode the trainer stops early (its
// rollout ran out of turns or tokens on the trainer's side) and judges it
// as the end of its turns would: no_query, or with --submit-last the last
// query run.
func (s *Server) handleEpisodeDelete(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	ep, eval := s.eps.get(id)
	if ep == nil {
		s.episodeNotFound(w, id)
		return
	}
	var res *verify.Result
	// Dropped only once the slot is held: a delete turned away (429,
	// deadline) leaves the episode for the trainer's retry.
	err := s.underSlot(r.Context(), ep.Task().DB, func(ctx context.Context) error {
		if !s.eps.drop(id) {
			return errEpisodeGone
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
	st := ep.Stats()
	s.countOutcome(eval, res.Outcome)
	s.writeJSON(w, http.StatusOK, StepResponse{Observations: []chatwire.Message{}, Done: true, Turn: ep.Turn(),
		Verdict: res.Verdict, Stats: &st})
}

// underSlot runs fn holding a statement slot of the database (fair.go)
// and gives it back however fn ends, a panic included: a slot kept by one
// failed step would turn every later request for the database away. The
// statements fn runs under its ctx, on the engine or through the
// verifier, use that one slot.
func (s *Server) underSlot(ctx context.Context, db string, fn func(ctx context.Context) error) error {
	release, err := s.limit.acquire([]string{db})
	if err != nil {
		return err
	}
	defer release()
	url, err := s.dbs.Resolve(db)
	if err != nil {
		return err
	}
	s.dbNames.Store(url, db)
	hctx, leave, err := s.gate.hold(ctx, url)
	if err != nil {
		return errDeadline
	}
	defer leave()
	return fn(hctx)
}

func toWire(msgs []sqlgym.Message) []chatwire.Message {
	out := make([]chatwire.Message, len(msgs))
	for i, m := range msgs {
		wm := chatwire.Message{Role: m.Role, Content: m.Content, ToolCallID: m.ToolCallID, Name: m.Name}
		for _, tc := range m.ToolCalls {
			wm.ToolCalls = append(wm.ToolCalls, chatwire.FunctionCall(tc.ID, tc.Name, chatwire.ArgumentsString(tc.Arguments)))
		}
		out[i] = wm
	}
	return out
}

// argumentsText is the arguments as the model wrote them: the string's
// content when they came as a JSON string (OpenAI's shape), else the raw
// JSON (an object some clients send).
func argumentsText(raw json.RawMessage) string {
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s
	}
	if string(raw) == "null" {
		return ""
	}
	return string(raw)
}

func quote(s string) string { b, _ := json.Marshal(s); return string(b) }
