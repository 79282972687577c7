// capi.h declares the part of SQLite's public C API that engine/sqlite
// uses, and the engine's own C helpers. SQLite itself is the amalgamation
// that github.com/mattn/go-sqlite3 compiles into the binary; the Go side
// imports that package for its object code only, never its driver.
#ifndef SQLGYM_CAPI_H
#define SQLGYM_CAPI_H

#include <stdint.h>

typedef struct sqlite3 sqlite3;
typedef struct sqlite3_stmt sqlite3_stmt;
typedef struct sqlite3_context sqlite3_context;
typedef struct sqlite3_value sqlite3_value;

// Result and type codes (sqlite3.h).
#define SQLITE_OK 0
#define SQLITE_ERROR 1
#define SQLITE_NOMEM 7
#define SQLITE_INTERRUPT 9
#define SQLITE_TOOBIG 18
#define SQLITE_ROW 100
#define SQLITE_DONE 101
#define SQLITE_DENY 1
#define SQLITE_INTEGER 1
#define SQLITE_FLOAT 2
#define SQLITE_TEXT 3
#define SQLITE_BLOB 4
#define SQLITE_NULL 5
#define SQLITE_UTF8 1
#define SQLITE_DETERMINISTIC 0x000000800
#define SQLITE_INNOCUOUS 0x000200000
#define SQLITE_READ 20
#define SQLITE_SELECT 21
#define SQLITE_FUNCTION 31
#define SQLITE_RECURSIVE 33
#define SQLITE_STMTSTATUS_VM_STEP 4
#define SQLITE_LIMIT_LIKE_PATTERN_LENGTH 8

extern int sqlite3_libversion_number(void);
extern const char *sqlite3_libversion(void);
extern int sqlite3_open_v2(const char *, sqlite3 **, int, const char *);
extern int sqlite3_close_v2(sqlite3 *);
extern const char *sqlite3_errmsg(sqlite3 *);
extern int sqlite3_extended_errcode(sqlite3 *);
extern const char *sqlite3_errstr(int);
extern int sqlite3_extended_result_codes(sqlite3 *, int);
extern int sqlite3_limit(sqlite3 *, int, int);
extern int sqlite3_exec(sqlite3 *, const char *, int (*)(void *, int, char **, char **), void *, char **);
extern void sqlite3_free(void *);
extern int64_t sqlite3_hard_heap_limit64(int64_t);
extern int64_t sqlite3_memory_used(void);
extern void sqlite3_interrupt(sqlite3 *);
extern int sqlite3_set_authorizer(sqlite3 *, int (*)(void *, int, const char *, const char *, const char *, const char *), void *);
extern void sqlite3_progress_handler(sqlite3 *, int, int (*)(void *), void *);
extern int sqlite3_prepare_v2(sqlite3 *, const char *, int, sqlite3_stmt **, const char **);
extern int sqlite3_finalize(sqlite3_stmt *);
extern int sqlite3_step(sqlite3_stmt *);
extern int sqlite3_stmt_readonly(sqlite3_stmt *);
extern int sqlite3_stmt_status(sqlite3_stmt *, int, int);
extern int sqlite3_bind_text(sqlite3_stmt *, int, const char *, int, void (*)(void *));
extern int sqlite3_column_count(sqlite3_stmt *);
extern const char *sqlite3_column_name(sqlite3_stmt *, int);
extern int sqlite3_column_type(sqlite3_stmt *, int);
extern int64_t sqlite3_column_int64(sqlite3_stmt *, int);
extern double sqlite3_column_double(sqlite3_stmt *, int);
extern const unsigned char *sqlite3_column_text(sqlite3_stmt *, int);
extern const void *sqlite3_column_blob(sqlite3_stmt *, int);
extern int sqlite3_column_bytes(sqlite3_stmt *, int);
extern int sqlite3_create_function_v2(sqlite3 *, const char *, int, int, void *,
                                      void (*)(sqlite3_context *, int, sqlite3_value **),
                                      void (*)(sqlite3_context *, int, sqlite3_value **),
                                      void (*)(sqlite3_context *), void (*)(void *));
