package model

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym"
)

// fakeServer is an httptest server speaking the OpenAI wire protocol. It
// records every chat request's decoded body and headers; handle decides
// each answer from the call number (1-based) and the body.
type fakeServer struct {
	*httptest.Server
	t      *testing.T
	mu     sync.Mutex
	bodies []map[string]any
	heads  []http.Header
	paths  []string
	models string // body of GET /v1/models; empty means 404
	handle func(w http.ResponseWriter, r *http.Request, call int, body map[string]any)
}

func newFakeServer(t *testing.T, handle func(w http.ResponseWriter, r *http.Request, call int, body map[string]any)) *fakeServer {
	t.Helper()
	s := &fakeServer{t: t, handle: handle}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

func (s *fakeServer) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet && r.URL.Path == "/v1/models" {
		if s.models == "" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, s.models)
		return
	}
	raw, err := io.ReadAll(r.Body)
	if err != nil {
		return
	}
	var body map[string]any
	if err := json.Unmarshal(raw, &body); err != nil {
		s.t.Errorf("server got a body that is not JSON: %v: %q", err, raw)
	}
	s.mu.Lock()
	s.bodies = append(s.bodies, body)
	s.heads = append(s.heads, r.Header.Clone())
	s.paths = append(s.paths, r.URL.Path)
	call := len(s.bodies)
	s.mu.Unlock()
	s.handle(w, r, call, body)
}

func (s *fakeServer) calls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.bodies)
}

func (s *fakeServer) body(i int) map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.bodies[i]
}

func (s *fakeServer) base() string { return s.URL + "/v1" }

// sleepLog records the waits between attempts instead of waiting.
type sleepLog struct {
	mu sync.Mutex
	d  []time.Duration
}

func (l *sleepLog) sleep(ctx context.Context, d time.Duration) error {
	l.mu.Lock()
	l.d = append(l.d, d)
	l.mu.Unlock()
	return ctx.Err()
}

func (l *sleepLog) waits() []time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]time.Duration(nil), l.d...)
}

// newTestClient returns a client whose sleeps are recorded, not waited.
func newTestClient(t *testing.T, base string, opts ...Option) (*Client, *sleepLog) {
	t.Helper()
	log := &sleepLog{}
	opts = append([]Option{WithSleep(log.sleep), WithModel("Qwen/Qwen3-8B")}, opts...)
	c, err := New(base, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return c, log
}

func writeJSON(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	io.WriteString(w, body)
}

// vllmAnswer is a chat completion exactly as vLLM 0.8 serializes one, with
// k choices whose content is prefix + index.
func vllmAnswer(k int, prefix string) string {
	var choices []string
	for i := range k {
		choices = append(choices, fmt.Sprintf(`{"index":%d,"message":{"role":"assistant","reasoning_content":null,"content":"%s%d","tool_calls":[]},"logprobs":null,"finish_reason":"stop","stop_reason":null}`, i, prefix, i))
	}
	return `{"id":"chatcmpl-9b2f4c1e8a7d4e0f8c3b5a6d7e8f9a0b","object":"chat.completion","created":1732900000,"model":"Qwen/Qwen3-8B","choices":[` +
		strings.Join(choices, ",") +
		fmt.Sprintf(`],"usage":{"prompt_tokens":42,"total_tokens":%d,"completion_tokens":%d,"prompt_tokens_details":null},"prompt_logprobs":null,"kv_transfer_params":null}`, 42+9*k+1, 9*k+1)
}

var userAsks = []sqlgym.Message{
	{Role: RoleSystem, Content: "Write one SQLite query."},
	{Role: RoleUser, Content: "How many singers are there?"},
}

// httptestServer answers every request with answer; it returns the base URL.
func httptestServer(tb testing.TB, answer string) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		writeJSON(w, 200, answer)
	}))
	tb.Cleanup(srv.Close)
	return srv.URL + "/v1"
}
