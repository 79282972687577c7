package model

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/internal/retry"
)

// maxAnswerBytes bounds the body read from one answer; a chat completion
// is far smaller, so more means the server or a proxy misbehaves.
const maxAnswerBytes = 64 << 20

// Client talks to one OpenAI-compatible server. It is safe for concurrent
// use; all its calls share one bound on requests in flight.
type Client struct {
	base string
	cfg  Config
	sem  chan struct{}
	// nIgnored is set once the server is seen to make one choice per
	// request, so that Sample stops asking for more.
	nIgnored atomic.Bool
	brk      *breaker
}

// New returns a client for the server at baseURL.
func New(baseURL string, opts ...Option) (*Client, error) {
	cfg := Config{BaseURL: baseURL}
	for _, o := range opts {
		o(&cfg)
	}
	return NewFromConfig(cfg)
}

// NewFromConfig returns a client configured by cfg.
func NewFromConfig(cfg Config) (*Client, error) {
	base, err := normalizeBaseURL(cfg.BaseURL)
	if err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	cfg.BaseURL = base
	return &Client{base: base, cfg: cfg, sem: make(chan struct{}, cfg.Concurrency),
		brk: &breaker{after: cfg.BreakAfter, span: cfg.BreakSpan}}, nil
}

// BaseURL is the normalized base URL, e.g. http://127.0.0.1:8000/v1.
func (c *Client) BaseURL() string { return c.base }

// Model is the default model name.
func (c *Client) Model() string { return c.cfg.Model }

// IgnoresN reports whether the server was seen to make one choice per
// request whatever n asks.
func (c *Client) IgnoresN() bool { return c.nIgnored.Load() }

// failure is one failed attempt, classified.
type failure struct {
	status     int
	msg        string
	retry      bool
	retryAfter time.Duration
	hasAfter   bool
	stopped    bool // the caller's context ended
	nRefused   bool
	err        error
}

// Chat sends one chat completion request, retrying infrastructure failures
// with backoff. It returns whatever choices the server made, even fewer
// than req.N; use Sample to be sure of n.
func (c *Client) Chat(ctx context.Context, req Request) (*Response, error) {
	if len(req.Messages) == 0 {
		return nil, errors.New("chat request has no messages")
	}
	body, err := c.encode(req)
	if err != nil {
		return nil, err
	}
	n := max(req.N, 1)
	start := time.Now()
	for attempt := 1; ; attempt++ {
		if c.brk.isOpen() {
			return nil, c.goneError()
		}
		resp, f := c.attempt(ctx, body, n)
		if !f.isStopped() && c.brk.note(f) {
			return nil, c.goneError()
		}
		if f == nil {
			resp.Attempts = attempt
			resp.Elapsed = time.Since(start)
			return resp, nil
		}
		switch {
		case f.stopped:
			return nil, c.stoppedError(ctx, attempt, f)
		case !f.retry:
			return nil, c.requestError(ctx, req, n, attempt, f)
		case attempt > c.cfg.MaxRetries:
			return nil, c.infraError(attempt, f)
		}
		wait := c.policy().Wait(attempt, f.retryAfter, f.hasAfter)
		if c.cfg.OnRetry != nil {
			c.cfg.OnRetry(Retry{Attempt: attempt, Status: f.status, Cause: f.cause(), Wait: wait})
		}
		if err := c.cfg.Sleep(ctx, wait); err != nil {
			return nil, c.stoppedError(ctx, attempt, f)
		}
	}
}

