package teacher

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/author"
	"github.com/sqlgym/sqlgym/author/goldfilter"
	"github.com/sqlgym/sqlgym/engine/sqlite"
	"github.com/sqlgym/sqlgym/schema"
	"github.com/sqlgym/sqlgym/shopdb"
)

// canned is one scripted HTTP answer.
type canned struct {
	status int
	header map[string]string
	body   string
}

// script serves its answers in turn, repeating the last, and records the
// requests' paths, headers and bodies.
type script struct {
	mu      sync.Mutex
	answers []canned
	n       int
	paths   []string
	headers []http.Header
	bodies  []map[string]any
}

func (s *script) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	var body map[string]any
	_ = json.Unmarshal(b, &body)
	s.mu.Lock()
	a := s.answers[min(s.n, len(s.answers)-1)]
	s.n++
	s.paths = append(s.paths, r.Method+" "+r.URL.Path)
	s.headers = append(s.headers, r.Header.Clone())
	s.bodies = append(s.bodies, body)
	s.mu.Unlock()
	for k, v := range a.header {
		w.Header().Set(k, v)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(a.status)
	io.WriteString(w, a.body)
}

func (s *script) calls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.n
}

// The pairs a good teacher reply holds: four golds that pass the filter on
// shop, one (second) that fails to run, and two items the parser must skip.
const goodPairs = `[
 {"question": "How many customers are from France?", "sql": "SELECT COUNT(*) FROM customers WHERE country = 'France'", "complexity": "filter"},
 {"question": "What is the nickname of each customer?", "sql": "SELECT nickname FROM customers", "complexity": "filter"},
 {"question": "What are the names of the products in the category 'Books'?", "sql": "SELECT products.name FROM products JOIN categories ON products.category_id = categories.category_id WHERE categories.name = 'Books'", "complexity": "join"},
 {"question": "What is the average price of a product?", "sql": "SELECT AVG(price) FROM products", "complexity": "Aggregate"},
 {"question": "How many orders are there in each status? Give the status and the count.", "sql": "SELECT status, COUNT(*) FROM orders GROUP BY status", "complexity": "group by"},
 {"question": "A question without SQL", "complexity": "filter"},
 {"question": "Which galaxy?", "sql": "SELECT 1", "complexity": "cosmic"}
]`

func openAIAnswer(content, finish string) canned {
	b, _ := json.Marshal(map[string]any{
		"id": "chatcmpl-1", "object": "chat.completion", "model": "m1",
		"choices": []any{map[string]any{"index": 0, "message": map[string]any{"role": "assistant", "content": content}, "finish_reason": finish}},
		"usage":   map[string]any{"prompt_tokens": 900, "completion_tokens": 300, "total_tokens": 1200},
	})
	return canned{status: 200, body: string(b)}
}

func anthropicAnswer(text, stop string) canned {
	b, _ := json.Marshal(map[string]any{
		"id": "msg_01", "type": "message", "role": "assistant", "model": "claude-test",
		"content":     []any{map[string]any{"type": "text", "text": text}},
		"stop_reason": stop, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": 900, "output_tokens": 300},
	})
	return canned{status: 200, body: string(b)}
}

func anthropicError(status int, typ, msg string, header map[string]string) canned {
	return canned{status: status, header: header,
		body: fmt.Sprintf(`{"type":"error","error":{"type":%q,"message":%q},"request_id":"req_1"}`, typ, msg)}
}

// shop opens the shop database twice for the filter and loads its schema
// with sample values, as `sqlgym author` does.
func shop(t *testing.T) (*sqlgym.Schema, *goldfilter.Filter) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "shop.sqlite")
	ctx := context.Background()
	if err := sqlite.Create(ctx, path, shopdb.Statements()); err != nil {
		t.Fatal(err)
	}
	var engs []sqlgym.Engine
	for range 2 {
		e, err := sqlite.Open(path, sqlite.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { e.Close() })
		engs = append(engs, e)
	}
	s, err := schema.Load(ctx, engs[0], 3)
	if err != nil {
		t.Fatal(err)
	}
	return s, &goldfilter.Filter{A: engs[0], B: engs[1], MinRows: 1, MaxRows: 50}
}

