package model

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym/internal/retry"
)

const proxy502 = `<html>
<head><title>502 Bad Gateway</title></head>
<body>
<center><h1>502 Bad Gateway</h1></center>
<hr><center>nginx/1.27.4</center>
</body>
</html>
`

func TestChatRetriesThenSucceeds(t *testing.T) {
	future := time.Now().Add(90 * time.Second).UTC().Format(http.TimeFormat)
	cases := []struct {
		name string
		fail func(w http.ResponseWriter)
		// check the single recorded wait
		wait func(d time.Duration) bool
	}{
		{
			name: "429 with Retry-After seconds",
			fail: func(w http.ResponseWriter) {
				w.Header().Set("Retry-After", "2")
				writeJSON(w, 429, `{"error":{"message":"Rate limit reached for requests","type":"requests","param":null,"code":"rate_limit_exceeded"}}`)
			},
			wait: func(d time.Duration) bool { return d == 2*time.Second },
		},
		{
			name: "429 with Retry-After as an HTTP date is capped",
			fail: func(w http.ResponseWriter) {
				w.Header().Set("Retry-After", future)
				writeJSON(w, 429, `{"error":{"message":"slow down","type":"requests","param":null,"code":"rate_limit_exceeded"}}`)
			},
			wait: func(d time.Duration) bool { return d == DefaultMaxRetryAfter },
		},
		{
			name: "503 with retry-after-ms",
			fail: func(w http.ResponseWriter) {
				w.Header().Set("Retry-After-Ms", "1500")
				writeJSON(w, 503, `{"error":{"message":"The server is overloaded","type":"server_error","param":null,"code":null}}`)
			},
			wait: func(d time.Duration) bool { return d == 1500*time.Millisecond },
		},
		{
			name: "500 then success backs off from the base",
			fail: func(w http.ResponseWriter) {
				writeJSON(w, 500, `{"object":"error","message":"CUDA error: an illegal memory access was encountered","type":"InternalServerError","param":null,"code":500}`)
			},
			wait: func(d time.Duration) bool { return d >= DefaultBackoffBase/2 && d <= DefaultBackoffBase },
		},
		{
			name: "502 HTML page from a proxy",
			fail: func(w http.ResponseWriter) {
				w.Header().Set("Content-Type", "text/html")
				w.WriteHeader(502)
				w.Write([]byte(proxy502))
			},
			wait: func(d time.Duration) bool { return d >= DefaultBackoffBase/2 && d <= DefaultBackoffBase },
		},
		{
			name: "200 with an HTML body",
			fail: func(w http.ResponseWriter) {
				w.Header().Set("Content-Type", "text/html")
				w.Write([]byte("<html><body>Please log in</body></html>"))
			},
			wait: func(d time.Duration) bool { return d > 0 },
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, call int, body map[string]any) {
				if call == 1 {
					tc.fail(w)
					return
				}
				writeJSON(w, 200, vllmAnswer(1, "ok"))
			})
			c, sleeps := newTestClient(t, srv.base())
			resp, err := c.Chat(context.Background(), Request{Messages: userAsks})
			if err != nil {
				t.Fatal(err)
			}
			if resp.Choices[0].Content != "ok0" || resp.Attempts != 2 || srv.calls() != 2 {
				t.Errorf("content %q after %d attempts, %d calls", resp.Choices[0].Content, resp.Attempts, srv.calls())
			}
			w := sleeps.waits()
			if len(w) != 1 || !tc.wait(w[0]) {
				t.Errorf("waits = %v", w)
			}
		})
	}
}