extern void *sqlite3_user_data(sqlite3_context *);
extern sqlite3 *sqlite3_context_db_handle(sqlite3_context *);
extern int sqlite3_value_type(sqlite3_value *);
extern int sqlite3_value_numeric_type(sqlite3_value *);
extern double sqlite3_value_double(sqlite3_value *);
extern int64_t sqlite3_value_int64(sqlite3_value *);
extern const unsigned char *sqlite3_value_text(sqlite3_value *);
extern const void *sqlite3_value_blob(sqlite3_value *);
extern int sqlite3_value_bytes(sqlite3_value *);
extern void sqlite3_result_double(sqlite3_context *, double);
extern void sqlite3_result_int(sqlite3_context *, int);
extern void sqlite3_result_int64(sqlite3_context *, int64_t);
extern void sqlite3_result_error(sqlite3_context *, const char *, int);
extern void sqlite3_result_error_nomem(sqlite3_context *);
extern int sqlite3_strglob(const char *, const char *);
extern int sqlite3_strlike(const char *, const char *, unsigned int);
extern void *sqlite3_malloc64(uint64_t);

// sg_guard is one connection's stop conditions, read by the progress
// handler. Go writes the fields between statements (when no statement
// runs), except cancel, which another goroutine may set at any time.
typedef struct sg_guard {
	sqlite3 *db;           // the connection, for sqlite3_interrupt
	sqlite3_stmt *stmt;    // the statement whose steps count, or NULL
	int64_t budget;        // steps allowed; <= 0 means no budget
	int64_t charged;       // steps charged by sqlgym's own functions
	int64_t ticks;         // progress-handler calls while stmt ran
	int64_t every;         // VM steps between two progress-handler calls
	int64_t deadline_ns;   // CLOCK_MONOTONIC; 0 means none
	int64_t caller_ns;     // the caller's deadline; 0 means none
	int64_t alloc;         // bytes allocated for the statement (alloc.c)
	int64_t fetches;       // pages it asked of the database file (alloc.c)
	int64_t live;          // bytes it holds now; updated atomically
	int64_t heap_cap;      // its share: bytes it may hold; <= 0 means none
	int32_t over_cap;      // set when an allocation failed past heap_cap
	int32_t cancel;        // set atomically when the caller gave up
	int32_t reason;        // why the handler stopped the statement
	int32_t cpu_on;        // thread CPU is being counted (cpu.c)
	int64_t cpu_cap_ns;    // thread CPU the statement may spend; <= 0: none
	int64_t cpu_used_ns;   // thread CPU counted so far (cpu.c)
	int64_t cpu_mark_ns;   // this thread's CPU clock when counting last resumed
	int64_t cpu_read_ns;   // CLOCK_MONOTONIC when the CPU clock was last read
	int64_t start_ns;      // CLOCK_MONOTONIC when the statement was armed
	int64_t cpu_weight;    // 0: this step call is not measured; else its weight (cpu.c)
	uint64_t cpu_rng;      // picks the step calls measured (cpu.c)
} sg_guard;

// SG_ALLOC_BYTES_PER_STEP: bytes allocated for a statement that count as
// one step of its budget (alloc.c, docs/sandbox-sqlite.md "Bytes").
#define SG_ALLOC_BYTES_PER_STEP 4
// SG_FETCH_STEPS: steps charged for each page a statement asks of the
// database file's cache, hit or miss (alloc.c).
#define SG_FETCH_STEPS 32

// alloc.c: the allocator that charges statements for their bytes.
int sg_install_alloc(int memstatus);
int64_t sg_heap_used(void);
int64_t sg_heap_peak(int reset);
int sg_alloc_installed(void);
void sg_enter(sg_guard *g);
void sg_set_limit(int64_t limit);
void sg_reserve_for(sg_guard *g, int64_t bytes);
void sg_unreserve(void);
void sg_leave(void);