// attempt makes one HTTP request under the client's concurrency bound and
// the per-attempt timeout.
func (c *Client) attempt(ctx context.Context, body []byte, n int) (*Response, *failure) {
	select {
	case c.sem <- struct{}{}:
	case <-ctx.Done():
		return nil, &failure{stopped: true, err: ctx.Err()}
	}
	defer func() { <-c.sem }()

	actx, cancel := context.WithTimeout(ctx, c.cfg.AttemptTimeout)
	defer cancel()
	hreq, err := http.NewRequestWithContext(actx, http.MethodPost, c.base+"/chat/completions", bytes.NewReader(body))
	if err != nil {
		return nil, &failure{err: err, msg: err.Error()}
	}
	c.setHeaders(hreq)
	hreq.Header.Set("Content-Type", "application/json")

	t0 := time.Now()
	hresp, err := c.cfg.HTTPClient.Do(hreq)
	if err != nil {
		return nil, c.transportFailure(ctx, actx, 0, err)
	}
	defer hresp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(hresp.Body, maxAnswerBytes+1))
	latency := time.Since(t0)
	if err != nil {
		return nil, c.transportFailure(ctx, actx, hresp.StatusCode, fmt.Errorf("reading the answer: %w", err))
	}
	if len(data) > maxAnswerBytes {
		return nil, &failure{status: hresp.StatusCode, msg: fmt.Sprintf("answer larger than %d bytes", maxAnswerBytes)}
	}
	if hresp.StatusCode/100 != 2 {
		return nil, statusFailure(hresp, data, n)
	}
	resp, err := decodeAnswer(data, latency)
	if err != nil {
		return nil, &failure{status: hresp.StatusCode, retry: true, err: err,
			msg: fmt.Sprintf("unreadable answer (HTTP %d, %s): %v", hresp.StatusCode, contentType(hresp), err)}
	}
	return resp, nil
}

func (f *failure) isStopped() bool { return f != nil && f.stopped }

func (c *Client) setHeaders(r *http.Request) {
	r.Header.Set("Accept", "application/json")
	r.Header.Set("User-Agent", "sqlgym")
	if c.cfg.APIKey != "" {
		r.Header.Set("Authorization", "Bearer "+c.cfg.APIKey)
	}
}

func (c *Client) transportFailure(ctx, actx context.Context, status int, err error) *failure {
	switch {
	case ctx.Err() != nil:
		return &failure{stopped: true, status: status, err: ctx.Err()}
	case errors.Is(actx.Err(), context.DeadlineExceeded):
		return &failure{retry: true, status: status, err: err,
			msg: fmt.Sprintf("no answer within the attempt timeout of %s", c.cfg.AttemptTimeout)}
	}
	return &failure{retry: true, status: status, err: err, msg: "connection failed: " + err.Error()}
}

func statusFailure(hresp *http.Response, data []byte, n int) *failure {
	code := hresp.StatusCode
	msg := readableBody(data, contentType(hresp))
	f := &failure{status: code, msg: msg}
	switch {
	case n > 1 && refusesN(msg):
		f.nRefused = true
	case retry.Status(code):
		f.retry = true
		f.retryAfter, f.hasAfter = retry.After(hresp.Header, time.Now())
	}
	return f
}

func contentType(r *http.Response) string {
	if ct := r.Header.Get("Content-Type"); ct != "" {
		return ct
	}
	return "no content type"
}