func TestChatInfraAfterRetries(t *testing.T) {
	cases := []struct {
		name    string
		fail    func(w http.ResponseWriter)
		wantMsg []string
	}{
		{
			name: "503 forever",
			fail: func(w http.ResponseWriter) {
				writeJSON(w, 503, `{"error":{"message":"Service is loading the model","type":"server_error","param":null,"code":503}}`)
			},
			wantMsg: []string{"unavailable after 7 attempts", "503 Service Unavailable", "Service is loading the model"},
		},
		{
			name: "HTML 502 page forever",
			fail: func(w http.ResponseWriter) {
				w.Header().Set("Content-Type", "text/html")
				w.WriteHeader(502)
				w.Write([]byte(proxy502))
			},
			wantMsg: []string{"unavailable after 7 attempts", "502 Bad Gateway: HTML page 502 Bad Gateway", "nginx/1.27.4"},
		},
		{
			name: "empty choices",
			fail: func(w http.ResponseWriter) {
				writeJSON(w, 200, `{"id":"c","object":"chat.completion","model":"m","choices":[]}`)
			},
			wantMsg: []string{"unavailable after 7 attempts", "no choices"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, call int, body map[string]any) { tc.fail(w) })
			c, sleeps := newTestClient(t, srv.base())
			_, err := c.Chat(context.Background(), Request{Messages: userAsks})
			if !IsInfra(err) {
				t.Fatalf("err = %v, want an infra error", err)
			}
			for _, m := range tc.wantMsg {
				if !strings.Contains(err.Error(), m) {
					t.Errorf("error %q lacks %q", err, m)
				}
			}
			if strings.Contains(err.Error(), "invalid character") {
				t.Errorf("error shows a JSON decode failure: %v", err)
			}
			var me *Error
			if !errors.As(err, &me) || me.Attempts != DefaultMaxRetries+1 {
				t.Errorf("attempts = %+v", me)
			}
			if srv.calls() != DefaultMaxRetries+1 {
				t.Errorf("server saw %d calls", srv.calls())
			}
			w := sleeps.waits()
			if len(w) != DefaultMaxRetries {
				t.Fatalf("waits = %v", w)
			}
			// Exponential from 0.5 s, jitter over the upper half, capped at 20 s.
			for i, d := range w {
				hi := min(DefaultBackoffBase<<i, DefaultBackoffCap)
				if d < hi/2 || d > hi {
					t.Errorf("wait %d = %v, want within [%v, %v]", i, d, hi/2, hi)
				}
			}
		})
	}
}

func TestChatConnectionFailures(t *testing.T) {
	t.Run("closed mid-response then success", func(t *testing.T) {
		srv := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, call int, body map[string]any) {
			if call == 1 {
				conn, buf, err := w.(http.Hijacker).Hijack()
				if err != nil {
					t.Error(err)
					return
				}
				buf.WriteString("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 900\r\n\r\n{\"id\":\"chatcmpl-1\",\"choices\":[{\"index\":0,")
				buf.Flush()
				conn.Close()
				return
			}
			writeJSON(w, 200, vllmAnswer(1, "ok"))
		})
		c, sleeps := newTestClient(t, srv.base())
		resp, err := c.Chat(context.Background(), Request{Messages: userAsks})
		if err != nil {
			t.Fatal(err)
		}
		if resp.Attempts != 2 || resp.Choices[0].Content != "ok0" || len(sleeps.waits()) != 1 {
			t.Errorf("attempts %d, content %q, waits %v", resp.Attempts, resp.Choices[0].Content, sleeps.waits())
		}
	})

	t.Run("slow server beyond the attempt timeout", func(t *testing.T) {
		// The first call never answers on its own: only the client
		// hanging up (its attempt timeout) ends it before the hang
		// watchdog, and the handler says which did.
		firstEnded := make(chan string, 1)
		srv := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, call int, body map[string]any) {
			if call == 1 {
				select {
				case <-r.Context().Done():
					firstEnded <- "cut by the client"
				case <-time.After(2 * time.Minute):
					firstEnded <- "hung: never cut by the client, ended by the server's watchdog"
				}
				return
			}
			writeJSON(w, 200, vllmAnswer(1, "ok"))
		})
		c, _ := newTestClient(t, srv.base(), WithAttemptTimeout(150*time.Millisecond))
		resp, err := c.Chat(context.Background(), Request{Messages: userAsks})
		if err != nil {
			t.Fatal(err)
		}
		if resp.Attempts != 2 || srv.calls() != 2 {
			t.Errorf("attempts %d, calls %d", resp.Attempts, srv.calls())
		}
		if how := <-firstEnded; how != "cut by the client" {
			t.Errorf("the slow attempt at its 150ms timeout: %s", how)
		}
	})

	t.Run("slow server forever names the timeout", func(t *testing.T) {
		srv := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, call int, body map[string]any) {
			<-r.Context().Done()
		})
		c, _ := newTestClient(t, srv.base(), WithAttemptTimeout(50*time.Millisecond), WithMaxRetries(2))
		_, err := c.Chat(context.Background(), Request{Messages: userAsks})
		if !IsInfra(err) || !strings.Contains(err.Error(), "after 3 attempts") || !strings.Contains(err.Error(), "attempt timeout of 50ms") {
			t.Errorf("err = %v", err)
		}
	})

	t.Run("connection refused", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		ln.Close()
		c, sleeps := newTestClient(t, "http://"+addr+"/v1", WithMaxRetries(2))
		_, err = c.Chat(context.Background(), Request{Messages: userAsks})
		if !IsInfra(err) || !strings.Contains(err.Error(), "after 3 attempts: connection failed") {
			t.Errorf("err = %v", err)
		}
		if len(sleeps.waits()) != 2 {
			t.Errorf("waits = %v", sleeps.waits())
		}
	})

	t.Run("no retries configured", func(t *testing.T) {
		srv := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, call int, body map[string]any) {
			writeJSON(w, 500, `{"error":{"message":"boom","type":"server_error","code":500}}`)
		})
		c, _ := newTestClient(t, srv.base(), WithMaxRetries(0))
		_, err := c.Chat(context.Background(), Request{Messages: userAsks})
		if !IsInfra(err) || srv.calls() != 1 {
			t.Errorf("err = %v after %d calls", err, srv.calls())
		}
	})
}

