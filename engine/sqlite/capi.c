// capi.c holds the C side of the sandbox: the progress handler that
// enforces the step budget and the deadlines without a Go callback per
// tick, the authorizer, db_config (variadic in SQLite, so wrapped here)
// and a row reader that costs one cgo call per row.
#include <string.h>
#include <strings.h>
#include <time.h>
#include "capi.h"

int64_t sg_now_ns(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

// sg_steps is the statement's work between two sqlite3_step calls:
// SQLite's own VM step count plus what sqlgym's bounded functions charged
// for work done inside one step. SQLite adds a step call's steps to the
// statement's counter only when the call returns, so inside the progress
// handler the counter is stale; the handler counts its own calls instead
// (sg_budgeted).
int64_t sg_steps(sg_guard *g) {
	int64_t n = g->charged + g->alloc / SG_ALLOC_BYTES_PER_STEP + g->fetches * SG_FETCH_STEPS;
	if (g->stmt) n += sqlite3_stmt_status(g->stmt, SQLITE_STMTSTATUS_VM_STEP, 0);
	return n;
}

// sg_budgeted is the work the budget counts while a step call runs.
// SQLite calls the handler each time the statement's own step count
// reaches a multiple of `every` (it carries the remainder across step
// calls), so ticks*every is the statement's step count rounded down to a
// multiple of `every`: exact, and the same on every run.
int64_t sg_budgeted(sg_guard *g) {
	return g->ticks * g->every + g->charged + g->alloc / SG_ALLOC_BYTES_PER_STEP + g->fetches * SG_FETCH_STEPS;
}

// sg_set_cancel is called from another thread when the caller gives up
// (its context is cancelled or its deadline passes) while a statement
// runs. The flag tells the handler why; the interrupt makes the VM stop
// at its next jump, so a statement whose rows each cost a long function
// call (hex(randomblob(8000000)): 67 ms) stops within one call rather
// than at the handler's next tick, up to 1,000 steps later. Go calls it
// only while the statement is armed (budget.go), and SQLite clears the
// interrupt when the next statement starts, so it cannot stop a later
// statement. sqlite3_interrupt is safe from any thread while the
// connection is open.
void sg_set_cancel(sg_guard *g) {
	__atomic_store_n(&g->cancel, 1, __ATOMIC_SEQ_CST);
	if (g->db) sqlite3_interrupt(g->db);
}

// sg_check_clock is the handler's deadline and cancel checks, for the
// allocator to call between ticks (alloc.c): a statement that allocates
// megabytes per VM step may take seconds between two ticks. It records
// the reason, interrupts the connection and returns 1 when the statement
// must stop.
int sg_check_clock(sg_guard *g) {
	if (g->reason != SG_STOP_NONE) return 0;
	int reason = SG_STOP_NONE;
	if (__atomic_load_n(&g->cancel, __ATOMIC_SEQ_CST)) {
		reason = SG_STOP_CANCEL;
	} else if (g->deadline_ns || g->caller_ns || g->cpu_cap_ns > 0) {
		int64_t now = sg_now_ns();
		if (g->caller_ns && now >= g->caller_ns) reason = SG_STOP_CALLER_DEADLINE;
		else if (sg_cpu_tick(g, now)) reason = SG_STOP_CPU;
		else if (g->deadline_ns && now >= g->deadline_ns) reason = SG_STOP_DEADLINE;
	}
	if (reason == SG_STOP_NONE) return 0;
	g->reason = reason;
	sqlite3_interrupt(g->db);
	return 1;
}

// progress runs every `every` VM steps. It must be cheap: one atomic load,
// one vDSO clock read and, at most every SG_CPU_EVERY_NS, one read of the
// thread's CPU clock (cpu.c).
static int progress(void *p) {
	sg_guard *g = p;
	if (__atomic_load_n(&g->cancel, __ATOMIC_SEQ_CST)) {
		g->reason = SG_STOP_CANCEL;
		return 1;
	}
	if (g->stmt) g->ticks++;
	if (g->budget > 0 && sg_budgeted(g) > g->budget) {
		g->reason = SG_STOP_BUDGET;
		return 1;
	}
	if (g->deadline_ns || g->caller_ns || g->cpu_cap_ns > 0) {
		int64_t now = sg_now_ns();
		if (g->caller_ns && now >= g->caller_ns) {
			g->reason = SG_STOP_CALLER_DEADLINE;
			return 1;
		}
		// Before the safety net: a statement past its CPU cap is the
		// model's doing even when the machine is also slow.
		if (sg_cpu_tick(g, now)) {
			g->reason = SG_STOP_CPU;
			return 1;
		}
		if (g->deadline_ns && now >= g->deadline_ns) {
			g->reason = SG_STOP_DEADLINE;
			return 1;
		}
	}
	return 0;
}

// sg_charge adds a bounded function's work to the budget. A statement
// with few VM steps may never reach the progress handler again, so the
// charge itself stops it once over budget: it records the reason and
// interrupts the connection, which the VM notices at its next jump, and
// tells the caller not to do the work (returns 1).
int sg_charge(sqlite3_context *ctx, int64_t steps) {
	sg_guard *g = sqlite3_user_data(ctx);
	if (!g || !g->stmt) return 0;
	// A caller who gave up before this call is told so, not that the
	// statement spent its budget.
	if (__atomic_load_n(&g->cancel, __ATOMIC_SEQ_CST)) {
		g->reason = SG_STOP_CANCEL;
		sqlite3_interrupt(sqlite3_context_db_handle(ctx));
		return 1;
	}
	g->charged += steps;
	if (g->budget > 0 && sg_budgeted(g) > g->budget) {
		g->reason = SG_STOP_BUDGET;
		sqlite3_interrupt(sqlite3_context_db_handle(ctx));
		return 1;
	}
	return 0;
}

int sg_db_config(sqlite3 *db, int op, int on, int *got) {
	extern int sqlite3_db_config(sqlite3 *, int, ...);
	return sqlite3_db_config(db, op, on, got);
}

// denied functions touch files, load code or change global state. None is
// compiled into this build; they are denied by name so that adding an
// extension later cannot open a hole.
static const char *const denied[] = {
	"load_extension", "readfile", "writefile", "edit", "lsdir", "fts3_tokenizer", "sqlite_dbpage", 0,
};

// authorize allows reading and nothing else: a SELECT (with subqueries
// and recursive CTEs), reading columns and calling functions not denied.
// Every other action is refused at prepare time with "not authorized".
static int authorize(void *p, int action, const char *a3, const char *a4, const char *db, const char *inner) {
	(void)p; (void)a3; (void)db; (void)inner;
	switch (action) {
	case SQLITE_SELECT:
	case SQLITE_READ:
	case SQLITE_RECURSIVE:
		return SQLITE_OK;
	case SQLITE_FUNCTION:
		for (int i = 0; denied[i]; i++) {
			if (a4 && strcasecmp(a4, denied[i]) == 0) return SQLITE_DENY;
		}
		return SQLITE_OK;
	}
	return SQLITE_DENY;
}

int sg_sandbox(sqlite3 *db, sg_guard *g, int every) {
	g->every = every;
	int rc = sqlite3_set_authorizer(db, authorize, 0);
	if (rc == SQLITE_OK) sqlite3_progress_handler(db, every, progress, g);
	return rc;
}

static int step_row(sqlite3_stmt *stmt, int ncol, sg_cell *cells);

int sg_open(const char *uri, int flags, sqlite3 **db) {
	int rc = sqlite3_open_v2(uri, db, flags, 0);
	if (*db) sqlite3_extended_result_codes(*db, 1);
	return rc;
}

// sg_step_row charges what the step and the column reads allocate to g
// (alloc.c); g may be NULL.
int sg_step_row(sqlite3_stmt *stmt, int ncol, sg_cell *cells, sg_guard *g) {
	sg_enter(g);
	sg_cpu_enter(g);
	int rc = step_row(stmt, ncol, cells);
	sg_cpu_leave(g);
	sg_leave();
	return rc;
}

static int step_row(sqlite3_stmt *stmt, int ncol, sg_cell *cells) {
	int rc = sqlite3_step(stmt);
	if (rc != SQLITE_ROW) return rc;
	for (int i = 0; i < ncol; i++) {
		sg_cell *c = &cells[i];
		c->type = sqlite3_column_type(stmt, i);
		c->p = 0;
		c->len = 0;
		switch (c->type) {
		case SQLITE_INTEGER:
			c->i = sqlite3_column_int64(stmt, i);
			break;
		case SQLITE_FLOAT:
			c->f = sqlite3_column_double(stmt, i);
			break;
		case SQLITE_TEXT:
			c->p = sqlite3_column_text(stmt, i);
			c->len = sqlite3_column_bytes(stmt, i);
			// Out of memory converting the value: report it as SQLite
			// would rather than return a NULL cell.
			if (!c->p) return SQLITE_NOMEM;
			break;
		case SQLITE_BLOB:
			c->p = sqlite3_column_blob(stmt, i);
			c->len = sqlite3_column_bytes(stmt, i);
			break;
		}
	}
	return rc;
}

int64_t sg_thread_cpu_ns(void) {
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int sg_measure(sqlite3 *db, const char *sql, int64_t *rows, int64_t *steps, int64_t *cpu_ns) {
	int64_t start = sg_thread_cpu_ns();
	sqlite3_stmt *stmt = 0;
	*rows = 0;
	*steps = 0;
	int rc = sqlite3_prepare_v2(db, sql, -1, &stmt, 0);
	if (rc != SQLITE_OK || !stmt) {
		*cpu_ns = sg_thread_cpu_ns() - start;
		return rc;
	}
	int ncol = sqlite3_column_count(stmt);
	volatile int64_t sink = 0;
	while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
		(*rows)++;
		for (int i = 0; i < ncol; i++) {
			switch (sqlite3_column_type(stmt, i)) {
			case SQLITE_INTEGER: sink += sqlite3_column_int64(stmt, i); break;
			case SQLITE_FLOAT: sink += (int64_t)sqlite3_column_double(stmt, i); break;
			case SQLITE_TEXT: sink += (intptr_t)sqlite3_column_text(stmt, i); sink += sqlite3_column_bytes(stmt, i); break;
			case SQLITE_BLOB: sink += (intptr_t)sqlite3_column_blob(stmt, i); sink += sqlite3_column_bytes(stmt, i); break;
			}
		}
	}
	*steps = sqlite3_stmt_status(stmt, SQLITE_STMTSTATUS_VM_STEP, 0);
	sqlite3_finalize(stmt);
	*cpu_ns = sg_thread_cpu_ns() - start;
	return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

#ifdef __GLIBC__
#include <malloc.h>
#endif

// sg_tidy_heap: with temp_store=MEMORY, C SQLite's sorter allocates one
// block per record and sorts a linked list. After a large sort the freed
// blocks stay scattered in glibc's free lists, the next large sort's list
// is scattered across them, and its merge slows down run after run (a
// 400,000-row DISTINCT went from 0.15 s to 0.75 s of CPU over 5 runs).
// malloc_trim(0) consolidates the free lists and returns memory, which
// restores the first run's speed; it is only worth its cost after a
// statement that used a lot of memory and freed it: the high-water mark
// of sqlgym's allocator (reset to the memory in use at each tidy) stands
// threshold above what is in use now. Comparing the mark itself with the
// threshold would trim after every statement once the pool's page caches
// pass it.
int sg_tidy_heap(int64_t threshold) {
	if (sg_heap_peak(0) - sg_heap_used() < threshold) return 0;
	sg_heap_peak(1);
#ifdef __GLIBC__
	malloc_trim(0);
#endif
	return 1;
}