// encode builds the JSON body: the standard fields, then req.Extra on top.
func (c *Client) encode(req Request) ([]byte, error) {
	w := chatRequest{
		Model:       req.Model,
		N:           max(req.N, 1),
		Temperature: req.Temperature,
		TopP:        req.TopP,
		Seed:        req.Seed,
		MaxTokens:   req.MaxTokens,
		Stop:        req.Stop,
		ToolChoice:  req.ToolChoice,
	}
	if w.Model == "" {
		w.Model = c.cfg.Model
	}
	for _, m := range req.Messages {
		wm := wireMessage{Role: m.Role, Name: m.Name, ToolCallID: m.ToolCallID}
		if m.Content != "" || m.Role != RoleAssistant || len(m.ToolCalls) == 0 {
			content := m.Content
			wm.Content = &content
		}
		for _, tc := range m.ToolCalls {
			wm.ToolCalls = append(wm.ToolCalls, wireToolCall{ID: tc.ID, Type: "function",
				Function: wireFunctionCall{Name: tc.Name, Arguments: flexText(tc.Arguments)}})
		}
		w.Messages = append(w.Messages, wm)
	}
	for _, t := range req.Tools {
		w.Tools = append(w.Tools, wireTool{Type: "function",
			//lint:ignore S1016 field by field on purpose: the wire format must not change when Tool gains a field
			Function: wireFunction{Name: t.Name, Description: t.Description, Parameters: t.Parameters}})
	}
	b, err := marshal(w)
	if err != nil || len(req.Extra) == 0 {
		return b, err
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(b, &fields); err != nil {
		return nil, err
	}
	for k, v := range req.Extra {
		raw, err := marshal(v)
		if err != nil {
			return nil, fmt.Errorf("extra body field %q: %w", k, err)
		}
		fields[k] = raw
	}
	return marshal(fields)
}

// marshal is json.Marshal without HTML escaping: SQL is full of < and >,
// and the body should read as written when logged.
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

func decodeAnswer(data []byte, latency time.Duration) (*Response, error) {
	var w chatResponse
	if err := json.Unmarshal(data, &w); err != nil {
		return nil, fmt.Errorf("%w; the body begins %q", err, snippet(string(data), 120))
	}
	if len(w.Choices) == 0 {
		if len(w.Error) > 0 && string(w.Error) != "null" {
			return nil, fmt.Errorf("the server reported an error: %s", readableBody(data, "application/json"))
		}
		return nil, errors.New("the answer has no choices")
	}
	resp := &Response{ID: w.ID, Model: w.Model, Latency: latency}
	if w.Usage != nil {
		resp.Usage = Usage{PromptTokens: w.Usage.PromptTokens, CompletionTokens: w.Usage.CompletionTokens}
	}
	k := len(w.Choices)
	for i, wc := range w.Choices {
		ch := Choice{
			Index:        wc.Index,
			Content:      string(wc.Message.Content),
			FinishReason: deref(wc.FinishReason),
			Latency:      latency,
			PromptTokens: resp.Usage.PromptTokens,
			// An even split with the remainder on the first choices keeps
			// the sum equal to the server's total.
			CompletionTokens: resp.Usage.CompletionTokens / k,
		}
		if i < resp.Usage.CompletionTokens%k {
			ch.CompletionTokens++
		}
		if r := deref(wc.Message.ReasoningContent); r != "" {
			ch.Reasoning = r
		} else {
			ch.Reasoning = deref(wc.Message.Reasoning)
		}
		for _, tc := range wc.Message.ToolCalls {
			ch.ToolCalls = append(ch.ToolCalls, sqlgym.ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: string(tc.Function.Arguments)})
		}
		resp.Choices = append(resp.Choices, ch)
	}
	return resp, nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// Models lists the model names the server serves (GET {base}/models).
func (c *Client) Models(ctx context.Context) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, min(c.cfg.AttemptTimeout, 30*time.Second))
	defer cancel()
	hreq, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+"/models", nil)
	if err != nil {
		return nil, err
	}
	c.setHeaders(hreq)
	hresp, err := c.cfg.HTTPClient.Do(hreq)
	if err != nil {
		return nil, fmt.Errorf("list models at %s: %w", c.base, err)
	}
	defer hresp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(hresp.Body, 8<<20))
	if err != nil {
		return nil, fmt.Errorf("list models at %s: %w", c.base, err)
	}
	if hresp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("list models at %s: %d %s: %s", c.base, hresp.StatusCode,
			http.StatusText(hresp.StatusCode), readableBody(data, contentType(hresp)))
	}
	var l modelList
	if err := json.Unmarshal(data, &l); err != nil {
		return nil, fmt.Errorf("list models at %s: unreadable answer: %w", c.base, err)
	}
	var names []string
	for _, m := range l.Data {
		names = append(names, m.ID)
	}
	for _, m := range l.Models {
		names = append(names, m.Name)
	}
	return names, nil
}

func (c *Client) infraError(attempts int, f *failure) error {
	e := &Error{URL: c.base, Status: f.status, Message: f.msg, Attempts: attempts, Infra: true, Err: f.err,
		Hint: fmt.Sprintf("check that the server is up and serving (curl %s/models); these samples are infra errors, never scored", c.base)}
	if f.status == 0 && retry.Unreachable(f.err) {
		e.Hint = fmt.Sprintf("is the server running at %s? Start it or fix the base URL; these samples are infra errors, never scored", c.base)
	}
	last := f.msg
	if f.status != 0 {
		last = statusLine(f.status) + ": " + f.msg
	}
	e.text = fmt.Sprintf("model server %s unavailable after %d attempts: %s", c.base, attempts, strings.TrimSuffix(last, ": "))
	return e
}

