package mysql

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/sqlgym/sqlgym"
)

const (
	// setupTimeout bounds the engine's own round trips (session limit,
	// START TRANSACTION, ROLLBACK, KILL): instant on a healthy server.
	setupTimeout = 10 * time.Second
	// stopGrace is how long a statement may take to stop after KILL QUERY
	// before its connection is killed too.
	stopGrace = 2 * time.Second
)

// stopReason says why the engine stopped a statement from outside.
type stopReason uint8

const (
	stopNone stopReason = iota
	stopCaller
	stopClock
	stopEarly // the engine read all it needed (caps, StopAfter)
)

// Query runs one statement in the sandbox. See sqlgym.Engine.
func (e *Engine) Query(ctx context.Context, sql string, lim sqlgym.Limits) (*sqlgym.ResultSet, error) {
	lim = lim.WithDefaults()
	if strings.IndexByte(sql, 0) >= 0 {
		return nil, &sqlgym.ExecError{Kind: sqlgym.ErrKindSyntax, Msg: "statement contains a NUL byte"}
	}
	v, text, refusal := screen(sql)
	if v == verdictRefuse {
		return nil, refusal
	}
	conn, err := e.db.Conn(ctx)
	if err != nil {
		return nil, infra(ctx, fmt.Errorf("mysql: take a connection: %w", err))
	}
	bg, cancel := context.WithTimeout(context.WithoutCancel(ctx), setupTimeout)
	defer cancel()
	if v == verdictAskOnly {
		defer conn.Close()
		return nil, askOnly(bg, conn, text, lim)
	}
	res, err := e.inTransaction(ctx, conn, text, lim)
	if err != nil && ctx.Err() != nil {
		err = fmt.Errorf("mysql: statement abandoned by the caller: %w", ctx.Err())
	}
	return res, err
}

// askOnly has the server parse a statement the screen does not know
// without running it, so a typo gets the server's own syntax error.
func askOnly(ctx context.Context, conn *sql.Conn, text string, lim sqlgym.Limits) error {
	stmt, err := conn.PrepareContext(ctx, text)
	if err != nil {
		return classify(err, lim)
	}
	stmt.Close()
	return forbid("not a query: the sandbox runs only SELECT statements")
}

// inTransaction runs the statement inside a read-only transaction with
// the server's time limit set, and always rolls back. A connection whose
// rollback fails is thrown away, never returned to the pool.
func (e *Engine) inTransaction(ctx context.Context, conn *sql.Conn, text string, lim sqlgym.Limits) (*sqlgym.ResultSet, error) {
	bg, cancel := context.WithTimeout(context.WithoutCancel(ctx), setupTimeout)
	defer cancel()
	st, err := e.session(bg, conn)
	if err != nil {
		discard(conn)
		return nil, infra(ctx, fmt.Errorf("mysql: connection id: %w", err))
	}
	setup := []string{"START TRANSACTION READ ONLY"}
	if st.timeout != lim.Timeout {
		setup = append([]string{e.limitSQL(lim.Timeout)}, setup...)
	}
	for _, q := range setup {
		if _, err := conn.ExecContext(bg, q); err != nil {
			e.forget(conn)
			discard(conn)
			return nil, infra(ctx, fmt.Errorf("mysql: %s: %w", q, err))
		}
	}
	st.timeout = lim.Timeout
	res, err := e.run(ctx, conn, st.id, text, lim)
	if _, rerr := conn.ExecContext(bg, "ROLLBACK"); rerr != nil {
		e.forget(conn)
		discard(conn)
		return res, err
	}
	conn.Close()
	return res, err
}

// limitSQL sets the server-enforced limit of the next statements.
func (e *Engine) limitSQL(d time.Duration) string {
	if e.mariadb {
		return fmt.Sprintf("SET SESSION max_statement_time = %.3f", d.Seconds())
	}
	return fmt.Sprintf("SET SESSION max_execution_time = %d", max(d.Milliseconds(), 1))
}

// run reads the statement's rows under the caps. A watcher stops it with
// KILL QUERY from another connection when the caller's context ends or
// the server's own limit has not fired a grace period after it was due.
func (e *Engine) run(ctx context.Context, conn *sql.Conn, id int64, text string, lim sqlgym.Limits) (*sqlgym.ResultSet, error) {
	w := e.watch(ctx, id, lim.Timeout+max(lim.Timeout/2, 100*time.Millisecond))
	defer w.finish()
	rows, err := conn.QueryContext(context.WithoutCancel(ctx), text)
	if err != nil {
		return nil, w.blame(err, lim)
	}
	res, rerr := read(rows, lim)
	if rerr != nil || res.Capped {
		// Closing drains the rest of the result: stop the statement first.
		w.stop(stopEarly)
	}
	rows.Close()
	if rerr != nil {
		return nil, rerr
	}
	if res.Capped {
		// The statement was killed after the rows the caller wanted.
		return res, nil
	}
	if err := rows.Err(); err != nil {
		return nil, w.blame(err, lim)
	}
	return res, nil
}

