package model

import (
	"fmt"
	"net/http"
	"time"

	"github.com/sqlgym/sqlgym/internal/retry"
)

// Retry is one retry the client is about to make, for a progress line:
// which attempt failed, why, and how long the client waits first.
type Retry struct {
	Attempt int
	// Status is the HTTP status of the failed attempt, 0 when no answer came.
	Status int
	// Cause is a few words: "HTTP 503", "connection refused", "timed out".
	Cause string
	Wait  time.Duration
}

// policy is the client's retry policy, from its Config: the one shared
// with the Anthropic teacher (package internal/retry).
func (c *Client) policy() retry.Policy {
	return retry.Policy{MaxRetries: c.cfg.MaxRetries, Base: c.cfg.BackoffBase, Cap: c.cfg.BackoffCap,
		MaxAfter: c.cfg.MaxRetryAfter}
}

// cause is the failed attempt's reason in a few words.
func (f *failure) cause() string {
	switch {
	case f.status/100 == 2:
		return "unreadable answer"
	case f.status != 0:
		return fmt.Sprintf("HTTP %d %s", f.status, http.StatusText(f.status))
	case f.err != nil:
		return retry.Cause(f.err)
	}
	return f.msg
}
