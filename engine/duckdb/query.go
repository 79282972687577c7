package duckdb

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	duck "github.com/duckdb/duckdb-go/v2"

	"github.com/sqlgym/sqlgym"
)

// timeoutGrace is how long Query waits, once the time limit has passed, for
// the statement to come back on its own (it may have finished right at the
// limit) before returning ErrTimeout without it. Some DuckDB work never
// checks for interrupts (planning folds constant expressions such as
// len(range(10000000)) into values, taking seconds); such a statement then
// finishes in the background while the caller moves on.
const timeoutGrace = 50 * time.Millisecond

// outcome is what a statement's goroutine hands back.
type outcome struct {
	res *sqlgym.ResultSet
	err error
}

// Query runs one statement under the sandbox and the limits.
func (e *Engine) Query(ctx context.Context, query string, lim sqlgym.Limits) (*sqlgym.ResultSet, error) {
	if e.useWorkers() {
		return e.queryWorker(ctx, query, lim)
	}
	res, err, _ := e.queryInProcess(ctx, query, lim)
	return res, err
}

// queryInProcess runs the statement on a connection of this process.
// abandoned reports a statement still running after Query gave up on it,
// which a worker process answers by exiting.
func (e *Engine) queryInProcess(ctx context.Context, query string, lim sqlgym.Limits) (_ *sqlgym.ResultSet, _ error, abandoned bool) {
	lim = lim.WithDefaults()
	p, err := e.handle(ctx)
	if err != nil {
		return nil, err, false
	}
	// The connection is taken before the clock starts: waiting for a free
	// one is the pool's delay, not the statement's time.
	l, err := p.acquire(ctx)
	if err != nil {
		e.running.Done()
		if ctx.Err() != nil {
			return nil, fmt.Errorf("duckdb: waiting for a connection: %w", ctx.Err()), false
		}
		return nil, &sqlgym.InfraError{Err: err}, false
	}
	clock := e.clock
	if clock == nil {
		clock = wallClock
	}
	qctx, cancel := clock(ctx, lim)
	done := make(chan outcome, 1)
	go func() {
		defer e.running.Done()
		res, err := runStatement(qctx, p, l.conn, query, lim)
		l.release()
		done <- outcome{res, err}
	}()
	defer cancel()

	select {
	case o := <-done:
		res, err := finish(ctx, qctx, o, lim)
		return res, err, false
	case <-qctx.Done():
	}
	grace := time.NewTimer(min(timeoutGrace, lim.Timeout/10))
	defer grace.Stop()
	select {
	case o := <-done:
		res, err := finish(ctx, qctx, o, lim)
		return res, err, false
	case <-grace.C:
		// The driver keeps interrupting it; whatever is left finishes on
		// the side without holding up the next statement.
		l.abandon()
		return nil, stopped(ctx, qctx, lim), true
	}
}

// finish turns a statement's outcome into Query's answer: an error after
// the time limit passed is the limit's doing, whatever DuckDB said.
func finish(ctx, qctx context.Context, o outcome, lim sqlgym.Limits) (*sqlgym.ResultSet, error) {
	if o.err == nil {
		return o.res, nil
	}
	if qctx.Err() != nil && !errors.Is(o.err, sqlgym.ErrTooLarge) && !sqlgym.IsInfra(o.err) {
		var ee *sqlgym.ExecError
		if !errors.As(o.err, &ee) || ee.Kind == sqlgym.ErrKindOther || isInterrupt(o.err) {
			return nil, stopped(ctx, qctx, lim)
		}
	}
	return nil, o.err
}

func isInterrupt(err error) bool {
	var de *duck.Error
	return errors.As(err, &de) && de.Type == duck.ErrorTypeInterrupt
}

