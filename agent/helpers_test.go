package agent

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/catalog"
	"github.com/sqlgym/sqlgym/model"
	"github.com/sqlgym/sqlgym/prompt"
	"github.com/sqlgym/sqlgym/verify"
)

// Tasks on the built-in shop database (a real SQLite file in a temporary
// cache folder).
var (
	taskDelivered = sqlgym.Task{ID: "delivered", DB: "shop", Question: "How many orders were delivered?",
		SQL: "SELECT COUNT(*) FROM orders WHERE status = 'delivered'"}
	taskCountries = sqlgym.Task{ID: "countries", DB: "shop", Question: "How many customers are there per country?",
		SQL: "SELECT country, COUNT(*) FROM customers GROUP BY country"}
)

const (
	goodDelivered  = "SELECT COUNT(*) FROM orders WHERE status = 'delivered'"
	wrongDelivered = "SELECT COUNT(*) FROM orders"
	crashDelivered = "SELECT COUNT(*) FROM orders WHERE state = 'delivered'"
)

// shopCatalog is a catalog whose shop database lives in t's temporary
// folder.
func shopCatalog(t *testing.T) *catalog.Catalog {
	t.Helper()
	cat, err := catalog.New(catalog.Config{CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cat.Close() })
	return cat
}

func newEnv(t *testing.T, cfg Config, vcfg verify.Config, tasks ...sqlgym.Task) *Env {
	t.Helper()
	if len(tasks) == 0 {
		tasks = []sqlgym.Task{taskDelivered, taskCountries}
	}
	cat := shopCatalog(t)
	env, err := NewEnv(verify.New(cat, tasks, vcfg), cat, nil, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return env
}

func start(t *testing.T, env *Env, task sqlgym.Task) *Episode {
	t.Helper()
	ep, err := env.Start(context.Background(), &task, 0)
	if err != nil {
		t.Fatal(err)
	}
	return ep
}

// scripted is an OpenAI-compatible chat server whose answers come from a
// script: reply(turn, request) with turn counted from 1 per episode (the
// number of assistant messages already in the request, plus one). It keeps
// every request body so tests can check what the model was shown.
type scripted struct {
	*httptest.Server
	t      *testing.T
	mu     sync.Mutex
	bodies []chatBody
	reply  func(turn int, body chatBody) wireReply
}

type chatBody struct {
	Messages []struct {
		Role       string `json:"role"`
		Content    string `json:"content"`
		ToolCallID string `json:"tool_call_id"`
		ToolCalls  []struct {
			ID       string `json:"id"`
			Function struct {
				Name      string `json:"name"`
				Arguments string `json:"arguments"`
			} `json:"function"`
		} `json:"tool_calls"`
	} `json:"messages"`
	Tools []struct {
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	} `json:"tools"`
	MaxTokens int  `json:"max_tokens"`
	Seed      *int `json:"seed"`
}

// wireReply is one scripted answer.
type wireReply struct {
	Content string
	Calls   [][2]string // name, arguments
	Finish  string
	Tokens  int
	Status  int // non-zero: answer with this HTTP status and no body
}

func newScripted(t *testing.T, reply func(turn int, body chatBody) wireReply) *scripted {
	s := &scripted{t: t, reply: reply}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

func (s *scripted) serve(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	var body chatBody
	if err := json.Unmarshal(raw, &body); err != nil {
		s.t.Errorf("request is not a chat body: %v", err)
	}
	s.mu.Lock()
	s.bodies = append(s.bodies, body)
	s.mu.Unlock()
	turn := 1
	for _, m := range body.Messages {
		if m.Role == "assistant" {
			turn++
		}
	}
	rep := s.reply(turn, body)
	if rep.Status != 0 {
		w.WriteHeader(rep.Status)
		return
	}
	var calls []map[string]any
	for i, c := range rep.Calls {
		calls = append(calls, map[string]any{"id": "call" + string(rune('a'+i)), "type": "function",
			"function": map[string]any{"name": c[0], "arguments": c[1]}})
	}
	finish := rep.Finish
	if finish == "" {
		finish = "stop"
		if len(calls) > 0 {
			finish = "tool_calls"
		}
	}
	msg := map[string]any{"role": "assistant", "content": rep.Content}
	if len(calls) > 0 {
		msg["tool_calls"] = calls
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{
		"id": "x", "model": "scripted",
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}},
		"usage":   map[string]any{"prompt_tokens": 10, "completion_tokens": rep.Tokens},
	})
}

func (s *scripted) requests() []chatBody {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]chatBody(nil), s.bodies...)
}

func (s *scripted) actor(t *testing.T) *ModelActor {
	t.Helper()
	c, err := model.New(s.URL+"/v1", model.WithModel("scripted"), model.WithMaxRetries(1),
		model.WithSleep(func(context.Context, time.Duration) error { return nil }))
	if err != nil {
		t.Fatal(err)
	}
	return &ModelActor{Client: c}
}

func args(kv ...string) string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	b, _ := json.Marshal(m)
	return string(b)
}

func promptInput() prompt.Input {
	return prompt.InputFor(&taskDelivered, "CREATE TABLE orders (order_id INTEGER);", sqlgym.DialectSQLite)
}
