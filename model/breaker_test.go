package model

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"syscall"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym"
)

// Connection failures in a row open the breaker: the call then fails with
// ErrServerGone instead of spending its retries, and so does every later
// call, at once.
func TestBreakerOpensOnConnectionFailures(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	base := srv.URL + "/v1"
	srv.Close()
	c, err := NewFromConfig(Config{BaseURL: base, MaxRetries: 100, BreakAfter: 5, BreakSpan: time.Nanosecond,
		Sleep: func(context.Context, time.Duration) error { return nil }})
	if err != nil {
		t.Fatal(err)
	}
	req := Request{Messages: []sqlgym.Message{{Role: "user", Content: "hi"}}}
	_, err = c.Chat(context.Background(), req)
	var me *Error
	if !errors.Is(err, ErrServerGone) || !errors.As(err, &me) || !me.Infra {
		t.Fatalf("err = %v, want ErrServerGone", err)
	}
	start := time.Now()
	if _, err := c.Chat(context.Background(), req); !errors.Is(err, ErrServerGone) || time.Since(start) > time.Second {
		t.Fatalf("second call: %v after %v", err, time.Since(start))
	}
}

// An answer, even an error status, resets the count: a server that is
// there is never declared gone.
func TestBreakerResetsOnAnAnswer(t *testing.T) {
	b := &breaker{after: 3, span: 0}
	refused := &failure{err: fmt.Errorf("dial tcp: %w", syscall.ECONNREFUSED), msg: "connection refused"}
	for range 2 {
		b.note(refused)
	}
	b.note(&failure{status: 503})
	for range 2 {
		if b.note(refused) {
			t.Fatal("opened after two failures following an answer")
		}
	}
	if !b.note(refused) {
		t.Fatal("three failures in a row did not open it")
	}
}