// runStatement is the sandboxed path of one statement on a driver
// connection.
func runStatement(ctx context.Context, p *pool, c *duck.Conn, query string, lim sqlgym.Limits) (*sqlgym.ResultSet, error) {
	// The function gate reads the parse tree before anything is bound.
	verdict, err := gate(ctx, p, c, query)
	if err != nil {
		return nil, err
	}
	// The driver's context-free Prepare asks DuckDB's parser how many
	// statements the text holds and refuses more than one before running
	// anything; its PrepareContext would run all but the last.
	st, err := prepareOne(c, query)
	if err != nil {
		return nil, err
	}
	stmt := st
	defer func() { stmt.Close() }()

	typ, err := stmt.StatementType()
	if err != nil {
		return nil, classify(err)
	}
	if !allowedStatement(typ) || verdict == gateNotSelect || verdict == gateSyntax {
		return nil, &sqlgym.ExecError{Kind: sqlgym.ErrKindForbidden,
			Msg: fmt.Sprintf("only a SELECT statement may run in the sandbox, not a %s statement", statementName(typ))}
	}

	cols, textCols, textKinds, err := describe(stmt)
	if err != nil {
		return nil, classify(err)
	}
	if typ == duck.STATEMENT_TYPE_SELECT && anyTrue(textCols) {
		// Nested and textual types have no exact Go value in the driver
		// (JSON arrives parsed, LIST as []any): DuckDB casts those columns
		// to its own text instead.
		wrapped, err := prepareOne(c, textQuery(query, textCols))
		if err != nil {
			return nil, err
		}
		stmt.Close()
		stmt = wrapped
	}

	if err := ctx.Err(); err != nil {
		return nil, err
	}
	rows, err := stmt.QueryContext(ctx, nil)
	if err != nil {
		return nil, classify(err)
	}
	defer rows.Close()
	return readRows(ctx, rows, cols, textKinds, lim)
}

func prepareOne(c *duck.Conn, query string) (*duck.Stmt, error) {
	st, err := c.Prepare(query)
	if err != nil {
		return nil, classifyPrepare(err)
	}
	stmt, ok := st.(*duck.Stmt)
	if !ok {
		st.Close()
		return nil, &sqlgym.InfraError{Err: fmt.Errorf("duckdb: unexpected statement type %T", st)}
	}
	return stmt, nil
}

func allowedStatement(t duck.StmtType) bool {
	return t == duck.STATEMENT_TYPE_SELECT || t == duck.STATEMENT_TYPE_EXPLAIN
}

var statementNames = map[duck.StmtType]string{
	duck.STATEMENT_TYPE_INSERT: "INSERT", duck.STATEMENT_TYPE_UPDATE: "UPDATE", duck.STATEMENT_TYPE_DELETE: "DELETE",
	duck.STATEMENT_TYPE_PREPARE: "PREPARE", duck.STATEMENT_TYPE_CREATE: "CREATE", duck.STATEMENT_TYPE_EXECUTE: "EXECUTE",
	duck.STATEMENT_TYPE_ALTER: "ALTER", duck.STATEMENT_TYPE_TRANSACTION: "transaction", duck.STATEMENT_TYPE_COPY: "COPY",
	duck.STATEMENT_TYPE_ANALYZE: "ANALYZE", duck.STATEMENT_TYPE_VARIABLE_SET: "SET VARIABLE",
	duck.STATEMENT_TYPE_CREATE_FUNC: "CREATE FUNCTION", duck.STATEMENT_TYPE_DROP: "DROP", duck.STATEMENT_TYPE_EXPORT: "EXPORT",
	duck.STATEMENT_TYPE_PRAGMA: "PRAGMA", duck.STATEMENT_TYPE_VACUUM: "VACUUM", duck.STATEMENT_TYPE_CALL: "CALL",
	duck.STATEMENT_TYPE_SET: "SET", duck.STATEMENT_TYPE_LOAD: "LOAD or INSTALL", duck.STATEMENT_TYPE_RELATION: "relation",
	duck.STATEMENT_TYPE_EXTENSION: "extension", duck.STATEMENT_TYPE_LOGICAL_PLAN: "logical plan",
	duck.STATEMENT_TYPE_ATTACH: "ATTACH", duck.STATEMENT_TYPE_DETACH: "DETACH", duck.STATEMENT_TYPE_MULTI: "multi",
}

func statementName(t duck.StmtType) string {
	if n, ok := statementNames[t]; ok {
		return n
	}
	return fmt.Sprintf("type-%d", int(t))
}

