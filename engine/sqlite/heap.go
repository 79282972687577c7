package sqlite

// #include "capi.h"
import "C"

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"golang.org/x/sync/semaphore"
)

// The heap limit of C SQLite is process-wide: every connection of every
// engine allocates from one budget. One statement's memory must not make
// another statement fail as if that other statement were at fault, so:
//
//   - Open raises the process-wide hard limit (sqlite3_hard_heap_limit64)
//     to the largest Options.HeapLimit asked for, and never lowers it;
//   - every statement runs holding heapGate shared;
//   - a statement that gets SQLITE_NOMEM gives its shared hold back and is
//     re-run once holding heapGate exclusively, alone among sandboxed
//     statements of the process, on a fresh connection. Only an
//     out-of-memory when alone is the statement's own ExecError.
//
// The cost: a re-run waits for the statements in flight to finish (each
// bounded by its budget or safety net), and new statements wait for the
// re-run. Out-of-memory is rare, so the common path only takes a shared
// hold. The gate is a weighted semaphore rather than an RWMutex so that
// waiting for it ends with the caller's context, as the engine contract
// requires: a shared hold weighs 1, the exclusive one all of it, and a
// pending exclusive hold goes before later shared ones (FIFO).
var (
	heapGate = semaphore.NewWeighted(heapGateWeight)

	// reruns counts statements re-run alone, for tests and logs.
	reruns atomic.Int64

	heapMu    sync.Mutex
	heapLimit int64
)

// raiseHeapLimit makes the process-wide limit at least n bytes.
func raiseHeapLimit(n int64) {
	heapMu.Lock()
	defer heapMu.Unlock()
	if n > heapLimit {
		C.sqlite3_hard_heap_limit64(C.int64_t(n))
		heapLimit = n
	}
}

// HeapLimit is the process-wide hard heap limit in bytes now in force.
func HeapLimit() int64 {
	heapMu.Lock()
	defer heapMu.Unlock()
	return heapLimit
}

// heapGateWeight is more shared holds than can ever run at once.
const heapGateWeight = 1 << 40

// shareHeap takes a shared hold of the heap gate.
func shareHeap(ctx context.Context) (release func(), err error) {
	return holdHeap(ctx, 1)
}

// ownHeap takes the heap gate alone, for a statement's re-run.
func ownHeap(ctx context.Context) (release func(), err error) {
	return holdHeap(ctx, heapGateWeight)
}

func holdHeap(ctx context.Context, n int64) (func(), error) {
	if err := heapGate.Acquire(ctx, n); err != nil {
		return nil, fmt.Errorf("sqlite: waiting for the shared heap: %w", err)
	}
	return func() { heapGate.Release(n) }, nil
}

// tidyThreshold is how far above the memory now in use SQLite's memory
// must have been since the last tidy for tidyHeap to give freed memory
// back (see sg_tidy_heap).
const tidyThreshold = 8 << 20

// tidyHeap runs after each statement; it costs one cgo call and two reads
// of SQLite's memory counters unless a statement used and freed more than
// tidyThreshold.
func tidyHeap() { C.sg_tidy_heap(tidyThreshold) }
