package model

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/sqlgym/sqlgym"
)

// modelsServer answers GET /v1/models with status (and vLLM's model list
// when 200) and chat completions with a vLLM answer; it records the
// Authorization header /models was asked with.
func modelsServer(t *testing.T, status int) (string, func() string) {
	var mu sync.Mutex
	var auth string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/v1/models":
			mu.Lock()
			auth = r.Header.Get("Authorization")
			mu.Unlock()
			switch status {
			case 200:
				writeJSON(w, 200, `{"object":"list","data":[{"id":"Qwen/Qwen3-8B","object":"model","owned_by":"vllm"}]}`)
			case 401:
				writeJSON(w, 401, `{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","code":"invalid_api_key"}}`)
			case 404:
				http.NotFound(w, r) // a server with no /models route, e.g. a bare proxy
			default:
				writeJSON(w, status, `{"object":"error","message":"model not loaded yet","type":"InternalServerError","code":500}`)
			}
		case "/v1/chat/completions":
			writeJSON(w, 200, vllmAnswer(1, "SELECT "))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/v1", func() string { mu.Lock(); defer mu.Unlock(); return auth }
}

func TestCheckBeforeARun(t *testing.T) {
	closed := httptest.NewServer(http.NotFoundHandler())
	closedURL := closed.URL + "/v1"
	closed.Close()

	cases := []struct {
		name   string
		status int // 0: the closed server
		fatal  bool
		want   []string // in the message or hint
	}{
		{"server down", 0, true, []string{"does not answer", "connection refused", "is the server running at " + closedURL}},
		{"key refused", 401, true, []string{"refused the API key", "401 Unauthorized", "Incorrect API key", "OPENAI_API_KEY"}},
		{"server failing", 500, true, []string{"fails", "500 Internal Server Error", "model not loaded yet", "read its log"}},
		{"bad gateway", 502, true, []string{"502 Bad Gateway"}},
		{"no /models route", 404, false, nil},
		{"listed", 200, false, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			base, auth := closedURL, func() string { return "" }
			if tc.status != 0 {
				base, auth = modelsServer(t, tc.status)
			}
			c, _ := newTestClient(t, base, WithAPIKey("sk-test"), WithMaxRetries(1))
			err := c.Check(context.Background())
			if !tc.fatal {
				if err != nil {
					t.Fatalf("Check = %v, want the run let through", err)
				}
				// Chat completions still work: a 404 on /models must not block.
				resp, err := c.Chat(context.Background(), Request{Messages: userAsks})
				if err != nil || len(resp.Choices) != 1 {
					t.Fatalf("chat after the check: %v", err)
				}
				if got := auth(); got != "Bearer sk-test" {
					t.Errorf("/models asked with Authorization %q", got)
				}
				return
			}
			var ue *sqlgym.UserError
			if !errors.As(err, &ue) {
				t.Fatalf("Check = %v (%T), want a UserError", err, err)
			}
			text := err.Error() + "\nhint: " + ue.Hint
			for _, w := range tc.want {
				if !strings.Contains(text, w) {
					t.Errorf("%q lacks %q", text, w)
				}
			}
		})
	}
}

// Each retry reaches OnRetry with its cause before the wait, so a
// progress line can show that the server is failing and why.
func TestOnRetryHearsTheCause(t *testing.T) {
	var mu sync.Mutex
	calls := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		calls++
		n := calls
		mu.Unlock()
		if n == 1 {
			w.Header().Set("Retry-After", "0")
			writeJSON(w, 503, `{"error":{"message":"overloaded","type":"server_error"}}`)
			return
		}
		writeJSON(w, 200, vllmAnswer(1, "SELECT "))
	}))
	defer srv.Close()
	var got []Retry
	c, err := NewFromConfig(Config{BaseURL: srv.URL + "/v1", Model: "m", OnRetry: func(r Retry) {
		mu.Lock()
		got = append(got, r)
		mu.Unlock()
	}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Chat(context.Background(), Request{Messages: userAsks}); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Attempt != 1 || got[0].Status != 503 || got[0].Cause != "HTTP 503 Service Unavailable" || got[0].Wait != 0 {
		t.Fatalf("retries heard %+v, want one after a 503 with no wait", got)
	}
}
