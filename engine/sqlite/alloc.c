// alloc.c charges a statement for the bytes SQLite allocates on its
// behalf, and bounds the memory one statement may hold.
//
// Why: one call of hex(randomblob(8000000)), lower(printf('%.*c', 16e6,
// 'A')) or quote(zeroblob(…)) is one VM step, so a query that calls it per
// row spends minutes while its step count stays far below the budget.
// Every function whose cost grows with its input builds its result (or a
// copy of its input) in memory SQLite allocates, and so do group_concat,
// the JSON functions, sorters and temporary b-trees, and reading a large
// value out of a page. Counting those bytes through SQLite's allocator
// (SQLITE_CONFIG_MALLOC) charges every such function, built-in or not,
// without overriding it, and the count is a function of the SQL and the
// data: the same on every run.
//
// What is not charged: pages of the database file's own page cache
// (purgeable caches, SQLITE_CONFIG_PCACHE2 wrapper below). Whether a page
// is already cached depends on what the connection ran before, so charging
// them would make the budget depend on the pool; they are bounded by the
// cache size, and reading a page costs VM steps.
//
// The statement running on this thread is sg_cur, set by sg_step_row for
// the length of one step call: a cgo call stays on one OS thread, and the
// allocator is called on the thread of the step that asked.
#include <stdlib.h>
#include "capi.h"

typedef struct sqlite3_pcache sqlite3_pcache;
typedef struct sqlite3_pcache_page sqlite3_pcache_page;

typedef struct {
	void *(*xMalloc)(int);
	void (*xFree)(void *);
	void *(*xRealloc)(void *, int);
	int (*xSize)(void *);
	int (*xRoundup)(int);
	int (*xInit)(void *);
	void (*xShutdown)(void *);
	void *pAppData;
} mem_methods;

typedef struct {
	int iVersion;
	void *pArg;
	int (*xInit)(void *);
	void (*xShutdown)(void *);
	sqlite3_pcache *(*xCreate)(int szPage, int szExtra, int bPurgeable);
	void (*xCachesize)(sqlite3_pcache *, int nCachesize);
	int (*xPagecount)(sqlite3_pcache *);
	sqlite3_pcache_page *(*xFetch)(sqlite3_pcache *, unsigned key, int createFlag);
	void (*xUnpin)(sqlite3_pcache *, sqlite3_pcache_page *, int discard);
	void (*xRekey)(sqlite3_pcache *, sqlite3_pcache_page *, unsigned oldKey, unsigned newKey);
	void (*xTruncate)(sqlite3_pcache *, unsigned iLimit);
	void (*xDestroy)(sqlite3_pcache *);
	void (*xShrink)(sqlite3_pcache *);
} pcache_methods;

#define SQLITE_CONFIG_MALLOC 4
#define SQLITE_CONFIG_GETMALLOC 5
#define SQLITE_CONFIG_MEMSTATUS 9
#define SQLITE_CONFIG_PCACHE2 18
#define SQLITE_CONFIG_GETPCACHE2 19
extern int sqlite3_config(int, ...);

static mem_methods base;
static pcache_methods base_pc;
static int installed;

static __thread sg_guard *sg_cur;
// sg_uncharged is non-zero while the database file's page cache fetches a
// page on this thread.
static __thread int sg_uncharged;

// Every block carries a header naming the statement it was allocated for
// (NULL: none), so that freeing it, possibly in a later step call or at
// finalize, gives its bytes back to that statement's share. 16 bytes keep
// SQLite's 8-byte alignment.
#define HDR 16

typedef struct {
	sg_guard *owner;
	int64_t pad;
} hdr;

// Process-wide accounting (heap.go): sg_used is every byte this allocator
// holds; sg_limit is the hard heap limit, enforced here (room, fits) and
// not by SQLite: SQLite's own limit needs its memory statistics, whose
// global mutex every allocation of every thread takes (sg_install_alloc).
// sg_peak is sg_used's high-water mark since the last tidy (sg_tidy_heap).
// A re-run after the process-wide limit (sg_reserver) keeps sg_reserve
// bytes of room for itself until it holds them.
static int64_t sg_used, sg_limit, sg_reserve, sg_peak;

// SG_CLOCK_SHIFT: the clocks are read each 2^20 bytes a statement allocates.
#define SG_CLOCK_SHIFT 20
static sg_guard *sg_reserver;

// room is false when an allocation of grow more bytes for g would leave
// the process too little: past the limit, into the room a re-run keeps,
// or, for a statement holding more than a sixteenth of the limit, into
// the last eighth, which is kept for small statements so that a one-row
// query never fails beside two hogs.
static int room(sg_guard *g, int64_t grow) {
	int64_t limit = __atomic_load_n(&sg_limit, __ATOMIC_RELAXED);
	if (limit <= 0) return 1;
	sg_guard *r = __atomic_load_n(&sg_reserver, __ATOMIC_ACQUIRE);
	if (r && r != g) {
		int64_t kept = __atomic_load_n(&sg_reserve, __ATOMIC_RELAXED) - __atomic_load_n(&r->live, __ATOMIC_RELAXED);
		if (kept > 0) limit -= kept;
	}
	if (__atomic_load_n(&g->live, __ATOMIC_RELAXED) + grow > sg_limit / 16) limit -= sg_limit / 8;
	return __atomic_load_n(&sg_used, __ATOMIC_RELAXED) + grow <= limit;
}

