// cpu.c holds the thread-CPU cap: the stop for work inside a VM step
// that the budget cannot count. Numeric conversion of a huge text held in
// a register (`X + 0`, `abs(X)`, `CAST(X AS REAL)`) and `max(X)`/`min(X)`
// over such texts neither allocate nor go through a function sqlgym can
// override, so they cost milliseconds per VM step without charging the
// budget (docs/sandbox-sqlite.md, "Not charged"). The cap is set far above
// what any statement can spend within its budget (budget.go), so only
// such uncounted work reaches it, and it is the model's timeout.
//
// The CPU clock of a thread is a system call (about 1 us), too dear to
// read on every step call of every statement. So a statement's CPU is not
// counted during its first SG_CPU_AFTER_NS of wall time (its CPU then is at
// most that). From then on:
//   - inside a step call, the progress handler and the allocator's clock
//     check read the clock at most every SG_CPU_EVERY_NS of wall time and
//     count exactly what passed since the last read (a goroutine may move
//     to another thread between step calls, never during one);
//   - what a step call spends before the handler first reaches it (all
//     of a row of a few VM steps) is measured by sampling: one call in
//     SG_CPU_SAMPLE, picked at random so that a statement cannot arrange
//     its heavy rows between samples, reads the clock when it starts and
//     counts SG_CPU_SAMPLE times its CPU up to its end or its first tick.
//     Reading the clock at both ends of every call doubled the CPU of a
//     400,000-row result on a loaded machine.
#include <time.h>
#include "capi.h"

// next draws from the guard's xorshift generator.
static uint64_t next(sg_guard *g) {
	uint64_t x = g->cpu_rng;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return g->cpu_rng = x;
}

// sg_cpu_tick is called by the progress handler and the allocator's clock
// check with the monotonic time now; it returns 1 when the statement has
// spent its CPU cap.
int sg_cpu_tick(sg_guard *g, int64_t now) {
	if (g->cpu_cap_ns <= 0) return 0;
	if (!g->cpu_on) {
		if (now - g->start_ns < SG_CPU_AFTER_NS) return 0;
		g->cpu_on = 1;
		g->cpu_rng = (uint64_t)now | 1;
	}
	if (g->cpu_weight == 0) {
		// The first read in a call not sampled: count from here, exactly.
		g->cpu_weight = 1;
		g->cpu_mark_ns = sg_thread_cpu_ns();
		g->cpu_read_ns = now;
	} else if (g->cpu_weight > 1 || now - g->cpu_read_ns >= SG_CPU_EVERY_NS) {
		// A sampled call's part before its first tick stands for that
		// part of the calls not sampled, which are counted only from
		// their first tick; from there on every call counts exactly.
		int64_t t = sg_thread_cpu_ns();
		g->cpu_used_ns += (t - g->cpu_mark_ns) * g->cpu_weight;
		g->cpu_weight = 1;
		g->cpu_mark_ns = t;
		g->cpu_read_ns = now;
	}
	return g->cpu_used_ns >= g->cpu_cap_ns;
}

// sg_cpu_enter and sg_cpu_leave bracket one step call of g's statement.
void sg_cpu_enter(sg_guard *g) {
	if (!g) return;
	g->cpu_weight = 0;
	if (g->cpu_on && next(g) % SG_CPU_SAMPLE == 0) {
		g->cpu_weight = SG_CPU_SAMPLE;
		g->cpu_mark_ns = sg_thread_cpu_ns();
		g->cpu_read_ns = sg_now_ns();
	}
}

void sg_cpu_leave(sg_guard *g) {
	if (g && g->cpu_weight) {
		g->cpu_used_ns += (sg_thread_cpu_ns() - g->cpu_mark_ns) * g->cpu_weight;
		g->cpu_weight = 0;
	}
}
