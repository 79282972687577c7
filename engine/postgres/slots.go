package postgres

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// errServerDidNotStop is wrapped by the timeout of a statement the client
// abandoned at its own deadline: the server had not stopped it.
var errServerDidNotStop = errors.New("the server did not stop the statement itself")

const (
	// abandonedPoll is how often the engine looks whether an abandoned
	// backend has ended.
	abandonedPoll = 200 * time.Millisecond
	// abandonedMax bounds how long one abandoned backend holds a slot, in
	// case its end is never seen.
	abandonedMax = 10 * time.Minute
)

// slots bound the statements in flight plus the backends still running
// statements the engine abandoned. Some server code ignores cancel
// requests (a long LIKE); when the engine gives up on such a statement
// and discards its connection, the backend runs on and still counts
// against the role's connection limit. Were its slot freed at once, the
// pool would open a new connection in its place, runaways would pile up
// past the limit and every statement would then fail with "too many
// connections". Holding the slot until the backend ends makes the next
// statements wait for it instead.
type slots struct {
	ch chan struct{}
	// watching serialises the watchers' queries, so watching takes at
	// most one pooled connection however many backends are abandoned.
	watching sync.Mutex
	pool     func() *pgxpool.Pool
	closing  context.Context
}

func newSlots(n int32, pool func() *pgxpool.Pool, closing context.Context) *slots {
	return &slots{ch: make(chan struct{}, n), pool: pool, closing: closing}
}

func (s *slots) acquire(ctx context.Context) error {
	select {
	case s.ch <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-s.closing.Done():
		return errEngineClosed
	}
}

func (s *slots) release() { <-s.ch }

var errEngineClosed = errors.New("engine closed")

// holdFor keeps the slot until backend pid no longer exists (a backend
// whose client went away exits when its statement ends), the engine
// closes, or abandonedMax passes.
func (s *slots) holdFor(pid uint32) {
	go func() {
		defer s.release()
		deadline := time.Now().Add(abandonedMax)
		t := time.NewTicker(abandonedPoll)
		defer t.Stop()
		for time.Now().Before(deadline) {
			select {
			case <-s.closing.Done():
				return
			case <-t.C:
			}
			s.watching.Lock()
			ctx, cancel := context.WithTimeout(s.closing, probeTimeout)
			var alive bool
			err := s.pool().QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_stat_activity WHERE pid = $1)`,
				pgx.QueryExecModeSimpleProtocol, int64(pid)).Scan(&alive)
			cancel()
			s.watching.Unlock()
			if err == nil && !alive {
				return
			}
		}
	}()
}
