package memo

import (
	"context"
	"fmt"
	"sync"
)

// Map runs fn once per key for all the callers that ask while it runs and
// keeps the outcome only when keep says so; an outcome not kept is
// forgotten as soon as it is known, so the next caller runs fn again. The
// zero Map is ready to use; it must not be copied after first use. Safe
// for concurrent use.
type Map[K comparable, V any] struct {
	mu sync.Mutex
	m  map[K]*call[V]
}

type call[V any] struct {
	done chan struct{}
	v    V
	err  error
}

// Do returns the kept outcome for key, or waits for the run in flight,
// or starts one. The run happens on its own goroutine: a caller whose ctx
// ends stops waiting and gets an error wrapping ctx.Err(), while the run
// goes on for the other callers and the next one. fn must therefore not
// depend on the caller's cancellation (give it a context of its own).
func (m *Map[K, V]) Do(ctx context.Context, key K, fn func() (V, error), keep func(V, error) bool) (V, error) {
	m.mu.Lock()
	if m.m == nil {
		m.m = map[K]*call[V]{}
	}
	c, ok := m.m[key]
	if !ok {
		c = &call[V]{done: make(chan struct{})}
		m.m[key] = c
		go m.run(key, c, fn, keep)
	}
	m.mu.Unlock()
	select {
	case <-c.done:
		return c.v, c.err
	default:
	}
	select {
	case <-c.done:
		return c.v, c.err
	case <-ctx.Done():
		var zero V
		return zero, fmt.Errorf("stopped waiting for a run in flight: %w", ctx.Err())
	}
}

// Peek returns the kept outcome for key without starting or waiting for
// a run: ok is false when none is kept yet (never run, in flight, or
// forgotten). A caller that plans work can take what is known at once and
// hand the rest to Do on another goroutine.
func (m *Map[K, V]) Peek(key K) (v V, err error, ok bool) {
	m.mu.Lock()
	c, found := m.m[key]
	m.mu.Unlock()
	if !found {
		return v, nil, false
	}
	// An outcome not kept is forgotten before done closes (see run), so a
	// closed done here is always a kept outcome.
	select {
	case <-c.done:
		return c.v, c.err, true
	default:
		return v, nil, false
	}
}

func (m *Map[K, V]) run(key K, c *call[V], fn func() (V, error), keep func(V, error) bool) {
	defer close(c.done)
	defer func() {
		// A panic in fn is an outcome nobody may keep: it becomes the
		// callers' error and the key is forgotten.
		if p := recover(); p != nil {
			c.err = fmt.Errorf("memo: run panicked: %v", p)
			m.forget(key, c)
		}
	}()
	c.v, c.err = fn()
	if !keep(c.v, c.err) {
		m.forget(key, c)
	}
}

func (m *Map[K, V]) forget(key K, c *call[V]) {
	m.mu.Lock()
	if m.m[key] == c {
		delete(m.m, key)
	}
	m.mu.Unlock()
}

// Len is the number of keys with a kept outcome or a run in flight.
func (m *Map[K, V]) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.m)
}