// waits records the backoff waits instead of sleeping.
type waits struct {
	mu sync.Mutex
	d  []time.Duration
}

func (w *waits) sleep(ctx context.Context, d time.Duration) error {
	w.mu.Lock()
	w.d = append(w.d, d)
	w.mu.Unlock()
	return ctx.Err()
}

func newTeacher(t *testing.T, provider, url string, w *waits, opt Options) *Teacher {
	t.Helper()
	opt.BaseURL, opt.APIKey, opt.Sleep = url, "test-key", w.sleep
	if opt.PerRequest == 0 {
		opt.PerRequest = 5
	}
	tc, err := New(Spec{Provider: provider, Model: map[string]string{ProviderOpenAI: "m1", ProviderAnthropic: "claude-test"}[provider]}, opt)
	if err != nil {
		t.Fatal(err)
	}
	return tc
}

// run drives author.Run with the teacher and returns the kept tasks.
func run(t *testing.T, tc *Teacher, s *sqlgym.Schema, f *goldfilter.Filter, n, batch int) ([]sqlgym.Task, author.Counts, error) {
	t.Helper()
	var kept []sqlgym.Task
	cnt, err := author.Run(context.Background(), author.Config{DB: "shop", Teacher: tc, Schema: s, Filter: f, N: n, Batch: batch, Seed: 7,
		Emit: func(tk sqlgym.Task) error { kept = append(kept, tk); return nil }})
	return kept, cnt, err
}

func checkKept(t *testing.T, kept []sqlgym.Task, source string) {
	t.Helper()
	want := map[string]string{
		"SELECT COUNT(*) FROM customers WHERE country = 'France'": author.LevelFilter,
		"SELECT AVG(price) FROM products":                         author.LevelAggregate,
		"SELECT status, COUNT(*) FROM orders GROUP BY status":     author.LevelGroupBy,
		"SELECT products.name FROM products JOIN categories ON products.category_id = categories.category_id WHERE categories.name = 'Books'": author.LevelJoin,
	}
	if len(kept) != len(want) {
		t.Fatalf("kept %d tasks, want %d: %+v", len(kept), len(want), kept)
	}
	for _, tk := range kept {
		if want[tk.SQL] == "" || tk.Complexity != want[tk.SQL] || tk.Source != source || tk.DB != "shop" || tk.Question == "" {
			t.Errorf("kept task %+v: want source %s and level %q", tk, source, want[tk.SQL])
		}
		if tk.ID != author.TaskID("shop", tk.Complexity, tk.SQL) {
			t.Errorf("task id %s is not the author package's", tk.ID)
		}
	}
}

