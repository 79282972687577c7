package model

import (
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// retryableStatus lists the statuses worth another attempt: overload (429,
// 503), gateway trouble (502, 504), a server's own failure (500 and the
// rest of 5xx but 501), request timeouts (408) and OpenAI's lock conflict
// (409).
func retryableStatus(code int) bool {
	switch {
	case code == http.StatusRequestTimeout, code == http.StatusConflict, code == http.StatusTooManyRequests:
		return true
	case code >= 500 && code != http.StatusNotImplemented && code != http.StatusHTTPVersionNotSupported:
		return true
	}
	return false
}

// backoff is the wait before retry number retry (0-based): exponential from
// base, capped, with jitter over its upper half so a fleet of clients that
// failed together does not come back together.
func backoff(retry int, base, limit time.Duration) time.Duration {
	d := base
	for i := 0; i < retry && d < limit; i++ {
		d *= 2
	}
	d = min(d, limit)
	half := d / 2
	return half + rand.N(d-half+1)
}

// retryAfter reads Retry-After (seconds or an HTTP date) and OpenAI's
// retry-after-ms. ok is false when the server gave no usable value.
func retryAfter(h http.Header, now time.Time) (d time.Duration, ok bool) {
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
