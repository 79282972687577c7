package postgres

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/engine/enginetest"
)

// TestLoadRetry checks the second run of a timed-out statement: it
// happens only when the server is slower than its reference, with the
// limit stretched by at most maxRetryStretch, and its verdict stands. The
// server's speed is set through the reference itself, and pg_sleep
// (unscreened) makes the statement's length independent of the load, so
// the verdicts tell what happened: no assertion here needs the machine
// to be fast (the one time checked is a lower bound).
func TestLoadRetry(t *testing.T) {
	s := newSandbox(t, enginetest.Fixture())
	eng := s.open(t, Options{MaxConns: 2})
	if eng.cal.idle == 0 {
		t.Fatal("Open took no reference probe")
	}
	eng.unscreened = true
	lim := sqlgym.Limits{Timeout: 300 * time.Millisecond}
	const sleeper = `SELECT 1 AS slept FROM pg_sleep(0.4)`
	setIdle := func(d time.Duration) {
		eng.cal.mu.Lock()
		eng.cal.idle = d
		eng.cal.mu.Unlock()
	}

	// The server seems far slower than its reference: the retry gets
	// 4 x 300 ms and the 400 ms statement finishes (0.8 s to spare for a
	// busy machine).
	setIdle(time.Microsecond)
	start := time.Now()
	res, err := eng.Query(context.Background(), sleeper, lim)
	if err != nil {
		t.Fatalf("slow server: want rows from the stretched retry, got %v", err)
	}
	enginetest.ExpectRows(t, res, []string{"slept"}, [][]sqlgym.Value{{sqlgym.Int(1)}})
	// A lower bound: the first run's 300 ms and the retry's 400 ms of
	// sleep.
	if took := time.Since(start); took < lim.Timeout+400*time.Millisecond {
		t.Errorf("returned after %v: the first run cannot have timed out", took)
	}

	// A statement just over the stretched limit (5 x 300 ms against the
	// cap of 4 x) is a timeout: were the stretch not capped at
	// maxRetryStretch, the server's slowdown (the reference is a
	// microsecond) would let it finish.
	setIdle(time.Microsecond)
	_, err = eng.Query(context.Background(), `SELECT 1 AS slept FROM pg_sleep(1.5)`, lim)
	if !errors.Is(err, sqlgym.ErrTimeout) {
		t.Errorf("over the stretched limit on a slow server: want ErrTimeout, got %v", err)
	}

	// The server as fast as its reference (the reference is an hour):
	// no retry, the first timeout stands. A retry, stretched to at least
	// 1.5 x 300 ms, would have returned the 400 ms statement's rows.
	setIdle(time.Hour)
	_, err = eng.Query(context.Background(), sleeper, lim)
	if !errors.Is(err, sqlgym.ErrTimeout) {
		t.Errorf("fast server: want ErrTimeout, got %v", err)
	}

	// NoLoadRetry: never a second run, and no probe at Open.
	off := s.open(t, Options{NoLoadRetry: true})
	off.unscreened = true
	if off.cal.idle != 0 {
		t.Error("NoLoadRetry still probed at Open")
	}
	if _, err := off.Query(context.Background(), sleeper, lim); !errors.Is(err, sqlgym.ErrTimeout) {
		t.Errorf("NoLoadRetry: want ErrTimeout, got %v", err)
	}
}
