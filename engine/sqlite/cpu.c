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
// most that); from then on each step call reads the thread's clock when it
// starts and ends (a goroutine may move to another thread between step
// calls, never during one), and the progress handler and the allocator
// read it at most every SG_CPU_EVERY_NS of wall time inside a call.
#include <time.h>
#include "capi.h"

// cpu_add counts the thread's CPU since the mark and moves the mark.
static void cpu_add(sg_guard *g, int64_t now) {
	int64_t t = sg_thread_cpu_ns();
	g->cpu_used_ns += t - g->cpu_mark_ns;
	g->cpu_mark_ns = t;
	g->cpu_read_ns = now;
}

// sg_cpu_tick is called by the progress handler and the allocator's clock
// check with the monotonic time now; it returns 1 when the statement has
// spent its CPU cap.
int sg_cpu_tick(sg_guard *g, int64_t now) {
	if (g->cpu_cap_ns <= 0) return 0;
	if (!g->cpu_on) {
		if (now - g->start_ns < SG_CPU_AFTER_NS) return 0;
		g->cpu_on = 1;
		g->cpu_mark_ns = sg_thread_cpu_ns();
		g->cpu_read_ns = now;
		return 0;
	}
	if (now - g->cpu_read_ns >= SG_CPU_EVERY_NS) cpu_add(g, now);
	return g->cpu_used_ns >= g->cpu_cap_ns;
}

// sg_cpu_enter and sg_cpu_leave bracket one step call of g's statement.
void sg_cpu_enter(sg_guard *g) {
	if (g && g->cpu_on) g->cpu_mark_ns = sg_thread_cpu_ns();
}

void sg_cpu_leave(sg_guard *g) {
	if (g && g->cpu_on) {
		int64_t t = sg_thread_cpu_ns();
		g->cpu_used_ns += t - g->cpu_mark_ns;
		g->cpu_mark_ns = t;
	}
}
