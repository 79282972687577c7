package sqlite

// #include "capi.h"
import "C"

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/sqlgym/sqlgym"
)

// Stats describe one statement's run.
type Stats struct {
	// VMSteps is the work the step budget counted: SQLite's count of
	// virtual-machine steps (SQLITE_STMTSTATUS_VM_STEP) plus the steps
	// the bounded functions (LIKE, GLOB, instr, replace, trim, length,
	// substr) charged for work inside one step, plus the bytes allocated
	// for the statement and the pages it asked of the database file
	// (alloc.c). Reported also when the statement stopped.
	VMSteps int64
	// Elapsed is the wall-clock time of the whole call.
	Elapsed time.Duration
}

// Query runs exactly one read-only statement within lim.
func (e *Engine) Query(ctx context.Context, sql string, lim sqlgym.Limits) (*sqlgym.ResultSet, error) {
	res, _, err := e.QueryStats(ctx, sql, lim)
	return res, err
}

// QueryStats is Query that also reports the statement's Stats.
func (e *Engine) QueryStats(ctx context.Context, sql string, lim sqlgym.Limits) (res *sqlgym.ResultSet, st Stats, err error) {
	start := time.Now()
	defer func() { st.Elapsed = time.Since(start) }()
	lim = lim.WithDefaults()
	if i := strings.IndexByte(sql, 0); i >= 0 {
		// SQLite stops reading at a NUL: "SELECT 1\x00; DROP ..." would run
		// as "SELECT 1" and hide the rest from the one-statement check.
		return nil, st, &sqlgym.ExecError{Kind: sqlgym.ErrKindSyntax,
			Msg: fmt.Sprintf("the SQL contains a NUL byte at offset %d, which SQL text may not hold", i)}
	}
	if err := ctx.Err(); err != nil {
		return nil, st, fmt.Errorf("sqlite: statement not started: %w", err)
	}
	if err := checkWindows(sql); err != nil {
		return nil, st, err
	}
	res, st, err = e.attempt(ctx, sql, lim, false)
	var ee *sqlgym.ExecError
	if !errors.Is(err, errNoMem) || errors.As(err, &ee) {
		return res, st, err
	}
	// Out of memory within its share: the process-wide limit, filled by
	// other statements. Wait, holding nothing others need, for room, and
	// run it once more with that room kept for it (heap.go).
	release, err := waitForRoom(ctx, e.opts.StatementHeapLimit, lim.SafetyNet)
	if err != nil {
		return nil, st, err
	}
	reruns.Add(1)
	res, st, err = e.attempt(ctx, sql, lim, true)
	release()
	if errors.Is(err, errNoMem) && !errors.As(err, &ee) {
		err = &sqlgym.InfraError{Err: fmt.Errorf("sqlite: the process's SQLite heap (limit %d bytes) was full twice while this statement held less than its share of %d bytes: %w; hint: raise Options.HeapLimit or run fewer statements at once",
			HeapLimit(), e.opts.StatementHeapLimit, err)}
	}
	return res, st, err
}

// attempt runs the statement once on a pooled connection. The slot is
// released on every path; a panic becomes an InfraError and the
// connection is discarded, as is one that ran out of memory or failed
// for a reason outside the statement.
func (e *Engine) attempt(ctx context.Context, sql string, lim sqlgym.Limits, reserve bool) (res *sqlgym.ResultSet, st Stats, err error) {
	c, err := e.acquire(ctx)
	if err != nil {
		return nil, st, err
	}
	discard := false
	defer func() {
		if r := recover(); r != nil {
			discard = true
			res, err = nil, &sqlgym.InfraError{Err: fmt.Errorf("sqlite: internal error running the statement: %v", r)}
		}
		e.release(c, discard)
	}()
	res, st, err = e.run(ctx, c, sql, lim, reserve)
	if errors.Is(err, errNoMem) || sqlgym.IsInfra(err) {
		discard = true
	}
	if errors.Is(err, errNoMem) && c.overShare() {
		// Its own doing: the same on every run, whatever ran beside it.
		err = &sqlgym.ExecError{Kind: sqlgym.ErrKindOther,
			Msg: fmt.Sprintf("out of memory: the statement needs more than its share of the heap, %d bytes", e.opts.StatementHeapLimit),
			Err: err}
	}
	tidyHeap()
	return res, st, err
}