func TestOpenAITeacherThroughTheFilter(t *testing.T) {
	s, f := shop(t)
	sc := &script{answers: []canned{
		openAIAnswer("Sure! I will write the pairs now.", "stop"), // malformed: asked again
		{status: 503, body: `{"error":{"message":"busy","type":"server_error"}}`},
		{status: 429, header: map[string]string{"Retry-After": "0"}, body: `{"error":{"message":"slow down","type":"rate_limit"}}`},
		openAIAnswer("```json\n"+goodPairs+"\n```", "stop"),
	}}
	srv := httptest.NewServer(sc)
	defer srv.Close()
	w := &waits{}
	tc := newTeacher(t, ProviderOpenAI, srv.URL+"/v1", w, Options{Temperature: new(0.7)})
	kept, cnt, err := run(t, tc, s, f, 4, 5)
	if err != nil {
		t.Fatal(err)
	}
	checkKept(t, kept, "teacher:openai:m1")
	if cnt.Dropped[goldfilter.ReasonError] != 1 {
		t.Errorf("dropped %v: want the failing gold dropped as an error", cnt.Dropped)
	}
	st := tc.Stats()
	if st.Requests != 2 || st.Malformed != 1 || st.BadItems != 2 || st.Retries != 2 || st.Proposed != 5 {
		t.Errorf("stats %+v: want 2 requests, 1 malformed, 2 bad items, 2 retries, 5 proposed", st)
	}
	if len(w.d) != 2 || w.d[1] != 0 {
		t.Errorf("waits %v: want a backoff, then Retry-After's 0", w.d)
	}
	body := sc.bodies[0]
	msgs, _ := body["messages"].([]any)
	if sc.paths[0] != "POST /v1/chat/completions" || body["model"] != "m1" || len(msgs) != 2 || body["temperature"] != 0.7 || body["seed"] == nil {
		t.Fatalf("request %s %v", sc.paths[0], body)
	}
	user, _ := msgs[1].(map[string]any)["content"].(string)
	if !strings.Contains(user, "CREATE TABLE customers") || !strings.Contains(user, "FOREIGN KEY") || !strings.Contains(user, "-- e.g.") {
		t.Errorf("the prompt does not show the schema with keys and samples:\n%s", user)
	}
	if got := sc.headers[0].Get("Authorization"); got != "Bearer test-key" {
		t.Errorf("Authorization %q", got)
	}
}

func TestAnthropicTeacherThroughTheFilter(t *testing.T) {
	s, f := shop(t)
	sc := &script{answers: []canned{
		anthropicError(429, "rate_limit_error", "Number of requests has exceeded your rate limit", map[string]string{"retry-after": "2"}),
		anthropicError(529, "overloaded_error", "Overloaded", nil),
		anthropicAnswer(`{"pairs": `+goodPairs+`}`, "end_turn"),
	}}
	srv := httptest.NewServer(sc)
	defer srv.Close()
	w := &waits{}
	tc := newTeacher(t, ProviderAnthropic, srv.URL, w, Options{})
	kept, _, err := run(t, tc, s, f, 4, 5)
	if err != nil {
		t.Fatal(err)
	}
	checkKept(t, kept, "teacher:anthropic:claude-test")
	if st := tc.Stats(); st.Requests != 1 || st.Retries != 2 || st.BadItems != 2 || st.Malformed != 0 {
		t.Errorf("stats %+v", st)
	}
	if len(w.d) != 2 || w.d[0] != 2*time.Second || w.d[1] <= 0 {
		t.Errorf("waits %v: want retry-after's 2s, then a backoff", w.d)
	}
	for i, p := range sc.paths {
		if p != "POST /v1/messages" {
			t.Errorf("request %d went to %s", i, p)
		}
	}
	h := sc.headers[2]
	// This SDK version sends the key as a bearer token; the API reads it
	// there or in x-api-key.
	if h.Get("X-Api-Key") != "test-key" && h.Get("Authorization") != "Bearer test-key" || h.Get("Anthropic-Version") == "" {
		t.Errorf("headers: x-api-key %q, authorization %q, anthropic-version %q", h.Get("X-Api-Key"), h.Get("Authorization"), h.Get("Anthropic-Version"))
	}
	body := sc.bodies[2]
	sys, _ := body["system"].([]any)
	msgs, _ := body["messages"].([]any)
	if body["model"] != "claude-test" || body["max_tokens"] != float64(DefaultMaxTokens) || len(sys) != 1 || len(msgs) != 1 {
		t.Fatalf("body %v", body)
	}
	if b, _ := json.Marshal(msgs[0]); !strings.Contains(string(b), "CREATE TABLE orders") {
		t.Errorf("user message lacks the schema: %s", b)
	}
}

