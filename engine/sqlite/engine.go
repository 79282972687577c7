package sqlite

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/sqlgym/sqlgym"
)

// Engine is a sandboxed, read-only SQLite database with a pool of
// connections. It is safe for concurrent use.
type Engine struct {
	path string // absolute
	uri  string
	opts Options

	// slots bounds the connections in use; idle holds open ones.
	slots  chan struct{}
	mu     sync.Mutex
	idle   []*conn
	closed bool
}

var _ sqlgym.Engine = (*Engine)(nil)

// Open opens the SQLite file at path read-only. The file must exist and be
// a SQLite database: a missing file is an error, never a new empty
// database. One connection is opened and checked now; the others open on
// demand.
func Open(path string, opts Options) (*Engine, error) {
	if path == "" {
		return nil, errors.New("open sqlite database: empty path")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("open sqlite database %s: %w", path, err)
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return nil, fmt.Errorf("open sqlite database: %w", err)
	}
	if fi.IsDir() {
		return nil, fmt.Errorf("open sqlite database %s: is a directory", path)
	}
	if err := allocInstalled(); err != nil {
		return nil, err
	}
	opts = opts.withDefaults()
	e := &Engine{
		path:  abs,
		uri:   fileURI(abs, opts.Mutable),
		opts:  opts,
		slots: make(chan struct{}, opts.PoolSize),
	}
	raiseHeapLimit(opts.HeapLimit)
	c, err := e.openConn()
	if err != nil {
		return nil, err
	}
	if err := probe(c); err != nil {
		c.close()
		return nil, fmt.Errorf("open sqlite database %s: %w", path, err)
	}
	e.idle = append(e.idle, c)
	return e, nil
}

// probe reads the schema, which fails for a file that is not a database.
func probe(c *conn) error {
	st, _, err := c.prepare(`SELECT count(*) FROM sqlite_schema`)
	if err != nil {
		return err
	}
	defer st.close()
	_, err = st.next()
	return err
}

// Dialect reports sqlgym.DialectSQLite.
func (e *Engine) Dialect() sqlgym.Dialect { return sqlgym.DialectSQLite }

// Path is the absolute path of the database file.
func (e *Engine) Path() string { return e.path }

// Close closes the idle connections; connections still running a statement
// close when it ends. Queries after Close fail with an InfraError.
func (e *Engine) Close() error {
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return nil
	}
	e.closed = true
	idle := e.idle
	e.idle = nil
	e.mu.Unlock()
	var errs []error
	for _, c := range idle {
		errs = append(errs, c.close())
	}
	return errors.Join(errs...)
}

func (e *Engine) isClosed() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.closed
}

// acquire waits for a free slot and returns an open connection.
func (e *Engine) acquire(ctx context.Context) (*conn, error) {
	if e.isClosed() {
		return nil, &sqlgym.InfraError{Err: ErrClosed}
	}
	select {
	case e.slots <- struct{}{}:
	case <-ctx.Done():
		return nil, &sqlgym.InfraError{Err: fmt.Errorf("sqlite: waiting for a free connection: %w", ctx.Err())}
	}
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		<-e.slots
		return nil, &sqlgym.InfraError{Err: ErrClosed}
	}
	var c *conn
	if n := len(e.idle); n > 0 {
		c = e.idle[n-1]
		e.idle = e.idle[:n-1]
	}
	e.mu.Unlock()
	if c == nil {
		var err error
		if c, err = e.openConn(); err != nil {
			<-e.slots
			return nil, &sqlgym.InfraError{Err: err}
		}
	}
	return c, nil
}

// release returns c to the pool, or closes it when the engine is closed or
// the connection may be in a bad state.
func (e *Engine) release(c *conn, discard bool) {
	e.mu.Lock()
	if e.closed || discard {
		e.mu.Unlock()
		c.close()
	} else {
		e.idle = append(e.idle, c)
		e.mu.Unlock()
	}
	<-e.slots
}
