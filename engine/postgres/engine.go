package postgres

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/sqlgym/sqlgym"
)

// Options configure Open.
type Options struct {
	// Schema, when set, is the search_path of every statement: the schema
	// holding the task's tables.
	Schema string
	// MaxConns bounds the pool; zero means 2*GOMAXPROCS.
	MaxConns int32
	// WorkMem is the work_mem of every statement (memory per sort or hash
	// node before it spills to disk); empty means DefaultWorkMem. It is
	// pinned so a server or role setting cannot raise it for model SQL.
	WorkMem string
	// NoLoadRetry turns off the second run of a statement that hit its
	// time limit while the server was slower than when the engine opened
	// (see Query). Measurements only.
	NoLoadRetry bool
	// AllowPrivileged skips the refusal of superusers and of roles that can
	// read or write server files. Tests only: model-written SQL must never
	// run as such a role.
	AllowPrivileged bool
}

// DefaultWorkMem is PostgreSQL's own default work_mem.
const DefaultWorkMem = "4MB"

// Engine is the PostgreSQL sandbox. It is safe for concurrent use.
type Engine struct {
	pool     *pgxpool.Pool
	maxConns int32
	schema   string
	workMem  string
	// canSignal is true when the reader role may still execute
	// pg_cancel_backend/pg_terminate_backend: then a cancel or
	// termination may have come from a statement of the same role.
	canSignal bool
	// cal is the idle reference of the load calibration; noRetry turns
	// the retry of timed-out statements on a loaded server off.
	cal     calibration
	noRetry bool
	// slots bound statements in flight plus abandoned backends.
	slots *slots
	close context.CancelFunc
	// unscreened turns the screen off so tests can prove the server-side
	// layers hold on their own.
	unscreened bool
}

var _ sqlgym.Engine = (*Engine)(nil)

// Open connects to dsn and checks that the role it logs in as cannot read
// or write server files; such a role is refused with an *sqlgym.UserError
// whose hint is the SQL that creates a reader role. A server that cannot
// be reached is an *sqlgym.InfraError.
func Open(ctx context.Context, dsn string, opts Options) (*Engine, error) {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, sqlgym.Userf("write postgres://USER@HOST:PORT/DATABASE (see the pgx/libpq connection string formats)",
			"postgres DSN: %w", err)
	}
	cfg.MaxConns = opts.MaxConns
	if cfg.MaxConns <= 0 {
		cfg.MaxConns = int32(2 * runtime.GOMAXPROCS(0))
	}
	cfg.MinConns = 0
	cc := cfg.ConnConfig
	if cc.ConnectTimeout == 0 {
		cc.ConnectTimeout = 10 * time.Second
	}
	// Belt and braces: a transaction the engine did not open explicitly is
	// read-only too.
	cc.RuntimeParams["default_transaction_read_only"] = "on"
	if cc.RuntimeParams["application_name"] == "" {
		cc.RuntimeParams["application_name"] = "sqlgym"
	}
	cc.BuildContextWatcherHandler = func(pc *pgconn.PgConn) ctxwatch.Handler {
		return &abandonHandler{conn: pc}
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, &sqlgym.InfraError{Err: fmt.Errorf("postgres pool: %w", err)}
	}
	e := &Engine{pool: pool, maxConns: cfg.MaxConns, schema: opts.Schema, workMem: opts.WorkMem}
	if e.workMem == "" {
		e.workMem = DefaultWorkMem
	}
	ri, err := e.checkRole(ctx, opts)
	if err != nil {
		pool.Close()
		return nil, err
	}
	e.canSignal = ri.canSignal
	if n := poolSize(cfg.MaxConns, ri.connLimit); n < cfg.MaxConns {
		// pgxpool's size is fixed at creation: build it again, smaller.
		pool.Close()
		cfg.MaxConns = n
		if e.pool, err = pgxpool.NewWithConfig(ctx, cfg); err != nil {
			return nil, &sqlgym.InfraError{Err: fmt.Errorf("postgres pool: %w", err)}
		}
		e.maxConns = n
	}
	closing, closeFn := context.WithCancel(context.Background())
	e.close = closeFn
	e.slots = newSlots(e.maxConns, func() *pgxpool.Pool { return e.pool }, closing)
	e.noRetry = opts.NoLoadRetry
	if !e.noRetry {
		e.calibrate(ctx)
	}
	return e, nil
}

// poolSize is the pool's size under the role's connection limit: one
// connection below it, kept for the engine's own probe of the server
// after a session died, so a full pool never makes the server look down.
// Without that, a pool larger than the limit would fail its last
// connections with "too many connections" (53300) and every statement
// that drew one would go unscored.
func poolSize(want, limit int32) int32 {
	if limit < 0 {
		return want
	}
	n := limit - 1
	if n < 1 {
		n = 1
	}
	return min(want, n)
}

// Dialect is sqlgym.DialectPostgres.
func (e *Engine) Dialect() sqlgym.Dialect { return sqlgym.DialectPostgres }

// Close closes every connection of the pool.
func (e *Engine) Close() error {
	e.close()
	e.pool.Close()
	return nil
}

// abandonHandler is what a connection does when the context of the
// round trip in progress ends (the client-side deadline, or the caller
// giving up): it stops waiting at once, by putting the socket's deadline
// in the past, and sends the server a cancel request on the side so the
// statement stops there too. pgx's default only sets the deadline, which
// leaves the server running the statement; its cancel-request handler
// waits for the server's answer, which on a loaded server comes late.
// The connection is broken either way, and the engine discards every
// connection whose context ended, so a late cancel request can never hit
// another statement.
type abandonHandler struct {
	conn *pgconn.PgConn
}

func (h *abandonHandler) HandleCancel(context.Context) {
	_ = h.conn.Conn().SetDeadline(time.Now())
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = h.conn.CancelRequest(ctx)
	}()
}

func (h *abandonHandler) HandleUnwatchAfterCancel() {
	_ = h.conn.Conn().SetDeadline(time.Time{})
}

// infra wraps err as an *sqlgym.InfraError unless it is the caller's own
// context ending, which is neither the SQL's fault nor the database's.
func infra(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		if errors.Is(err, ctx.Err()) {
			return fmt.Errorf("postgres: %w", err)
		}
		return fmt.Errorf("postgres: %w (%v)", ctx.Err(), err)
	}
	return &sqlgym.InfraError{Err: fmt.Errorf("postgres: %w", err)}
}
