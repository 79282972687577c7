package verify

import (
	"context"
	"fmt"
	"sync"
)

// DefaultResultBytes is the default ByteBudget of a verifier: with the
// default 64 MiB cap per statement, four candidates' results held at once.
const DefaultResultBytes = 256 << 20

// DefaultBudget is the byte budget that lets concurrency statements with
// a byte cap of maxBytes each run at once, and at least
// DefaultResultBytes: a budget smaller than that would quietly lower the
// verifier's concurrency on a machine with many cores.
func DefaultBudget(concurrency int, maxBytes int64) int64 {
	return max(DefaultResultBytes, int64(max(concurrency, 1))*maxBytes)
}

// ByteBudget bounds the bytes held at once by everything that takes from
// it: a semaphore weighted by bytes. A verifier takes a statement's byte
// cap before running it and gives back what the result does not use as
// soon as it has one, and the rest once the result has been judged and
// dropped; the reward server also takes each request body's size from one.
// Share one budget between verifiers to bound a whole process. Safe for
// concurrent use.
type ByteBudget struct {
	limit int64

	mu             sync.Mutex
	taken, peak    int64
	held, peakHeld int64
	// wake is closed when bytes are given back; made only when someone
	// waits, as most releases find no one waiting.
	wake chan struct{}
}

// NewByteBudget makes a budget of limit bytes (at least 1).
func NewByteBudget(limit int64) *ByteBudget {
	return &ByteBudget{limit: max(limit, 1)}
}

// BudgetStats are a budget's counters. Taken is what is reserved now and
// Peak its highest value; Held and PeakHeld count the result bytes
// actually held (a verifier reserves a statement's cap, holds its result).
type BudgetStats struct {
	Limit    int64 `json:"limit"`
	Taken    int64 `json:"taken"`
	Peak     int64 `json:"peak"`
	Held     int64 `json:"held"`
	PeakHeld int64 `json:"peak_held"`
}

// Stats returns the budget's counters.
func (b *ByteBudget) Stats() BudgetStats {
	b.mu.Lock()
	defer b.mu.Unlock()
	return BudgetStats{Limit: b.limit, Taken: b.taken, Peak: b.peak, Held: b.held, PeakHeld: b.peakHeld}
}

// Limit is the budget's size.
func (b *ByteBudget) Limit() int64 { return b.limit }

// Acquire takes n bytes (at most the limit), waiting until they are free
// or ctx ends. It returns the bytes taken, to give back with Release.
func (b *ByteBudget) Acquire(ctx context.Context, n int64) (int64, error) {
	n = min(max(n, 0), b.limit)
	for {
		b.mu.Lock()
		if b.taken+n <= b.limit {
			b.take(n)
			b.mu.Unlock()
			return n, nil
		}
		if b.wake == nil {
			b.wake = make(chan struct{})
		}
		wake := b.wake
		b.mu.Unlock()
		select {
		case <-wake:
		case <-ctx.Done():
			return 0, fmt.Errorf("waiting for %d bytes of memory budget: %w", n, ctx.Err())
		}
	}
}

// TryAcquire takes n bytes if they are free now.
func (b *ByteBudget) TryAcquire(n int64) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if n < 0 || b.taken+n > b.limit {
		return false
	}
	b.take(n)
	return true
}

func (b *ByteBudget) take(n int64) {
	b.taken += n
	b.peak = max(b.peak, b.taken)
}

// Release gives n bytes back.
func (b *ByteBudget) Release(n int64) {
	if n <= 0 {
		return
	}
	b.mu.Lock()
	b.taken -= n
	if b.wake != nil {
		close(b.wake)
		b.wake = nil
	}
	b.mu.Unlock()
}

// hold counts result bytes a batch holds (negative: dropped).
func (b *ByteBudget) hold(n int64) {
	b.mu.Lock()
	b.held += n
	b.peakHeld = max(b.peakHeld, b.held)
	b.mu.Unlock()
}
