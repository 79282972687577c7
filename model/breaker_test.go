package model

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
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
	// Every retry sleeps first: the count of sleeps is the count of
	// retries spent.
	var sleeps atomic.Int64
	c, err := NewFromConfig(Config{BaseURL: base, MaxRetries: 100, BreakAfter: 5, BreakSpan: time.Nanosecond,
		Sleep: func(context.Context, time.Duration) error { sleeps.Add(1); return nil }})
	if err != nil {
		t.Fatal(err)
	}
	req := Request{Messages: []sqlgym.Message{{Role: "user", Content: "hi"}}}
	_, err = c.Chat(context.Background(), req)
	var me *Error
	if !errors.Is(err, ErrServerGone) || !errors.As(err, &me) || !me.Infra {
		t.Fatalf("err = %v, want ErrServerGone", err)
	}
	if n := sleeps.Load(); n == 0 || n >= 100 {
		t.Fatalf("first call retried %d times, want a few before the breaker opened (at 5 failures), not all 100", n)
	}
	before := sleeps.Load()
	if _, err := c.Chat(context.Background(), req); !errors.Is(err, ErrServerGone) {
		t.Fatalf("second call: %v, want ErrServerGone", err)
	}
	if n := sleeps.Load() - before; n != 0 {
		t.Fatalf("second call retried %d times with the breaker open, want none", n)
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
