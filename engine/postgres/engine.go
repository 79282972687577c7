package postgres

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
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
	// AllowPrivileged skips the refusal of superusers and of roles that can
	// read or write server files. Tests only: model-written SQL must never
	// run as such a role.
	AllowPrivileged bool
}

// Engine is the PostgreSQL sandbox. It is safe for concurrent use.
type Engine struct {
	pool     *pgxpool.Pool
	maxConns int32
	schema   string
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
			"postgres DSN: %v", err)
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
	e := &Engine{pool: pool, maxConns: cfg.MaxConns, schema: opts.Schema}
	if err := e.checkRole(ctx, opts); err != nil {
		pool.Close()
		return nil, err
	}
	return e, nil
}

// roleInfo is what Open learns about the role it logged in as.
type roleInfo struct {
	user, database              string
	superuser, createRole       bool
	readFiles, writeFiles, exec bool
	fileFuncs                   bool
	schemaExists, schemaUsable  bool
}

const roleQuery = `SELECT current_user::text, current_database()::text,
  r.rolsuper, r.rolcreaterole,
  pg_has_role(current_user, 'pg_read_server_files', 'MEMBER'),
  pg_has_role(current_user, 'pg_write_server_files', 'MEMBER'),
  pg_has_role(current_user, 'pg_execute_server_program', 'MEMBER'),
  has_function_privilege('pg_catalog.pg_read_file(text)', 'EXECUTE')
    OR has_function_privilege('pg_catalog.pg_read_binary_file(text)', 'EXECUTE')
    OR has_function_privilege('pg_catalog.pg_ls_dir(text)', 'EXECUTE')
    OR has_function_privilege('pg_catalog.pg_stat_file(text)', 'EXECUTE')
    OR has_function_privilege('pg_catalog.lo_import(text)', 'EXECUTE')
    OR has_function_privilege('pg_catalog.lo_export(oid, text)', 'EXECUTE'),
  n.oid IS NOT NULL,
  n.oid IS NOT NULL AND has_schema_privilege(n.oid, 'USAGE')
FROM pg_catalog.pg_roles r
LEFT JOIN pg_catalog.pg_namespace n ON n.nspname = $1
WHERE r.rolname = current_user`

func (e *Engine) checkRole(ctx context.Context, opts Options) error {
	schema := opts.Schema
	if schema == "" {
		schema = "public"
	}
	var ri roleInfo
	// The simple protocol leaves no prepared statement behind on the pooled
	// connection.
	err := e.pool.QueryRow(ctx, roleQuery, pgx.QueryExecModeSimpleProtocol, schema).Scan(&ri.user, &ri.database, &ri.superuser, &ri.createRole,
		&ri.readFiles, &ri.writeFiles, &ri.exec, &ri.fileFuncs, &ri.schemaExists, &ri.schemaUsable)
	if err != nil {
		if pgErr, ok := asPgError(err); ok && !isInfraCode(pgErr.Code) {
			return fmt.Errorf("postgres: check the role's privileges: %w", err)
		}
		return &sqlgym.InfraError{Err: fmt.Errorf("postgres: %w", err)}
	}
	if !opts.AllowPrivileged {
		var why []string
		if ri.superuser {
			why = append(why, "is a superuser")
		}
		if ri.createRole {
			why = append(why, "has CREATEROLE")
		}
		if ri.readFiles {
			why = append(why, "is a member of pg_read_server_files")
		}
		if ri.writeFiles {
			why = append(why, "is a member of pg_write_server_files")
		}
		if ri.exec {
			why = append(why, "is a member of pg_execute_server_program")
		}
		if ri.fileFuncs {
			why = append(why, "may call server-file functions (pg_read_file, pg_ls_dir, lo_import, ...)")
		}
		if len(why) > 0 {
			return &sqlgym.UserError{
				Msg: fmt.Sprintf("postgres role %q %s: a read-only transaction does not stop such a role from "+
					"reading server files or running programs, so sqlgym will not run model-written SQL as it",
					ri.user, strings.Join(why, ", ")),
				Hint: ReaderRoleHint(ri.database, schema),
			}
		}
	}
	if opts.Schema != "" && !ri.schemaExists {
		return sqlgym.Userf("load it first (sqlgym db create ... --engine postgres --schema "+opts.Schema+") or pass the right --schema",
			"postgres schema %q does not exist in database %q", opts.Schema, ri.database)
	}
	if opts.Schema != "" && !ri.schemaUsable {
		return sqlgym.Userf(ReaderRoleHint(ri.database, schema),
			"postgres role %q may not use schema %q", ri.user, opts.Schema)
	}
	return nil
}

// ReaderRoleHint is the SQL, run once as a superuser, that creates the
// role sqlgym should connect as: it can log in and read the tables of one
// schema, nothing more.
func ReaderRoleHint(database, schema string) string {
	db := pgx.Identifier{database}.Sanitize()
	sc := pgx.Identifier{schema}.Sanitize()
	return "connect as a role that can only read, created once by a superuser:\n" +
		"  CREATE ROLE sqlgym_reader LOGIN PASSWORD 'change-me';\n" +
		"  GRANT CONNECT ON DATABASE " + db + " TO sqlgym_reader;\n" +
		"  GRANT USAGE ON SCHEMA " + sc + " TO sqlgym_reader;\n" +
		"  GRANT SELECT ON ALL TABLES IN SCHEMA " + sc + " TO sqlgym_reader;\n" +
		"then use user=sqlgym_reader in the DSN (postgres://sqlgym_reader:change-me@HOST:PORT/" + database + ")"
}

// Dialect is sqlgym.DialectPostgres.
func (e *Engine) Dialect() sqlgym.Dialect { return sqlgym.DialectPostgres }

// Close closes every connection of the pool.
func (e *Engine) Close() error {
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
