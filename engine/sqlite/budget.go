package sqlite

// #include "capi.h"
import "C"

import (
	"context"
	"math"
	"sync"
	"time"

	"github.com/sqlgym/sqlgym"
)

// checkEvery is how many virtual-machine steps pass between two calls of
// the progress handler (capi.c). The handler reads the statement's exact
// step count (SQLITE_STMTSTATUS_VM_STEP), so a budget is overshot by less
// than checkEvery steps, and by the same amount on every run.
const checkEvery = 1000

// CPUPerStep is the thread CPU a statement may spend per step of its
// budget before it is stopped as the model's timeout (cpu.c). The slowest
// ordinary shape measured costs 27.3 ns of CPU per charged step
// (join3_group_order, on 2 cores at a load average of 25-31, which
// inflates CPU time by 10-25 %): 45 ns is 1.65 times that, so a statement
// within its budget never reaches the cap, and only work the budget does
// not count (numeric conversion and max/min of huge texts held in a
// register) does. At the default budget, 2e8, the cap is 9 s of CPU.
const CPUPerStep = 45 * time.Nanosecond

// minCPUCap is the least CPU cap: a small budget (tests use 1e5-1e6
// steps) would otherwise give a cap of milliseconds, which the fixed cost
// of a statement and the clock's granularity could reach.
const minCPUCap = 250 * time.Millisecond

// cpuCap is the thread CPU a statement with a budget of steps may spend.
func cpuCap(steps int64) time.Duration {
	if steps > int64(math.MaxInt64/CPUPerStep) {
		return math.MaxInt64
	}
	return max(time.Duration(steps)*CPUPerStep, minCPUCap)
}

// arm sets c's guard for one statement under lim and ctx, with heapCap
// bytes its share of the heap, and returns the function that disarms it;
// the statement must have ended before disarm.
//
// With a step budget (lim.VMSteps > 0) the budget decides the timeout and
// the wall clock (lim.SafetyNet) only abandons a statement the machine is
// too slow to finish; without one, lim.Timeout decides. The caller's
// deadline is checked by the C handler too, and a cancellation sets an
// atomic flag the handler reads. The flag is set only while armed, under
// mu, so a cancellation arriving after the statement ended cannot stop the
// connection's next statement.
func (c *conn) arm(ctx context.Context, lim sqlgym.Limits, heapCap int64) (disarm func()) {
	g := c.guard
	g.stmt = nil
	g.charged = 0
	g.alloc = 0
	g.fetches = 0
	g.live = 0
	g.over_cap = 0
	g.heap_cap = C.int64_t(heapCap)
	g.ticks = 0
	g.reason = C.SG_STOP_NONE
	g.cancel = 0
	now := int64(C.sg_now_ns())
	g.budget = 0
	g.start_ns = C.int64_t(now)
	g.cpu_on = 0
	g.cpu_used_ns = 0
	g.cpu_weight = 0
	g.cpu_cap_ns = 0
	if lim.VMSteps > 0 {
		g.budget = C.int64_t(lim.VMSteps)
		g.cpu_cap_ns = C.int64_t(cpuCap(lim.VMSteps).Nanoseconds())
		g.deadline_ns = C.int64_t(now + lim.SafetyNet.Nanoseconds())
	} else {
		g.deadline_ns = C.int64_t(now + lim.Timeout.Nanoseconds())
	}
	g.caller_ns = 0
	if d, ok := ctx.Deadline(); ok {
		g.caller_ns = C.int64_t(now + max(time.Until(d).Nanoseconds(), 1))
	}
	if ctx.Done() == nil {
		// A context that can never be cancelled needs no watcher.
		return func() { g.stmt = nil }
	}
	var mu sync.Mutex
	armed := true
	stop := context.AfterFunc(ctx, func() {
		mu.Lock()
		defer mu.Unlock()
		if armed {
			C.sg_set_cancel(g)
		}
	})
	return func() {
		stop()
		mu.Lock()
		armed = false
		mu.Unlock()
		g.stmt = nil
	}
}

// steps is the budgeted work of the statement the guard counts: its VM
// steps plus what the bounded functions charged plus the bytes allocated
// for it (alloc.c).
func (c *conn) steps() int64 { return int64(C.sg_steps(c.guard)) }

// stopReason says why the progress handler stopped the last statement.
func (c *conn) stopReason() int { return int(c.guard.reason) }

func (c *conn) watch(st *stmt) { c.guard.stmt = st.s }

// overShare reports whether the last statement failed for wanting more
// than its share of the heap.
func (c *conn) overShare() bool { return c.guard.over_cap != 0 }
