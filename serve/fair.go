package serve

import (
	"context"
	"slices"
	"sync"
)

// fairGate shares each database's statement slots, and the process's,
// among the requests being scored (verify.Gate). A batch of 512 slow
// answers must not keep a one-answer request waiting until all of them
// have run, so:
//
//   - a slot that frees goes to the waiting request that holds the fewest
//     slots (oldest first among equals): requests take turns statement by
//     statement, not batch by batch;
//   - a request that already holds a slot never takes the last reserve
//     free slots of a database or of the process: those are kept for a
//     request that holds none, which therefore starts at once instead of
//     waiting for a slow statement to end.
//
// Running statements are never stopped for another request: the gate
// decides when a statement starts, never how it is judged (its own
// limits do, as without the gate).
type fairGate struct {
	perDB   int // statements at once on one database
	total   int // statements at once in the process (the result byte budget's room)
	reserve int
	onWait  func(url string, delta int) // waiting statements change, for metrics

	mu      sync.Mutex
	used    map[string]int // running statements per database URL
	inUse   int
	waiters []*gateWaiter // in arrival order
}

// flow is one request's share: what it holds. Guarded by fairGate.mu.
type flow struct {
	held  map[string]int
	total int
}

type gateWaiter struct {
	f     *flow
	url   string
	ready chan struct{} // closed once the slot is granted
}

func newFairGate(perDB, total int, onWait func(string, int)) *fairGate {
	return &fairGate{perDB: max(perDB, 1), total: max(total, 1), reserve: 1, onWait: onWait,
		used: map[string]int{}}
}

func newFlow() *flow { return &flow{held: map[string]int{}} }

type flowKey struct{}

// withFlow gives ctx a share of its own: every statement verified under
// it counts toward one request.
func withFlow(ctx context.Context) context.Context {
	return context.WithValue(ctx, flowKey{}, newFlow())
}

// flowOf is ctx's request share. A statement under no request (warming,
// an episode's step) is a share of its own: one statement, like a
// one-answer request.
func flowOf(ctx context.Context) *flow {
	if f, ok := ctx.Value(flowKey{}).(*flow); ok {
		return f
	}
	return newFlow()
}

// heldKey marks a context whose caller holds a slot on a database URL
// (hold).
type heldKey struct{}

// hold takes a slot on url for a step that runs several statements one
// after the other (an episode's turn): the statements it runs under the
// returned context use this slot instead of asking for another, which
// could wait on the step itself.
func (g *fairGate) hold(ctx context.Context, url string) (context.Context, func(), error) {
	leave, err := g.Enter(ctx, url)
	if err != nil {
		return nil, nil, err
	}
	return context.WithValue(ctx, heldKey{}, url), leave, nil
}

// Enter waits for a slot on url's database under ctx's request.
func (g *fairGate) Enter(ctx context.Context, url string) (func(), error) {
	if held, _ := ctx.Value(heldKey{}).(string); held == url {
		return func() {}, nil
	}
	f := flowOf(ctx)
	leave := func() { g.leave(f, url) }
	g.mu.Lock()
	if g.canTake(f, url) {
		g.take(f, url)
		g.mu.Unlock()
		return leave, nil
	}
	w := &gateWaiter{f: f, url: url, ready: make(chan struct{})}
	g.waiters = append(g.waiters, w)
	g.mu.Unlock()
	g.onWait(url, 1)
	defer g.onWait(url, -1)
	select {
	case <-w.ready:
		return leave, nil
	case <-ctx.Done():
	}
	g.mu.Lock()
	if i := slices.Index(g.waiters, w); i >= 0 {
		g.waiters = slices.Delete(g.waiters, i, i+1)
		g.mu.Unlock()
		return nil, ctx.Err()
	}
	g.mu.Unlock()
	// Granted as ctx ended: give the slot to the next in line.
	g.leave(f, url)
	return nil, ctx.Err()
}

// canTake reports whether f may start a statement on url now.
func (g *fairGate) canTake(f *flow, url string) bool {
	dbFree, allFree := g.perDB-g.used[url], g.total-g.inUse
	switch {
	case dbFree <= 0 || allFree <= 0:
		return false
	case f.held[url] > 0 && dbFree <= g.reserve:
		return false
	case f.total > 0 && allFree <= g.reserve:
		return false
	}
	return true
}

func (g *fairGate) take(f *flow, url string) {
	g.used[url]++
	g.inUse++
	f.held[url]++
	f.total++
}

func (g *fairGate) leave(f *flow, url string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.used[url]--
	if g.used[url] == 0 {
		delete(g.used, url)
	}
	g.inUse--
	if f.held[url]--; f.held[url] == 0 {
		delete(f.held, url)
	}
	f.total--
	g.dispatch()
}

// dispatch grants free slots to waiters, the request holding the fewest
// first. A waiter that cannot start now (its database is full, or only
// the reserve is left and it holds a slot already) leaves its turn to the
// others.
func (g *fairGate) dispatch() {
	for {
		best := -1
		for i, w := range g.waiters {
			if (best < 0 || w.f.total < g.waiters[best].f.total) && g.canTake(w.f, w.url) {
				best = i
			}
		}
		if best < 0 {
			return
		}
		w := g.waiters[best]
		g.waiters = slices.Delete(g.waiters, best, best+1)
		g.take(w.f, w.url)
		close(w.ready)
	}
}