// describe returns the prepared statement's column names, which columns
// must be read as DuckDB's text, and the kind that text stands for
// (KindText but for INTERVAL and TIME_NS, whose text is the canonical form
// of an interval or a time of day).
func describe(stmt *duck.Stmt) (cols []string, text []bool, kinds []sqlgym.Kind, err error) {
	n, err := stmt.ColumnCount()
	if err != nil {
		return nil, nil, nil, err
	}
	cols = make([]string, n)
	text = make([]bool, n)
	kinds = make([]sqlgym.Kind, n)
	for i := range n {
		if cols[i], err = stmt.ColumnName(i); err != nil {
			return nil, nil, nil, err
		}
		info, err := stmt.ColumnTypeInfo(i)
		if err != nil {
			return nil, nil, nil, err
		}
		text[i] = readAsText(info)
		kinds[i] = textKind(info)
	}
	return cols, text, kinds, nil
}

func anyTrue(b []bool) bool {
	for _, x := range b {
		if x {
			return true
		}
	}
	return false
}

// textQuery wraps query so that the marked columns come back as DuckDB's
// VARCHAR rendering. query() re-parses the text itself, so a trailing
// semicolon or comment in it is harmless, and a projection over it keeps
// the inner ORDER BY. Columns are renamed positionally (c0, c1, ...) because
// the original names may repeat; the caller keeps the original names.
func textQuery(query string, text []bool) string {
	var b strings.Builder
	b.WriteString("SELECT ")
	for i, t := range text {
		if i > 0 {
			b.WriteString(", ")
		}
		if t {
			fmt.Fprintf(&b, "CAST(c%d AS VARCHAR)", i)
		} else {
			fmt.Fprintf(&b, "c%d", i)
		}
	}
	b.WriteString(" FROM query('")
	b.WriteString(strings.ReplaceAll(query, "'", "''"))
	b.WriteString("') AS sqlgym_q(")
	for i := range text {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "c%d", i)
	}
	b.WriteString(")")
	return b.String()
}

// readRows converts rows under the caps. ctx is checked every so often
// because a materialised result can hold millions of rows.
func readRows(ctx context.Context, rows driver.Rows, cols []string, textKinds []sqlgym.Kind, lim sqlgym.Limits) (*sqlgym.ResultSet, error) {
	if got := rows.Columns(); len(got) != len(cols) {
		return nil, fmt.Errorf("duckdb: result has %d columns, prepared statement %d", len(got), len(cols))
	}
	typed, _ := rows.(driver.RowsColumnTypeDatabaseTypeName)
	types := make([]string, len(cols))
	for i := range types {
		if typed != nil {
			types[i] = typed.ColumnTypeDatabaseTypeName(i)
		}
	}
	res := &sqlgym.ResultSet{Columns: cols, Rows: [][]sqlgym.Value{}}
	dst := make([]driver.Value, len(cols))
	for n := 0; ; n++ {
		if n&1023 == 1023 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		err := rows.Next(dst)
		if err == io.EOF {
			return res, nil
		}
		if err != nil {
			return nil, classify(err)
		}
		if lim.StopAfter > 0 && len(res.Rows) >= lim.StopAfter && lim.StopAfter <= lim.MaxRows {
			res.Capped = true
			return res, nil
		}
		if len(res.Rows) >= lim.MaxRows {
			return nil, fmt.Errorf("duckdb: %w: more than %d rows", sqlgym.ErrTooLarge, lim.MaxRows)
		}
		row := make([]sqlgym.Value, len(dst))
		for i, v := range dst {
			row[i] = toValue(v, types[i])
			if row[i].Kind == sqlgym.KindText && textKinds[i] != sqlgym.KindText {
				row[i].Kind = textKinds[i]
			}
			res.Bytes += int64(row[i].Size())
		}
		if res.Bytes > lim.MaxBytes {
			return nil, fmt.Errorf("duckdb: %w: more than %d bytes", sqlgym.ErrTooLarge, lim.MaxBytes)
		}
		res.Rows = append(res.Rows, row)
	}
}
