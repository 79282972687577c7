package sqlite

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ncruces/go-sqlite3"

	"github.com/sqlgym/sqlgym"
)

// Stats describe one statement's run.
type Stats struct {
	// VMSteps is SQLite's count of virtual-machine steps for the statement
	// (SQLITE_STMTSTATUS_VM_STEP), also when it was stopped.
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
	c, err := e.acquire(ctx)
	if err != nil {
		return nil, st, err
	}
	discard := false
	defer func() { e.release(c, discard) }()
	defer func() {
		// ncruces panics when SQLite reports out of memory, which the
		// hard heap limit makes a statement's own failure. The connection
		// is dropped in case the Wasm instance is left in a bad state.
		if r := recover(); r != nil {
			discard = true
			if !isOOM(r) {
				panic(r)
			}
			res, err = nil, &sqlgym.ExecError{
				Kind: sqlgym.ErrKindOther,
				Msg:  fmt.Sprintf("out of memory: the statement needs more than the heap limit of %d bytes", e.opts.HeapLimit),
				Err:  fmt.Errorf("%v", r),
			}
		}
	}()
	return e.run(ctx, c, sql, lim, &st)
}

func isOOM(r any) bool {
	err, ok := r.(error)
	return ok && err.Error() == "sqlite3: out of memory"
}

func (e *Engine) run(ctx context.Context, c *sqlite3.Conn, sql string, lim sqlgym.Limits, st *Stats) (*sqlgym.ResultSet, Stats, error) {
	in := newInterrupter(ctx, lim.Timeout, lim.VMSteps)
	c.SetInterrupt(in)
	defer c.SetInterrupt(context.Background())
	stopped := func(err error) error { return interrupted(ctx, in, lim, err) }

	in.allow()
	stmt, tail, err := c.Prepare(sql)
	if err != nil {
		return nil, *st, stopped(err)
	}
	if stmt == nil {
		return nil, *st, &sqlgym.ExecError{Kind: sqlgym.ErrKindSyntax, Msg: "empty statement: there is no SQL to run"}
	}
	defer stmt.Close()
	if !onlyTrivia(tail) {
		return nil, *st, &sqlgym.ExecError{Kind: sqlgym.ErrKindMulti,
			Msg: fmt.Sprintf("only one statement may run; found more after the first: %.80q", tail)}
	}
	// The authorizer refuses every write it is asked about. These two
	// checks catch, before a single step runs, the statements it is never
	// asked about: VACUUM (INTO a file), REINDEX of a table without
	// indexes, DROP ... IF EXISTS of nothing. Every query returns at least
	// one column; DDL, DML without RETURNING and maintenance return none.
	if !stmt.ReadOnly() {
		return nil, *st, &sqlgym.ExecError{Kind: sqlgym.ErrKindForbidden,
			Msg: "statement would write to the database, which is read-only"}
	}
	ncol := stmt.ColumnCount()
	if ncol == 0 {
		return nil, *st, &sqlgym.ExecError{Kind: sqlgym.ErrKindForbidden,
			Msg: "only queries may run, and this statement returns no columns"}
	}
	res := &sqlgym.ResultSet{Columns: make([]string, ncol), Rows: [][]sqlgym.Value{}}
	for i := range res.Columns {
		res.Columns[i] = stmt.ColumnName(i)
	}
	for {
		in.allow()
		if !stmt.Step() {
			break
		}
		if lim.StopAfter > 0 && len(res.Rows) >= lim.StopAfter {
			res.Capped = true
			break
		}
		if len(res.Rows) >= lim.MaxRows {
			st.VMSteps = int64(stmt.Status(sqlite3.STMTSTATUS_VM_STEP, false))
			return nil, *st, fmt.Errorf("%w: more than %d rows", sqlgym.ErrTooLarge, lim.MaxRows)
		}
		row := make([]sqlgym.Value, ncol)
		for i := range row {
			row[i] = column(stmt, i)
			res.Bytes += int64(row[i].Size())
		}
		if res.Bytes > lim.MaxBytes {
			st.VMSteps = int64(stmt.Status(sqlite3.STMTSTATUS_VM_STEP, false))
			return nil, *st, fmt.Errorf("%w: more than %d bytes", sqlgym.ErrTooLarge, lim.MaxBytes)
		}
		res.Rows = append(res.Rows, row)
	}
	st.VMSteps = int64(stmt.Status(sqlite3.STMTSTATUS_VM_STEP, false))
	if err := stmt.Err(); err != nil {
		return nil, *st, stopped(err)
	}
	return res, *st, nil
}

// column reads one cell as SQLite stores it.
func column(stmt *sqlite3.Stmt, i int) sqlgym.Value {
	switch stmt.ColumnType(i) {
	case sqlite3.INTEGER:
		return sqlgym.Int(stmt.ColumnInt64(i))
	case sqlite3.FLOAT:
		return sqlgym.Float(stmt.ColumnFloat(i))
	case sqlite3.TEXT:
		return sqlgym.Text(string(stmt.ColumnRawText(i)))
	case sqlite3.BLOB:
		return sqlgym.Value{Kind: sqlgym.KindBytes, Str: string(stmt.ColumnRawBlob(i))}
	}
	return sqlgym.Null()
}

// interrupted maps an error from Prepare or Step: an interrupt becomes
// ErrTimeout when a limit caused it, or the caller's cancellation;
// anything else is classified from SQLite's code and message.
func interrupted(ctx context.Context, in *interrupter, lim sqlgym.Limits, err error) error {
	if !errors.Is(err, sqlite3.INTERRUPT) {
		return classify(err)
	}
	switch {
	case errors.Is(ctx.Err(), context.Canceled):
		return fmt.Errorf("sqlite: statement cancelled: %w", ctx.Err())
	case ctx.Err() != nil:
		return fmt.Errorf("%w: %w", sqlgym.ErrTimeout, ctx.Err())
	case in.spent.Load():
		return fmt.Errorf("%w: %w (%d steps)", sqlgym.ErrTimeout, errStepBudget, lim.VMSteps)
	}
	return fmt.Errorf("%w: after %v", sqlgym.ErrTimeout, lim.Timeout)
}