// Reasons the progress handler stopped a statement (sg_guard.reason).
#define SG_STOP_NONE 0
#define SG_STOP_BUDGET 1
#define SG_STOP_DEADLINE 2
#define SG_STOP_CANCEL 3
#define SG_STOP_CALLER_DEADLINE 4
#define SG_STOP_CPU 5

// cpu.c: the thread-CPU cap for work the budget cannot count.
// SG_CPU_AFTER_NS: wall time a statement runs before its CPU is counted.
#define SG_CPU_AFTER_NS 500000000LL
// SG_CPU_EVERY_NS: wall time between two reads of the CPU clock inside a
// step call.
#define SG_CPU_EVERY_NS 10000000LL
// SG_CPU_SAMPLE: one step call in this many (chosen at random) reads the
// CPU clock when it starts and ends; its CPU counts this many times.
#define SG_CPU_SAMPLE 64
int sg_cpu_tick(sg_guard *g, int64_t now);
void sg_cpu_enter(sg_guard *g);
void sg_cpu_leave(sg_guard *g);

int64_t sg_now_ns(void);
int64_t sg_steps(sg_guard *g);
int64_t sg_budgeted(sg_guard *g);
void sg_set_cancel(sg_guard *g);
int sg_check_clock(sg_guard *g);
int sg_db_config(sqlite3 *db, int op, int on, int *got);
int sg_sandbox(sqlite3 *db, sg_guard *g, int every);
int sg_register_math(sqlite3 *db);
int sg_register_bounded(sqlite3 *db, sg_guard *g);
int sg_charge(sqlite3_context *ctx, int64_t steps);

// sg_cell is one column of the current row, filled by sg_step_row so that
// a row costs one cgo call rather than three per column.
typedef struct sg_cell {
	int32_t type;
	int32_t len;
	int64_t i;
	double f;
	const void *p;
} sg_cell;

int sg_step_row(sqlite3_stmt *stmt, int ncol, sg_cell *cells, sg_guard *g);
int sg_open(const char *uri, int flags, sqlite3 **db);

extern void sqlite3_result_text(sqlite3_context *, const char *, int, void (*)(void *));
extern void sqlite3_result_text64(sqlite3_context *, const char *, uint64_t, void (*)(void *), unsigned char);
extern void sqlite3_result_blob64(sqlite3_context *, const void *, uint64_t, void (*)(void *));
extern void sqlite3_result_error_toobig(sqlite3_context *);
extern sqlite3_value *sqlite3_value_dup(const sqlite3_value *);
extern void sqlite3_value_free(sqlite3_value *);
extern void *sqlite3_realloc64(void *, uint64_t);
extern char *sqlite3_mprintf(const char *, ...);
#define SQLITE_LIMIT_LENGTH 0
#define SQLITE_TRANSIENT ((void (*)(void *))-1)

// Bounds on one call of a function whose cost is the product of its
// arguments' sizes (bounded.c); go/capi.go exports them to Go and docs.
#define SG_PATTERN_MAX_COST ((int64_t)1 << 27)  // LIKE/GLOB: pattern bytes x subject bytes
#define SG_PATTERN_COST_PER_STEP 8
#define SG_SEARCH_MAX_COST ((int64_t)1 << 33)   // instr/replace: needle x haystack bytes
#define SG_SEARCH_COST_PER_STEP 256
#define SG_TRIM_MAX_COST ((int64_t)1 << 26)     // trim(X,Y): chars of X x chars of Y
#define SG_TRIM_COST_PER_STEP 2
#define SG_SCAN_BYTES_PER_STEP 8                // length(X): bytes walked

// sg_measure runs the first statement of sql to its end on db, reading
// every cell, in one C call, and reports rows, VM steps and the calling
// thread's CPU time: the benchmark baseline (raw.go).
int64_t sg_thread_cpu_ns(void);
int sg_measure(sqlite3 *db, const char *sql, int64_t *rows, int64_t *steps, int64_t *cpu_ns);

// sg_tidy_heap gives freed memory back after a statement that used and
// freed more than `threshold` bytes since the last tidy (heap.go).
int sg_tidy_heap(int64_t threshold);

#endif
