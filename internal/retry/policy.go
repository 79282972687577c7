package retry

import (
	"context"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Defaults of a Policy's zero fields.
const (
	DefaultMaxRetries = 6
	DefaultBase       = 500 * time.Millisecond
	DefaultCap        = 20 * time.Second
	DefaultMaxAfter   = 60 * time.Second
)

// Policy is how many times a call is retried and how long each wait is.
type Policy struct {
	// MaxRetries is the number of retries after the first attempt; 0 means
	// DefaultMaxRetries and a negative value means none.
	MaxRetries int
	// Base and Cap shape the exponential backoff.
	Base, Cap time.Duration
	// MaxAfter caps a server's Retry-After: a server asking for an hour
	// would otherwise stall a whole run on one request.
	MaxAfter time.Duration
}

// WithDefaults fills the zero fields.
func (p Policy) WithDefaults() Policy {
	switch {
	case p.MaxRetries == 0:
		p.MaxRetries = DefaultMaxRetries
	case p.MaxRetries < 0:
		p.MaxRetries = 0
	}
	if p.Base <= 0 {
		p.Base = DefaultBase
	}
	if p.Cap <= 0 {
		p.Cap = DefaultCap
	}
	if p.MaxAfter <= 0 {
		p.MaxAfter = DefaultMaxAfter
	}
	return p
}

// Again reports whether a call that failed on attempt (1-based) may be
// tried once more.
func (p Policy) Again(attempt int) bool { return attempt <= p.MaxRetries }

// Wait is the pause before the next attempt after attempt (1-based) failed:
// the server's Retry-After when it sent one (capped at MaxAfter), else the
// jittered backoff.
func (p Policy) Wait(attempt int, after time.Duration, hasAfter bool) time.Duration {
	if hasAfter {
		return min(after, p.MaxAfter)
	}
	return Backoff(attempt-1, p.Base, p.Cap)
}

// Status reports whether an HTTP status is worth another attempt: request
// timeouts (408), OpenAI's and Anthropic's lock conflict (409), overload
// (429, 503, Anthropic's 529), gateway trouble (502, 504) and a server's
// own failure (500 and the rest of 5xx). 501 and 505 say the server will
// never serve this request, so they are not retried.
func Status(code int) bool {
	switch {
	case code == http.StatusRequestTimeout, code == http.StatusConflict, code == http.StatusTooManyRequests:
		return true
	case code >= 500 && code <= 599 && code != http.StatusNotImplemented && code != http.StatusHTTPVersionNotSupported:
		return true
	}
	return false
}

// Backoff is the wait before retry number retry (0-based): exponential
// from base, capped at limit, drawn from the upper half of the step so a
// fleet of clients that failed together does not come back together.
func Backoff(retry int, base, limit time.Duration) time.Duration {
	d := base
	for i := 0; i < retry && d < limit; i++ {
		d *= 2
	}
	d = min(d, limit)
	half := d / 2
	return half + rand.N(d-half+1)
}

// After reads Retry-After (seconds or an HTTP date) and OpenAI's and
// Anthropic's retry-after-ms. ok is false when the server gave no usable
// value.
func After(h http.Header, now time.Time) (d time.Duration, ok bool) {
	if v := strings.TrimSpace(h.Get("Retry-After-Ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms >= 0 {
			return time.Duration(ms * float64(time.Millisecond)), true
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s < 0 {
			return 0, false
		}
		return time.Duration(s * float64(time.Second)), true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}

// Sleep waits d, or less when ctx ends first (then it returns ctx's error).
func Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