// read collects rows until the result ends or a cap is reached.
func read(rows *sql.Rows, lim sqlgym.Limits) (*sqlgym.ResultSet, error) {
	types, err := rows.ColumnTypes()
	if err != nil {
		return nil, &sqlgym.InfraError{Err: fmt.Errorf("mysql: column types: %w", err)}
	}
	res := &sqlgym.ResultSet{Columns: make([]string, len(types))}
	decs := make([]decoder, len(types))
	for i, ct := range types {
		res.Columns[i], decs[i] = ct.Name(), decoderFor(ct.DatabaseTypeName())
	}
	cells := make([]any, len(types))
	ptrs := make([]any, len(types))
	for i := range cells {
		ptrs[i] = &cells[i]
	}
	for rows.Next() {
		if lim.StopAfter > 0 && len(res.Rows) == lim.StopAfter {
			res.Capped = true
			return res, nil
		}
		if len(res.Rows) == lim.MaxRows {
			return nil, fmt.Errorf("%w: more than %d rows", sqlgym.ErrTooLarge, lim.MaxRows)
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, &sqlgym.InfraError{Err: fmt.Errorf("mysql: scan: %w", err)}
		}
		row := make([]sqlgym.Value, len(cells))
		for i, c := range cells {
			row[i] = cell(c, decs[i])
			res.Bytes += int64(row[i].Size())
		}
		if res.Bytes > lim.MaxBytes {
			return nil, fmt.Errorf("%w: more than %d bytes", sqlgym.ErrTooLarge, lim.MaxBytes)
		}
		res.Rows = append(res.Rows, row)
	}
	return res, nil
}

// watcher stops one running statement from outside its connection.
type watcher struct {
	e      *Engine
	id     int64
	done   chan struct{}
	once   sync.Once
	mu     sync.Mutex
	reason stopReason
	wg     sync.WaitGroup
}

func (e *Engine) watch(ctx context.Context, id int64, clock time.Duration) *watcher {
	w := &watcher{e: e, id: id, done: make(chan struct{})}
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		t := time.NewTimer(clock)
		defer t.Stop()
		select {
		case <-w.done:
		case <-ctx.Done():
			w.stop(stopCaller)
		case <-t.C:
			w.stop(stopClock)
		}
	}()
	return w
}

// stop kills the statement once; if it is still running stopGrace later,
// its connection is killed too, which the statement cannot outlive.
func (w *watcher) stop(r stopReason) {
	w.once.Do(func() {
		w.mu.Lock()
		w.reason = r
		w.mu.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), setupTimeout)
		defer cancel()
		_, _ = w.e.killer.ExecContext(ctx, fmt.Sprintf("KILL QUERY %d", w.id))
		if r == stopEarly {
			return
		}
		w.wg.Add(1)
		go func() {
			defer w.wg.Done()
			select {
			case <-w.done:
			case <-time.After(stopGrace):
				_, _ = w.e.killer.ExecContext(ctx, fmt.Sprintf("KILL CONNECTION %d", w.id))
			}
		}()
	})
}

func (w *watcher) stopped() stopReason {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.reason
}

// finish ends the watch: the statement has returned, so it has stopped.
func (w *watcher) finish() {
	close(w.done)
	w.wg.Wait()
}

// blame classifies a statement's error, knowing who stopped it.
func (w *watcher) blame(err error, lim sqlgym.Limits) error {
	switch w.stopped() {
	case stopClock:
		return fmt.Errorf("%w (%v): stopped by the engine after the server's limit did not fire", sqlgym.ErrTimeout, lim.Timeout)
	case stopCaller:
		return fmt.Errorf("mysql: statement stopped for the caller: %w", err)
	}
	return classify(err, lim)
}

// discard closes conn and keeps it out of the pool.
func discard(conn *sql.Conn) {
	_ = conn.Raw(func(any) error { return driver.ErrBadConn })
	conn.Close()
}

// infra is a failure of the engine's own round trips: the caller's
// context when it ended, otherwise the server's or the network's fault.
func infra(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("%w: %w", ctx.Err(), err)
	}
	return &sqlgym.InfraError{Err: err}
}

// connState is what the engine knows of one server session: its id for
// KILL QUERY and the time limit last set on it, so a statement costs
// two round trips of setup only on a fresh connection or a new limit.
type connState struct {
	id      int64
	timeout time.Duration
}

// session returns the state of conn's session, reading its id once.
// Connections are used by one statement at a time, so the state needs no
// lock of its own.
func (e *Engine) session(ctx context.Context, conn *sql.Conn) (*connState, error) {
	key := driverConn(conn)
	if st, ok := e.sessions.Load(key); ok && key != nil {
		return st.(*connState), nil
	}
	st := &connState{}
	if err := conn.QueryRowContext(ctx, "SELECT CONNECTION_ID()").Scan(&st.id); err != nil {
		return nil, err
	}
	if key != nil {
		e.sessions.Store(key, st)
	}
	return st, nil
}

// forget drops the state of a connection about to be thrown away.
func (e *Engine) forget(conn *sql.Conn) {
	if key := driverConn(conn); key != nil {
		e.sessions.Delete(key)
	}
}

// driverConn is the driver's connection under conn: the identity of the
// server session.
func driverConn(conn *sql.Conn) any {
	var dc any
	_ = conn.Raw(func(c any) error { dc = c; return nil })
	return dc
}