// charge records an allocation for g: n bytes against its budget
// (stopping the statement at once when spent, as sg_charge does) and
// grow more bytes held against its share. Returns 0 when the allocation
// must fail: past the share (over_cap: the statement's own doing) or past
// the room the process has (not its doing).
static int charge(sg_guard *g, int64_t n, int64_t grow) {
	g->alloc += n;
	if (g->budget > 0 && g->reason == SG_STOP_NONE && sg_budgeted(g) > g->budget) {
		g->reason = SG_STOP_BUDGET;
		sqlite3_interrupt(g->db);
	}
	// Each mebibyte charged, the clocks and the caller are checked as the
	// progress handler would: one VM step may allocate megabytes, and the
	// handler's next tick may be seconds away. A clock read per MiB is
	// nothing beside writing the MiB.
	if ((g->alloc >> SG_CLOCK_SHIFT) != ((g->alloc - n) >> SG_CLOCK_SHIFT)) sg_check_clock(g);
	if (g->heap_cap > 0 && __atomic_load_n(&g->live, __ATOMIC_RELAXED) + grow > g->heap_cap) {
		g->over_cap = 1;
		return 0;
	}
	return room(g, grow);
}

// fits is the process-wide limit for an allocation no statement is
// charged for (preparing, opening, the database file's page cache): what
// sqlite3_hard_heap_limit64 enforced before memory statistics went off.
static int fits(int64_t grow) {
	int64_t limit = __atomic_load_n(&sg_limit, __ATOMIC_RELAXED);
	return limit <= 0 || __atomic_load_n(&sg_used, __ATOMIC_RELAXED) + grow <= limit;
}

// held adds size bytes to the process's count and keeps its high-water
// mark; the mark is written only when passed, so the line stays shared.
static void held(int64_t size) {
	int64_t used = __atomic_add_fetch(&sg_used, size, __ATOMIC_RELAXED);
	if (used > __atomic_load_n(&sg_peak, __ATOMIC_RELAXED)) __atomic_store_n(&sg_peak, used, __ATOMIC_RELAXED);
}

int64_t sg_heap_used(void) { return __atomic_load_n(&sg_used, __ATOMIC_RELAXED); }
int64_t sg_heap_peak(int reset) {
	int64_t peak = __atomic_load_n(&sg_peak, __ATOMIC_RELAXED);
	if (reset) __atomic_store_n(&sg_peak, __atomic_load_n(&sg_used, __ATOMIC_RELAXED), __ATOMIC_RELAXED);
	return peak;
}

void sg_set_limit(int64_t limit) { __atomic_store_n(&sg_limit, limit, __ATOMIC_RELAXED); }

void sg_reserve_for(sg_guard *g, int64_t bytes) {
	__atomic_store_n(&sg_reserve, bytes, __ATOMIC_RELAXED);
	__atomic_store_n(&sg_reserver, g, __ATOMIC_RELEASE);
}

void sg_unreserve(void) { __atomic_store_n(&sg_reserver, (sg_guard *)0, __ATOMIC_RELEASE); }

static void *sg_malloc(int n) {
	sg_guard *g = sg_uncharged ? 0 : sg_cur;
	if (g ? !charge(g, n, n) : !fits(n)) return 0;
	hdr *h = base.xMalloc(n + HDR);
	if (!h) return 0;
	h->owner = g;
	int64_t size = base.xSize(h);
	held(size);
	if (g) __atomic_add_fetch(&g->live, size - HDR, __ATOMIC_RELAXED);
	return (char *)h + HDR;
}

static void sg_free(void *p) {
	hdr *h = (hdr *)((char *)p - HDR);
	int64_t size = base.xSize(h);
	__atomic_sub_fetch(&sg_used, size, __ATOMIC_RELAXED);
	if (h->owner) __atomic_sub_fetch(&h->owner->live, size - HDR, __ATOMIC_RELAXED);
	base.xFree(h);
}

// sg_realloc charges the new size: growing a buffer copies the old bytes
// and the caller then writes the new ones. The block keeps its owner.
static void *sg_realloc(void *p, int n) {
	hdr *h = (hdr *)((char *)p - HDR);
	sg_guard *g = sg_uncharged ? 0 : sg_cur;
	int old = base.xSize(h) - HDR;
	if (n > old && (g ? !charge(g, n, n - old) : !fits(n - old))) return 0;
	sg_guard *owner = h->owner;
	hdr *nh = base.xRealloc(h, n + HDR);
	if (!nh) return 0;
	int64_t grown = (int64_t)(base.xSize(nh) - HDR) - old;
	held(grown);
	if (owner) __atomic_add_fetch(&owner->live, grown, __ATOMIC_RELAXED);
	return (char *)nh + HDR;
}

