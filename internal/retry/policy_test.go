package retry

import (
	"context"
	"errors"
	"net"
	"net/http"
	"testing"
	"time"
)

func TestStatus(t *testing.T) {
	for code, want := range map[int]bool{200: false, 400: false, 401: false, 403: false, 404: false, 422: false,
		408: true, 409: true, 429: true, 500: true, 501: false, 502: true, 503: true, 504: true, 505: false, 529: true, 600: false} {
		if Status(code) != want {
			t.Errorf("Status(%d) = %v, want %v", code, !want, want)
		}
	}
}

func TestAfterParsing(t *testing.T) {
	now := time.Date(2025, 11, 29, 12, 0, 0, 0, time.UTC)
	cases := []struct {
		header, value string
		want          time.Duration
		ok            bool
	}{
		{"Retry-After", "3", 3 * time.Second, true},
		{"Retry-After", "0.5", 500 * time.Millisecond, true},
		{"Retry-After", "Sat, 29 Nov 2025 12:00:07 GMT", 7 * time.Second, true},
		{"Retry-After", "Sat, 29 Nov 2025 11:59:00 GMT", 0, true},
		{"Retry-After", "soon", 0, false},
		{"Retry-After", "-4", 0, false},
		{"Retry-After-Ms", "250", 250 * time.Millisecond, true},
		{"X-Other", "5", 0, false},
	}
	for _, tc := range cases {
		h := http.Header{}
		h.Set(tc.header, tc.value)
		got, ok := After(h, now)
		if got != tc.want || ok != tc.ok {
			t.Errorf("%s: %s -> %v %v, want %v %v", tc.header, tc.value, got, ok, tc.want, tc.ok)
		}
	}
}

func TestBackoffBounds(t *testing.T) {
	base, limit := 500*time.Millisecond, 20*time.Second
	seen := map[time.Duration]bool{}
	for retry := range 10 {
		hi := min(base<<retry, limit)
		for range 50 {
			d := Backoff(retry, base, limit)
			if d < hi/2 || d > hi {
				t.Fatalf("Backoff(%d) = %v, want within [%v, %v]", retry, d, hi/2, hi)
			}
			seen[d] = true
		}
	}
	if len(seen) < 100 {
		t.Errorf("backoff is barely jittered: %d distinct waits out of 500", len(seen))
	}
}

func TestPolicyWaitAndAgain(t *testing.T) {
	p := Policy{MaxRetries: 2, Base: time.Second, Cap: 4 * time.Second, MaxAfter: 10 * time.Second}.WithDefaults()
	if got := p.Wait(1, 3*time.Second, true); got != 3*time.Second {
		t.Errorf("Retry-After 3s gave a wait of %v", got)
	}
	if got := p.Wait(1, time.Hour, true); got != 10*time.Second {
		t.Errorf("Retry-After of an hour is not capped: %v", got)
	}
	if got := p.Wait(3, 0, false); got < 2*time.Second || got > 4*time.Second {
		t.Errorf("third wait %v, want the capped step within [2s, 4s]", got)
	}
	if !p.Again(1) || !p.Again(2) || p.Again(3) {
		t.Errorf("MaxRetries 2: Again(1..3) = %v %v %v, want true true false", p.Again(1), p.Again(2), p.Again(3))
	}
	if d := (Policy{}).WithDefaults(); d.MaxRetries != DefaultMaxRetries || d.Base != DefaultBase || d.Cap != DefaultCap || d.MaxAfter != DefaultMaxAfter {
		t.Errorf("defaults %+v", d)
	}
	if none := (Policy{MaxRetries: -1}).WithDefaults(); none.Again(1) {
		t.Error("a negative MaxRetries still retries")
	}
}

func TestSleepEndsWithContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	// An hour's sleep that ignored its context would outlast the hang
	// watchdog; one that ended with it returns the context's error.
	done := make(chan error, 1)
	go func() { done <- Sleep(ctx, time.Hour) }()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("Sleep on a cancelled context = %v", err)
		}
	case <-time.After(2 * time.Minute):
		t.Fatal("hung: Sleep of an hour did not end with its cancelled context")
	}
	if err := Sleep(context.Background(), time.Millisecond); err != nil {
		t.Fatalf("Sleep 1ms = %v", err)
	}
}

func TestCauseOfARefusedConnection(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	_, err = http.Get("http://" + addr + "/v1/models")
	if err == nil {
		t.Fatal("a closed port answered")
	}
	if got := Cause(err); got != "connection refused" {
		t.Errorf("Cause = %q for %v", got, err)
	}
	if !Unreachable(err) {
		t.Errorf("Unreachable(%v) = false", err)
	}
	if Unreachable(context.DeadlineExceeded) || Cause(context.DeadlineExceeded) != "timed out" {
		t.Errorf("a deadline: Unreachable %v, Cause %q", Unreachable(context.DeadlineExceeded), Cause(context.DeadlineExceeded))
	}
}
