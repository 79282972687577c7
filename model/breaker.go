package model

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/sqlgym/sqlgym/internal/retry"
)

// ErrServerGone is wrapped by the error of every call a Client makes after
// its circuit breaker opened: a run of connection failures to every server
// with nothing answering in between. Retrying for hours would only keep a
// run alive that cannot progress; the caller stops and says to run again.
var ErrServerGone = errors.New("the model server went away")

// Defaults of the circuit breaker.
const (
	// DefaultBreakAfter is how many connection failures in a row open
	// the breaker...
	DefaultBreakAfter = 12
	// DefaultBreakSpan ...when they span at least this long, so that the
	// requests in flight failing together when a server restarts do not
	// open it on their own.
	DefaultBreakSpan = 3 * time.Second
)

// breaker counts connection failures in a row over all of a Client's
// calls; any answer from a server, even an error status, resets it.
type breaker struct {
	after int
	span  time.Duration

	mu    sync.Mutex
	n     int
	first time.Time
	last  string
	open  bool
}

// note records an attempt's outcome and reports whether the breaker is
// open. Only "nothing answered" failures count (refused, no route, unknown
// host): a timeout or an error status means a server is there.
func (b *breaker) note(f *failure) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.open || b.after < 0 {
		return b.open
	}
	if f == nil || f.status != 0 || !retry.Unreachable(f.err) {
		b.n = 0
		return false
	}
	now := time.Now()
	if b.n == 0 {
		b.first = now
	}
	b.n++
	b.last = f.msg
	b.open = b.n >= b.after && now.Sub(b.first) >= b.span
	return b.open
}

func (b *breaker) isOpen() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.open
}

// goneError is the error of a call made or cut short by an open breaker.
func (c *Client) goneError() error {
	b := c.brk
	b.mu.Lock()
	n, span, last := b.n, time.Since(b.first).Round(time.Second), b.last
	b.mu.Unlock()
	e := &Error{URL: c.base, Message: last, Infra: true, Err: ErrServerGone,
		Hint: fmt.Sprintf("start the model server again (is it running at %s?), then run the same command: what was written so far is kept", c.base)}
	e.text = fmt.Sprintf("the model server went away; run the same command again (%d connection failures in a row over %s, last: %s)", n, span, last)
	return e
}
