package eval

import (
	"fmt"
	"sync"

	"github.com/sqlgym/sqlgym/model"
)

// RetryLog counts the model client's retries for the progress line, so a
// server that is failing shows up at once ("12 retries, last: connection
// refused") instead of as a run that is merely slow. Give its Note to the
// client as model.Config.OnRetry and the log to Config.Retries.
type RetryLog struct {
	mu   sync.Mutex
	n    int
	last string
}

// Note records one retry; it is safe for concurrent use.
func (l *RetryLog) Note(r model.Retry) {
	l.mu.Lock()
	l.n++
	l.last = r.Cause
	l.mu.Unlock()
}

// line is the progress line's part about retries, "" when there were none.
func (l *RetryLog) line() string {
	if l == nil {
		return ""
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.n == 0 {
		return ""
	}
	return fmt.Sprintf(", %d model retries (last: %s)", l.n, l.last)
}