// stoppedError reports a call the caller's context ended. A deadline that
// passed is an infrastructure failure (no answer came in the time the
// caller gave); a cancellation is the caller's own doing.
func (c *Client) stoppedError(ctx context.Context, attempts int, f *failure) error {
	cause := ctx.Err()
	if cause == nil {
		cause = f.err
	}
	e := &Error{URL: c.base, Status: f.status, Attempts: attempts, Err: cause,
		Infra: errors.Is(cause, context.DeadlineExceeded)}
	e.Message = cause.Error()
	e.text = fmt.Sprintf("model request to %s stopped after %d attempts: %v", c.base, attempts, cause)
	if f.msg != "" {
		e.text += " (last failure: " + f.msg + ")"
	}
	return e
}

// requestError explains a request the server refused, with what to fix.
func (c *Client) requestError(ctx context.Context, req Request, n, attempts int, f *failure) error {
	e := &Error{URL: c.base, Status: f.status, Message: f.msg, Attempts: attempts, Err: f.err}
	model := req.Model
	if model == "" {
		model = c.cfg.Model
	}
	status := statusLine(f.status)
	switch {
	case f.nRefused:
		e.Err = ErrNUnsupported
		e.text = fmt.Sprintf("model server %s makes one choice per request (asked for n=%d): %s", c.base, n, f.msg)
		e.Hint = "use Sample, which asks for one choice at a time on such servers"
	case f.status == http.StatusUnauthorized:
		e.text = fmt.Sprintf("model server %s refused the API key (%s): %s", c.base, status, f.msg)
		e.Hint = "set OPENAI_API_KEY, or name the variable that holds the key with --api-key-env"
	case f.status == http.StatusForbidden:
		e.text = fmt.Sprintf("model server %s forbids this request (%s): %s", c.base, status, f.msg)
		e.Hint = fmt.Sprintf("check that the API key may use model %q: set OPENAI_API_KEY or --api-key-env", model)
	case f.status == http.StatusNotFound:
		c.explainNotFound(ctx, e, model, status)
	case f.status == 0:
		e.text = fmt.Sprintf("model request to %s failed: %s", c.base, f.msg)
	default:
		e.text = fmt.Sprintf("model server %s rejected the request (%s): %s", c.base, status, f.msg)
		e.Hint = "fix the request as the server's message says"
		if contextOverflow(f.msg) {
			e.Hint = "the prompt plus max_tokens exceed the model's context window: lower max_tokens or shorten the prompt"
		}
	}
	return e
}

// explainNotFound asks the server for its models (one cheap GET) to tell a
// wrong model name from a wrong base URL.
func (c *Client) explainNotFound(ctx context.Context, e *Error, model, status string) {
	lctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	names, err := c.Models(lctx)
	listed := err == nil && len(names) > 0
	has := false
	for _, n := range names {
		has = has || n == model
	}
	switch {
	case listed && !has && model != "":
		e.text = fmt.Sprintf("no model %q on the server at %s; it lists: %s", model, c.base, strings.Join(names, ", "))
		e.Hint = "pass one of the listed names as the model"
	case listed && model == "":
		e.text = fmt.Sprintf("model server %s needs a model name (%s: %s); it lists: %s", c.base, status, e.Message, strings.Join(names, ", "))
		e.Hint = "pass one of the listed names as the model"
	default:
		e.text = fmt.Sprintf("model server %s answered %s for %s/chat/completions: %s", c.base, status, c.base, e.Message)
		e.Hint = "check the base URL: OpenAI-compatible servers serve under /v1, e.g. http://127.0.0.1:8000/v1"
	}
}

func statusLine(code int) string {
	if code == 0 {
		return "no HTTP status"
	}
	return fmt.Sprintf("%d %s", code, http.StatusText(code))
}