static int sg_size(void *p) { return p ? base.xSize((char *)p - HDR) - HDR : 0; }
static int sg_roundup(int n) { return base.xRoundup(n + HDR) - HDR; }
static int sg_init(void *p) { (void)p; return base.xInit(base.pAppData); }
static void sg_shutdown(void *p) { (void)p; base.xShutdown(base.pAppData); }

// A page cache is wrapped to remember whether it is purgeable: the
// database file's caches are, the in-memory temporary databases behind
// sorts, DISTINCT and materialised subqueries (temp_store=MEMORY) are not,
// and their pages are the statement's own memory.
typedef struct {
	sqlite3_pcache *in;
	int purgeable;
} wcache;

#define IN(c) (((wcache *)(c))->in)

static sqlite3_pcache *pc_create(int szPage, int szExtra, int bPurgeable) {
	wcache *w = malloc(sizeof *w);
	if (!w) return 0;
	if (bPurgeable) sg_uncharged++;
	w->in = base_pc.xCreate(szPage, szExtra, bPurgeable);
	if (bPurgeable) sg_uncharged--;
	if (!w->in) {
		free(w);
		return 0;
	}
	w->purgeable = bPurgeable;
	return (sqlite3_pcache *)w;
}

// pc_fetch charges a statement SG_FETCH_STEPS for each page it asks of
// the database file, hit or miss: the number of requests follows from
// the b-tree operations alone, while whether the page was cached does
// not. A random row lookup through an index (a descent of a few pages)
// costs about 1.5 us of CPU in four VM steps; uncharged, a query made of
// such lookups ran at ~500 ns per step.
static sqlite3_pcache_page *pc_fetch(sqlite3_pcache *c, unsigned key, int create) {
	wcache *w = (wcache *)c;
	if (!w->purgeable) return base_pc.xFetch(w->in, key, create);
	sg_guard *g = sg_uncharged ? 0 : sg_cur;
	if (g) {
		g->fetches++;
		if (g->budget > 0 && g->reason == SG_STOP_NONE && sg_budgeted(g) > g->budget) {
			g->reason = SG_STOP_BUDGET;
			sqlite3_interrupt(g->db);
		}
	}
	sg_uncharged++;
	sqlite3_pcache_page *pg = base_pc.xFetch(w->in, key, create);
	sg_uncharged--;
	return pg;
}

static void pc_cachesize(sqlite3_pcache *c, int n) { base_pc.xCachesize(IN(c), n); }
static int pc_pagecount(sqlite3_pcache *c) { return base_pc.xPagecount(IN(c)); }
static void pc_unpin(sqlite3_pcache *c, sqlite3_pcache_page *p, int d) { base_pc.xUnpin(IN(c), p, d); }
static void pc_rekey(sqlite3_pcache *c, sqlite3_pcache_page *p, unsigned a, unsigned b) { base_pc.xRekey(IN(c), p, a, b); }
static void pc_truncate(sqlite3_pcache *c, unsigned n) { base_pc.xTruncate(IN(c), n); }
static void pc_shrink(sqlite3_pcache *c) { base_pc.xShrink(IN(c)); }
static void pc_destroy(sqlite3_pcache *c) {
	base_pc.xDestroy(IN(c));
	free(c);
}

// sg_install_alloc installs the allocator and turns SQLite's memory
// statistics off (unless memstatus): with them on, every sqlite3_malloc
// and sqlite3_free of every thread takes one global mutex to update the
// counters, which the verifier's worker threads contend for; the
// process's heap limit and high-water mark are kept here instead.
int sg_install_alloc(int memstatus) {
	if (installed) return SQLITE_OK;
	int rc = sqlite3_config(SQLITE_CONFIG_MEMSTATUS, memstatus);
	if (rc == SQLITE_OK) rc = sqlite3_config(SQLITE_CONFIG_GETMALLOC, &base);
	if (rc == SQLITE_OK) rc = sqlite3_config(SQLITE_CONFIG_GETPCACHE2, &base_pc);
	if (rc != SQLITE_OK) return rc;
	static mem_methods m;
	m = (mem_methods){sg_malloc, sg_free, sg_realloc, sg_size, sg_roundup, sg_init, sg_shutdown, 0};
	static pcache_methods pc;
	pc = base_pc;
	pc.xCreate = pc_create;
	pc.xCachesize = pc_cachesize;
	pc.xPagecount = pc_pagecount;
	pc.xFetch = pc_fetch;
	pc.xUnpin = pc_unpin;
	pc.xRekey = pc_rekey;
	pc.xTruncate = pc_truncate;
	pc.xDestroy = pc_destroy;
	pc.xShrink = pc_shrink;
	rc = sqlite3_config(SQLITE_CONFIG_MALLOC, &m);
	if (rc == SQLITE_OK) rc = sqlite3_config(SQLITE_CONFIG_PCACHE2, &pc);
	if (rc == SQLITE_OK) installed = 1;
	return rc;
}

int sg_alloc_installed(void) { return installed; }

void sg_enter(sg_guard *g) { sg_cur = g; }
void sg_leave(void) { sg_cur = 0; }
