// Package evaltest is a scripted OpenAI-compatible chat completions server
// for tests of evaluation runs: it answers each (question, sample) with a
// reply fixed in advance, over the real wire JSON, and can be slowed down
// or made to fail for chosen questions.
package evaltest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Reply is one scripted answer: the message content and the finish reason
// ("stop" when empty).
type Reply struct {
	Content string
	Finish  string
}

// Gold wraps sql in a ```sql fence, the way a model answers the default
// prompt.
func Gold(sql string) Reply { return Reply{Content: "Here is the query.\n```sql\n" + sql + "\n```"} }

// Server answers POST /v1/chat/completions. A request's sample index is
// its seed minus Seed0 (0 without a seed); choice i of a request with n
// choices is sample index+i. The question is read from the prompt's
// "Question: " line.
type Server struct {
	*httptest.Server
	Seed0 int

	mu      sync.Mutex
	replies map[string][]Reply
	down    map[string]bool
	delay   time.Duration
	seen    map[string][]int // question -> sample indices asked, in order

	Calls atomic.Int64 // requests answered with choices
	Fails atomic.Int64 // requests answered 503
}

// New starts a server with replies per question.
func New(replies map[string][]Reply, seed0 int) *Server {
	s := &Server{Seed0: seed0, replies: replies, down: map[string]bool{}, seen: map[string][]int{}}
	s.Server = httptest.NewServer(http.HandlerFunc(s.handle))
	return s
}

// BaseURL is the OpenAI-compatible root.
func (s *Server) BaseURL() string { return s.URL + "/v1" }

// SetDown makes every request about question fail with 503 (with
// Retry-After: 0, so clients retry at once) until set back.
func (s *Server) SetDown(question string, down bool) {
	s.mu.Lock()
	s.down[question] = down
	s.mu.Unlock()
}

// SetDelay slows every answer down.
func (s *Server) SetDelay(d time.Duration) {
	s.mu.Lock()
	s.delay = d
	s.mu.Unlock()
}

// Asked returns the sample indices asked for a question, in order.
func (s *Server) Asked(question string) []int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]int(nil), s.seen[question]...)
}

type request struct {
	Messages []struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	} `json:"messages"`
	N    int  `json:"n"`
	Seed *int `json:"seed"`
}

func (s *Server) handle(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		writeError(w, http.StatusNotFound, "no route "+r.URL.Path)
		return
	}
	var req request
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		writeError(w, http.StatusBadRequest, "bad JSON: "+err.Error())
		return
	}
	prompt := ""
	for _, m := range req.Messages {
		if m.Role == "user" {
			prompt = m.Content
		}
	}
	question := questionOf(prompt)
	s.mu.Lock()
	replies, ok := s.replies[question]
	down, delay := s.down[question], s.delay
	s.mu.Unlock()
	if delay > 0 {
		time.Sleep(delay)
	}
	if !ok {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("no scripted replies for question %q", question))
		return
	}
	if down {
		s.Fails.Add(1)
		w.Header().Set("Retry-After", "0")
		writeError(w, http.StatusServiceUnavailable, "model is overloaded")
		return
	}
	n := max(req.N, 1)
	first := 0
	if req.Seed != nil {
		first = *req.Seed - s.Seed0
	}
	type choice struct {
		Index   int `json:"index"`
		Message struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		} `json:"message"`
		FinishReason string `json:"finish_reason"`
	}
	var choices []choice
	completion := 0
	s.mu.Lock()
	for i := range n {
		idx := first + i
		s.seen[question] = append(s.seen[question], idx)
		rep := replies[((idx%len(replies))+len(replies))%len(replies)]
		c := choice{Index: i, FinishReason: rep.Finish}
		if c.FinishReason == "" {
			c.FinishReason = "stop"
		}
		c.Message.Role, c.Message.Content = "assistant", rep.Content
		choices = append(choices, c)
		completion += len(rep.Content)/4 + 1
	}
	s.mu.Unlock()
	s.Calls.Add(1)
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{
		"id": "chatcmpl-test", "object": "chat.completion", "model": "scripted",
		"choices": choices,
		"usage":   map[string]int{"prompt_tokens": len(prompt)/4 + 1, "completion_tokens": completion, "total_tokens": len(prompt)/4 + 1 + completion},
	})
}

func questionOf(prompt string) string {
	for _, line := range strings.Split(prompt, "\n") {
		if q, ok := strings.CutPrefix(line, "Question: "); ok {
			return strings.TrimSpace(q)
		}
	}
	return ""
}

func writeError(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": msg, "type": "test", "code": code}})
}