func TestChatContextEndsRetries(t *testing.T) {
	t.Run("cancel during backoff", func(t *testing.T) {
		srv := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, call int, body map[string]any) {
			writeJSON(w, 503, `{"error":{"message":"overloaded","type":"server_error","code":503}}`)
		})
		// The real sleep behind a signal, with a backoff so long that only
		// cancellation can end it soon.
		first := make(chan struct{})
		var once sync.Once
		// What the sleep returned says what ended it: the minute running
		// out (nil) or the caller's cancellation reaching it.
		sleepEnded := make(chan error, 1)
		c, err := New(srv.base(), WithBackoff(time.Minute, time.Minute), WithSleep(func(ctx context.Context, d time.Duration) error {
			once.Do(func() { close(first) })
			err := retry.Sleep(ctx, d)
			select {
			case sleepEnded <- err:
			default:
			}
			return err
		}))
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		go func() { <-first; cancel() }()
		_, err = c.Chat(ctx, Request{Messages: userAsks})
		if !errors.Is(err, context.Canceled) || IsInfra(err) {
			t.Errorf("err = %v; want a cancellation, not an infra error", err)
		}
		if serr := <-sleepEnded; !errors.Is(serr, context.Canceled) {
			t.Errorf("the backoff ended with %v, not by the cancellation", serr)
		}
		if srv.calls() != 1 || !strings.Contains(err.Error(), "overloaded") {
			t.Errorf("calls %d, err %v", srv.calls(), err)
		}
	})

	t.Run("cancel during a request", func(t *testing.T) {
		arrived := make(chan struct{})
		srv := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, call int, body map[string]any) {
			close(arrived)
			<-r.Context().Done()
		})
		c, _ := newTestClient(t, srv.base())
		ctx, cancel := context.WithCancel(context.Background())
		go func() { <-arrived; cancel() }()
		_, err := c.Chat(ctx, Request{Messages: userAsks})
		if !errors.Is(err, context.Canceled) || IsInfra(err) || srv.calls() != 1 {
			t.Errorf("err = %v after %d calls", err, srv.calls())
		}
	})

	t.Run("caller deadline while the server fails is infra", func(t *testing.T) {
		srv := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, call int, body map[string]any) {
			writeJSON(w, 503, `{"error":{"message":"overloaded","type":"server_error","code":503}}`)
		})
		c, err := New(srv.base(), WithBackoff(time.Minute, time.Minute))
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		_, err = c.Chat(ctx, Request{Messages: userAsks})
		if !errors.Is(err, context.DeadlineExceeded) || !IsInfra(err) {
			t.Errorf("err = %v", err)
		}
	})
}

func TestReadableBody(t *testing.T) {
	cases := []struct{ body, ctype, want string }{
		{`{"error":{"message":"bad temperature","type":"invalid_request_error"}}`, "application/json", "bad temperature"},
		{`{"object":"error","message":"The model x does not exist.","type":"NotFoundError","code":404}`, "application/json", "The model x does not exist."},
		{`{"error":"model \"llama9\" not found, try pulling it first"}`, "application/json", `model "llama9" not found, try pulling it first`},
		{`{"detail":"Not Found"}`, "application/json", "Not Found"},
		{proxy502, "text/html", "HTML page 502 Bad Gateway: 502 Bad Gateway nginx/1.27.4"},
		{"<!DOCTYPE html><html><head><style>p{}</style></head><body><p>Upstream &amp; down</p></body></html>", "", "HTML page: Upstream & down"},
		{"upstream connect error or disconnect/reset before headers", "text/plain", "upstream connect error or disconnect/reset before headers"},
		{"", "", ""},
		{`{"unexpected":true}`, "application/json", `{"unexpected":true}`},
	}
	for _, tc := range cases {
		if got := readableBody([]byte(tc.body), tc.ctype); got != tc.want {
			t.Errorf("readableBody(%.40q) = %q, want %q", tc.body, got, tc.want)
		}
	}
	long := strings.Repeat("é", 400)
	if got := readableBody([]byte(long), "text/plain"); len(got) > 310 || !strings.HasSuffix(got, "…") {
		t.Errorf("long text not cut: %d bytes", len(got))
	}
}
