package serve

import (
	"errors"
	"sync"
)

// errBusy means a database has as many requests in service as it takes:
// the client should come back later (429).
var errBusy = errors.New("the database's queue is full")

// limiter admits requests: at most max at once per database, past which
// a request is turned away at once instead of piling up. It does not
// order them: the requests it admits share the database statement by
// statement (fairGate), so a large batch never makes a small one wait
// for all of it.
type limiter struct {
	max int

	mu       sync.Mutex
	inflight map[string]int
}

func newLimiter(max int) *limiter {
	return &limiter{max: max, inflight: map[string]int{}}
}

// acquire admits a request over dbs, or returns errBusy when one of them
// is full. The release function gives the places back.
func (l *limiter) acquire(dbs []string) (func(), error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, db := range dbs {
		if l.inflight[db] >= l.max {
			return nil, errBusy
		}
	}
	for _, db := range dbs {
		l.inflight[db]++
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			l.mu.Lock()
			defer l.mu.Unlock()
			for _, db := range dbs {
				if l.inflight[db]--; l.inflight[db] == 0 {
					delete(l.inflight, db)
				}
			}
		})
	}, nil
}