// A reply cut off by max_tokens still gives its complete pairs.
func TestAnthropicCutReply(t *testing.T) {
	cut := goodPairs[:strings.Index(goodPairs, `{"question": "What are the names`)] + `{"question": "What are the na`
	sc := &script{answers: []canned{anthropicAnswer(cut, "max_tokens")}}
	srv := httptest.NewServer(sc)
	defer srv.Close()
	tc := newTeacher(t, ProviderAnthropic, srv.URL, &waits{}, Options{PerRequest: 2})
	cands, err := tc.Propose(context.Background(), &sqlgym.Schema{}, 2, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	if len(cands) != 2 || cands[1].SQL != "SELECT nickname FROM customers" {
		t.Errorf("candidates %+v", cands)
	}
	if st := tc.Stats(); st.Truncated != 1 || st.Cut != 1 || st.Malformed != 0 {
		t.Errorf("stats %+v: want one truncated, cut reply", st)
	}
}

// A server that stays overloaded stops the run with an infra error after
// the retries; the tasks kept before stay kept.
func TestPersistentFailureStopsAfterKeeping(t *testing.T) {
	for _, provider := range []string{ProviderOpenAI, ProviderAnthropic} {
		t.Run(provider, func(t *testing.T) {
			s, f := shop(t)
			good := anthropicAnswer(goodPairs, "end_turn")
			down := anthropicError(529, "overloaded_error", "Overloaded", nil)
			if provider == ProviderOpenAI {
				good = openAIAnswer(goodPairs, "stop")
				down = canned{status: 502, body: "<html><title>502 Bad Gateway</title></html>"}
			}
			sc := &script{answers: []canned{good, down}}
			srv := httptest.NewServer(sc)
			defer srv.Close()
			url := srv.URL
			if provider == ProviderOpenAI {
				url += "/v1"
			}
			tc := newTeacher(t, provider, url, &waits{}, Options{MaxRetries: 2})
			kept, cnt, err := run(t, tc, s, f, 8, 5)
			if err == nil {
				t.Fatal("a server down for good did not stop the run")
			}
			if !IsInfra(err) {
				t.Errorf("error %v is not an infra error", err)
			}
			if !strings.Contains(err.Error(), "after 3 attempts") {
				t.Errorf("error %q does not say how many attempts", err)
			}
			if len(kept) != 4 || cnt.Kept != 4 {
				t.Errorf("kept %d (counts %d) before the failure, want 4", len(kept), cnt.Kept)
			}
			if n := sc.calls(); n != 4 {
				t.Errorf("%d requests, want 1 good and 3 failed attempts", n)
			}
		})
	}
}

func TestRefusedRequestsAreNotRetried(t *testing.T) {
	sc := &script{answers: []canned{anthropicError(401, "authentication_error", "invalid x-api-key", nil)}}
	srv := httptest.NewServer(sc)
	defer srv.Close()
	tc := newTeacher(t, ProviderAnthropic, srv.URL, &waits{}, Options{})
	_, err := tc.Propose(context.Background(), &sqlgym.Schema{}, 3, rand.New(rand.NewPCG(1, 1)))
	var ue *sqlgym.UserError
	if err == nil || IsInfra(err) || !errors.As(err, &ue) || !strings.Contains(ue.Hint, "ANTHROPIC_API_KEY") {
		t.Fatalf("error %v: want a refused request with a key hint", err)
	}
	if !strings.Contains(err.Error(), "invalid x-api-key") {
		t.Errorf("error %q lacks the server's message", err)
	}
	if sc.calls() != 1 {
		t.Errorf("%d requests for a 401, want 1", sc.calls())
	}
}

func TestMalformedRunStops(t *testing.T) {
	sc := &script{answers: []canned{openAIAnswer("I cannot help with that.", "stop")}}
	srv := httptest.NewServer(sc)
	defer srv.Close()
	tc := newTeacher(t, ProviderOpenAI, srv.URL+"/v1", &waits{}, Options{MaxMalformed: 3, Parallel: 1})
	_, err := tc.Propose(context.Background(), &sqlgym.Schema{}, 3, rand.New(rand.NewPCG(1, 1)))
	if err == nil || !strings.Contains(err.Error(), "3 malformed replies in a row") {
		t.Fatalf("error %v", err)
	}
	if st := tc.Stats(); st.Malformed != 3 || sc.calls() != 3 {
		t.Errorf("stats %+v after %d calls", st, sc.calls())
	}
}
