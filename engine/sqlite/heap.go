package sqlite

// #include "capi.h"
import "C"

import (
	"context"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/semaphore"
)

// The heap limit of C SQLite is process-wide: every connection of every
// engine allocates from one budget. One statement's memory must not make
// another statement fail as if that other statement were at fault, and
// no statement's memory may make an unrelated statement wait. So:
//
//   - every sandboxed statement has a share (Options.StatementHeapLimit):
//     the bytes it may hold, counted per statement by sqlgym's allocator
//     (alloc.c). An allocation past the share fails, and the statement
//     gets its own out-of-memory ExecError: a function of the SQL and the
//     data, the same whatever runs beside it;
//   - Open raises the process-wide hard limit (sqlite3_hard_heap_limit64)
//     to the largest Options.HeapLimit asked for, and never lowers it. A
//     statement holding more than a sixteenth of it may not use its last
//     eighth, which stays for small statements: a one-row query does not
//     fail beside two hogs;
//   - a statement within its share that still finds no room met the
//     process-wide limit, filled by others: not its doing. It waits,
//     holding nothing, for the other re-runs before it (rerunGate: only
//     such re-runs ever wait there) and for room for its share, and is
//     run once more while the allocator keeps that room for it (others'
//     allocations fail first). A second such failure is an InfraError.
//
// A statement that runs normally takes no lock on any path: an exclusive
// re-run once stalled every SQLite statement of the process for minutes.
var (
	// reruns counts statements re-run after the process-wide limit, for
	// tests and logs.
	reruns atomic.Int64

	// rerunGate orders re-runs after the process-wide limit: one at a
	// time keeps room for its share.
	rerunGate = semaphore.NewWeighted(1)

	heapMu    sync.Mutex
	heapLimit int64

	// allocRC is what installing the charging allocator returned; it must
	// happen before SQLite initialises, so it runs at package init.
	allocRC = C.sg_install_alloc(memStatus())
)

// allocInstalled reports an error when the charging allocator is not in
// place, which happens only if SQLite was initialised before this
// package: its budget and memory shares would not hold.
func allocInstalled() error {
	if C.sg_alloc_installed() == 0 {
		return fmt.Errorf("sqlite: sqlgym's allocator was not installed (sqlite3_config returned %d): SQLite was initialised before engine/sqlite loaded; hint: open no SQLite database before this package's init", int(allocRC))
	}
	return nil
}

// raiseHeapLimit makes the process-wide limit at least n bytes.
func raiseHeapLimit(n int64) {
	heapMu.Lock()
	defer heapMu.Unlock()
	if n > heapLimit {
		C.sqlite3_hard_heap_limit64(C.int64_t(n))
		C.sg_set_limit(C.int64_t(n))
		heapLimit = n
	}
}

// HeapLimit is the process-wide hard heap limit in bytes now in force.
func HeapLimit() int64 {
	heapMu.Lock()
	defer heapMu.Unlock()
	return heapLimit
}

// heapPoll is how often waitForHeap looks at the heap.
const heapPoll = 10 * time.Millisecond

// waitForRoom takes the re-run gate and waits until the process's SQLite
// heap has room for share more bytes below the part kept for small
// statements, at most max, or until ctx ends (its error). It returns the
// gate's release.
func waitForRoom(ctx context.Context, share int64, max time.Duration) (release func(), err error) {
	if err := rerunGate.Acquire(ctx, 1); err != nil {
		return nil, fmt.Errorf("sqlite: waiting to run again after the shared heap was full: %w", err)
	}
	deadline := time.Now().Add(max)
	t := time.NewTicker(heapPoll)
	defer t.Stop()
	for heapUsed()+share > HeapLimit()-HeapLimit()/8 && time.Now().Before(deadline) {
		select {
		case <-ctx.Done():
			rerunGate.Release(1)
			return nil, fmt.Errorf("sqlite: waiting for room in the shared heap: %w", ctx.Err())
		case <-t.C:
		}
	}
	return func() { rerunGate.Release(1) }, nil
}

// tidyThreshold is how far above the memory now in use SQLite's memory
// must have been since the last tidy for tidyHeap to give freed memory
// back (see sg_tidy_heap).
const tidyThreshold = 8 << 20

// tidyHeap runs after each statement; it costs one cgo call and two reads
// of SQLite's memory counters unless a statement used and freed more than
// tidyThreshold.
func tidyHeap() { C.sg_tidy_heap(tidyThreshold) }

// heapUsed is the memory SQLite's allocator holds now, process-wide, as
// sqlgym's allocator counts it (SQLite's own counters are off).
func heapUsed() int64 { return int64(C.sg_heap_used()) }

// sqliteCounted is the memory SQLite's own statistics count: zero while
// they are off, as they are unless SQLGYM_SQLITE_MEMSTATUS=1 (tests).
func sqliteCounted() int64 { return int64(C.sqlite3_memory_used()) }

// memStatus is 1 when SQLGYM_SQLITE_MEMSTATUS=1 asks for SQLite's memory
// statistics, which cost a global mutex per allocation and which nothing
// in sqlgym reads: it exists to measure that cost (docs/verifier.md).
func memStatus() C.int {
	if os.Getenv("SQLGYM_SQLITE_MEMSTATUS") == "1" {
		return 1
	}
	return 0
}
