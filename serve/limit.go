package serve

import (
	"context"
	"errors"
	"sort"
	"sync"
)

// errBusy means a database's queue is full: the client should come back
// later (429).
var errBusy = errors.New("the database's queue is full")

// limiter bounds, per database, the batches verifying at once and the
// batches waiting for a slot. A batch that would wait past the queue is
// turned away at once instead of piling up behind the others.
type limiter struct {
	slots, queue int
	onWait       func(db string, delta int) // queue depth changes, for metrics

	mu  sync.Mutex
	dbs map[string]*dbLimit
}

type dbLimit struct {
	slots   chan struct{}
	waiting int // guarded by limiter.mu
}

func newLimiter(slots, queue int, onWait func(string, int)) *limiter {
	return &limiter{slots: slots, queue: queue, onWait: onWait, dbs: map[string]*dbLimit{}}
}

func (l *limiter) get(db string) *dbLimit {
	l.mu.Lock()
	defer l.mu.Unlock()
	d := l.dbs[db]
	if d == nil {
		d = &dbLimit{slots: make(chan struct{}, l.slots)}
		l.dbs[db] = d
	}
	return d
}

// acquire takes a slot on every database of a batch, in name order so two
// batches over the same databases cannot each hold what the other waits
// for. It returns the release function, errBusy when a queue is full, or
// the context's error when the deadline passes while waiting.
func (l *limiter) acquire(ctx context.Context, dbs []string) (func(), error) {
	sort.Strings(dbs)
	var held []*dbLimit
	release := func() {
		for _, d := range held {
			<-d.slots
		}
	}
	for _, name := range dbs {
		d := l.get(name)
		if err := l.take(ctx, name, d); err != nil {
			release()
			return nil, err
		}
		held = append(held, d)
	}
	return release, nil
}

func (l *limiter) take(ctx context.Context, name string, d *dbLimit) error {
	select {
	case d.slots <- struct{}{}:
		return nil
	default:
	}
	l.mu.Lock()
	if d.waiting >= l.queue {
		l.mu.Unlock()
		return errBusy
	}
	d.waiting++
	l.mu.Unlock()
	l.onWait(name, 1)
	defer func() {
		l.mu.Lock()
		d.waiting--
		l.mu.Unlock()
		l.onWait(name, -1)
	}()
	select {
	case d.slots <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
