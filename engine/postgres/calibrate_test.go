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
// (unscreened) makes the statement's length independent of the load.
func TestLoadRetry(t *testing.T) {
	s := newSandbox(t, enginetest.Fixture())
	eng := s.open(t, Options{MaxConns: 2})
	if eng.cal.idle == 0 {
		t.Fatal("Open took no reference probe")
	}
	eng.unscreened = true
	lim := sqlgym.Limits{Timeout: 300 * time.Millisecond}
	const sleeper = `SELECT 1 AS slept FROM pg_sleep(0.6)`
	setIdle := func(d time.Duration) {
		eng.cal.mu.Lock()
		eng.cal.idle = d
		eng.cal.mu.Unlock()
	}

	// The server seems far slower than its reference: the retry gets
	// 4 x 300 ms and the 600 ms statement finishes.
	setIdle(time.Microsecond)
	start := time.Now()
	res, err := eng.Query(context.Background(), sleeper, lim)
	if err != nil {
		t.Fatalf("slow server: want rows from the stretched retry, got %v", err)
	}
	enginetest.ExpectRows(t, res, []string{"slept"}, [][]sqlgym.Value{{sqlgym.Int(1)}})
	if took := time.Since(start); took < 900*time.Millisecond {
		t.Errorf("returned after %v: the first run cannot have timed out", took)
	}

	// A statement too slow even for the stretched limit is a timeout,
	// stopped within the first limit, the probe and the stretched one.
	setIdle(time.Microsecond)
	start = time.Now()
	_, err = eng.Query(context.Background(), `SELECT pg_sleep(100)`, lim)
	if !errors.Is(err, sqlgym.ErrTimeout) {
		t.Errorf("runaway on a slow server: want ErrTimeout, got %v", err)
	}
	bound := lim.Timeout + clientGrace(lim.Timeout) + probeTimeout + time.Duration(maxRetryStretch*float64(lim.Timeout)) + clientGrace(4*lim.Timeout)
	if took := time.Since(start); took > bound {
		t.Errorf("runaway on a slow server returned after %v, bound %v", took, bound)
	}

	// The server as fast as its reference (the reference is an hour):
	// no retry, the first timeout stands.
	setIdle(time.Hour)
	start = time.Now()
	_, err = eng.Query(context.Background(), sleeper, lim)
	if !errors.Is(err, sqlgym.ErrTimeout) {
		t.Errorf("fast server: want ErrTimeout, got %v", err)
	}
	if took := time.Since(start); took > 2*lim.Timeout+probeTimeout {
		t.Errorf("fast server: returned after %v, a retry ran", took)
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