// run runs the statement on c; with reserve, the allocator keeps room
// for its share of the heap while it runs.
func (e *Engine) run(ctx context.Context, c *conn, sql string, lim sqlgym.Limits, reserve bool) (*sqlgym.ResultSet, Stats, error) {
	var st Stats
	disarm := c.arm(ctx, lim, e.opts.StatementHeapLimit)
	defer disarm()
	if reserve {
		C.sg_reserve_for(c.guard, C.int64_t(e.opts.StatementHeapLimit))
		defer C.sg_unreserve()
	}

	stmt, tail, err := c.prepare(sql)
	if err != nil {
		return nil, st, stopped(ctx, c, lim, err)
	}
	if stmt == nil {
		return nil, st, &sqlgym.ExecError{Kind: sqlgym.ErrKindSyntax, Msg: "empty statement: there is no SQL to run"}
	}
	defer func() {
		c.guard.stmt = nil
		stmt.close()
	}()
	if !onlyTrivia(tail) {
		return nil, st, &sqlgym.ExecError{Kind: sqlgym.ErrKindMulti,
			Msg: fmt.Sprintf("only one statement may run; found more after the first: %.80q", tail)}
	}
	// The authorizer refuses every write it is asked about. These two
	// checks catch, before a single step runs, the statements it is never
	// asked about: VACUUM (INTO a file), REINDEX of a table without
	// indexes, DROP ... IF EXISTS of nothing. Every query returns at least
	// one column; DDL, DML without RETURNING and maintenance return none.
	if !stmt.readOnly() {
		return nil, st, &sqlgym.ExecError{Kind: sqlgym.ErrKindForbidden,
			Msg: "statement would write to the database, which is read-only"}
	}
	ncol := stmt.ncol
	if ncol == 0 {
		return nil, st, &sqlgym.ExecError{Kind: sqlgym.ErrKindForbidden,
			Msg: "only queries may run, and this statement returns no columns"}
	}
	c.watch(stmt)
	res := &sqlgym.ResultSet{Columns: make([]string, ncol), Rows: [][]sqlgym.Value{}}
	for i := range res.Columns {
		res.Columns[i] = stmt.columnName(i)
	}
	var slab []sqlgym.Value
	for {
		ok, err := stmt.next()
		if err != nil {
			st.VMSteps = c.steps()
			return nil, st, stopped(ctx, c, lim, err)
		}
		if !ok {
			break
		}
		if lim.StopAfter > 0 && len(res.Rows) >= lim.StopAfter {
			res.Capped = true
			break
		}
		if len(res.Rows) >= lim.MaxRows {
			st.VMSteps = c.steps()
			return nil, st, fmt.Errorf("%w: more than %d rows", sqlgym.ErrTooLarge, lim.MaxRows)
		}
		if testHookRow != nil {
			testHookRow()
		}
		cells := stmt.row()
		// Rows are cut from slabs of cells: one allocation for many
		// small rows instead of one each.
		if len(slab) < ncol {
			slab = make([]sqlgym.Value, ncol*min(max(len(res.Rows), 8), 256))
		}
		row := slab[:ncol:ncol]
		slab = slab[ncol:]
		for i := range row {
			row[i] = value(&cells[i])
			res.Bytes += int64(row[i].Size())
		}
		if res.Bytes > lim.MaxBytes {
			st.VMSteps = c.steps()
			return nil, st, fmt.Errorf("%w: more than %d bytes", sqlgym.ErrTooLarge, lim.MaxBytes)
		}
		res.Rows = append(res.Rows, row)
	}
	st.VMSteps = c.steps()
	return res, st, nil
}

// testHookRow, when set by a test, runs before each row is read: how
// tests make the engine panic mid-statement.
var testHookRow func()

// value is one cell as SQLite stores it: the storage class decides the
// kind, never the column's declared type.
func value(c *C.sg_cell) sqlgym.Value {
	switch c._type {
	case C.SQLITE_INTEGER:
		return sqlgym.Int(int64(c.i))
	case C.SQLITE_FLOAT:
		return sqlgym.Float(float64(c.f))
	case C.SQLITE_TEXT:
		return sqlgym.Text(cellString(c))
	case C.SQLITE_BLOB:
		return sqlgym.Value{Kind: sqlgym.KindBytes, Str: cellString(c)}
	}
	return sqlgym.Null()
}

// stopped maps an error from prepare or step. An interrupt is mapped from
// the reason the progress handler recorded; out of memory is passed on
// for QueryStats to decide; anything else is classified from SQLite's
// code and message.
func stopped(ctx context.Context, c *conn, lim sqlgym.Limits, err error) error {
	var se *sqliteError
	if !errors.As(err, &se) || se.primary() != codeInterrupt {
		return classify(err)
	}
	reason := c.stopReason()
	if reason == C.SG_STOP_NONE && ctx.Err() != nil {
		// The caller's watcher interrupted the statement between two
		// ticks of the handler (sg_set_cancel), so no reason was recorded.
		reason = C.SG_STOP_CANCEL
	}
	switch reason {
	case C.SG_STOP_CANCEL, C.SG_STOP_CALLER_DEADLINE:
		return fmt.Errorf("sqlite: statement abandoned by the caller: %w", callerErr(ctx))
	case C.SG_STOP_BUDGET:
		return fmt.Errorf("%w: %w (%d steps)", sqlgym.ErrTimeout, sqlgym.ErrStepBudget, lim.VMSteps)
	case C.SG_STOP_CPU:
		return fmt.Errorf("%w: %w (%v for a budget of %d steps)", sqlgym.ErrTimeout, sqlgym.ErrCPUCap, cpuCap(lim.VMSteps), lim.VMSteps)
	case C.SG_STOP_DEADLINE:
		if lim.VMSteps > 0 {
			return &sqlgym.InfraError{Err: fmt.Errorf("sqlite: still running after %v: %w", lim.SafetyNet, sqlgym.ErrSafetyNet)}
		}
		return fmt.Errorf("%w: after %v", sqlgym.ErrTimeout, lim.Timeout)
	}
	return &sqlgym.InfraError{Err: fmt.Errorf("sqlite: interrupted from outside the sandbox: %w", err)}
}

// callerErr is the caller's context error. The C handler reads the clock
// itself and can see the deadline pass a moment before the context's
// timer fires; the error is then the deadline's.
func callerErr(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return context.DeadlineExceeded
}
