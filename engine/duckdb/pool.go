package duckdb

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"sync"

	duck "github.com/duckdb/duckdb-go/v2"
)

// pool hands out driver connections, at most size running statements at a
// time. It is not database/sql's pool because a statement that overran its
// time limit in a part of DuckDB that never checks for interrupts keeps its
// connection busy for seconds after Query has returned: such a statement
// is abandoned, gives its slot back at once, and finishes on the side. At
// most size statements may be abandoned at once; past that, the slot is
// only freed when the statement really ends, so runaway work cannot pile
// up without bound.
type pool struct {
	connector *duck.Connector
	slots     chan struct{}
	// funcs is the instance's function catalog, read before any model SQL.
	funcs *funcCatalog

	mu        sync.Mutex
	idle      []*duck.Conn
	abandoned int
	closed    bool
	// stmts holds each connection's prepared fixed statements (the gate's
	// and the state check's): preparing costs more than running them.
	stmts map[*duck.Conn]map[string]*duck.Stmt
}

func newPool(c *duck.Connector, size int) *pool {
	return &pool{connector: c, slots: make(chan struct{}, size)}
}

// lease is one statement's hold on a connection and a slot.
type lease struct {
	p    *pool
	conn *duck.Conn
	mu   sync.Mutex
	// slotFreed is set once the slot went back, early (abandon) or not.
	slotFreed bool
	abandoned bool
}

func (p *pool) acquire(ctx context.Context) (*lease, error) {
	select {
	case p.slots <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		<-p.slots
		return nil, errors.New("duckdb engine is closed")
	}
	var c *duck.Conn
	if n := len(p.idle); n > 0 {
		c, p.idle = p.idle[n-1], p.idle[:n-1]
	}
	p.mu.Unlock()
	if c == nil {
		dc, err := p.connector.Connect(ctx)
		if err != nil {
			<-p.slots
			return nil, fmt.Errorf("duckdb connection: %w", err)
		}
		var ok bool
		if c, ok = dc.(*duck.Conn); !ok {
			dc.Close()
			<-p.slots
			return nil, fmt.Errorf("duckdb: unexpected driver connection %T", dc)
		}
	}
	return &lease{p: p, conn: c}, nil
}

// abandon frees the slot before the statement ends, if the cap on
// abandoned statements allows it.
func (l *lease) abandon() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.slotFreed {
		return
	}
	l.p.mu.Lock()
	ok := l.p.abandoned < cap(l.p.slots)
	if ok {
		l.p.abandoned++
	}
	l.p.mu.Unlock()
	if ok {
		l.abandoned, l.slotFreed = true, true
		<-l.p.slots
	}
}

// release ends the lease when the statement has really finished. After an
// interrupt DuckDB clears the flag on the connection's next statement, so
// the connection is reused.
func (l *lease) release() {
	l.mu.Lock()
	defer l.mu.Unlock()
	p := l.p
	p.mu.Lock()
	if l.abandoned {
		p.abandoned--
	}
	if p.closed {
		l.conn.Close()
	} else {
		p.idle = append(p.idle, l.conn)
	}
	p.mu.Unlock()
	if !l.slotFreed {
		l.slotFreed = true
		<-p.slots
	}
}

// close closes idle connections and the database. Callers first wait for
// every lease to be released.
func (p *pool) close() error {
	p.mu.Lock()
	p.closed = true
	idle := p.idle
	p.idle = nil
	p.mu.Unlock()
	stmts := p.stmts
	p.stmts = nil
	for _, c := range idle {
		for _, st := range stmts[c] {
			st.Close()
		}
		c.Close()
	}
	return p.connector.Close()
}

// query runs one of the engine's own fixed statements on c, prepared once
// per connection. The caller holds c's lease.
func (p *pool) query(ctx context.Context, c *duck.Conn, q string, args []driver.NamedValue) (driver.Rows, error) {
	p.mu.Lock()
	st := p.stmts[c][q]
	p.mu.Unlock()
	if st == nil {
		prep, err := c.Prepare(q)
		if err != nil {
			return nil, err
		}
		ds, ok := prep.(*duck.Stmt)
		if !ok {
			prep.Close()
			return c.QueryContext(ctx, q, args)
		}
		st = ds
		p.mu.Lock()
		if p.stmts == nil {
			p.stmts = map[*duck.Conn]map[string]*duck.Stmt{}
		}
		if p.stmts[c] == nil {
			p.stmts[c] = map[string]*duck.Stmt{}
		}
		p.stmts[c][q] = st
		p.mu.Unlock()
	}
	return st.QueryContext(ctx, args)
}
