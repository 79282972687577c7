package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/engine"
	"github.com/sqlgym/sqlgym/engine/duckdb"
	"github.com/sqlgym/sqlgym/engine/sqlite"
	"github.com/sqlgym/sqlgym/internal/cmd/cmdkit"
	"github.com/sqlgym/sqlgym/internal/proccpu"
	"github.com/sqlgym/sqlgym/shopdb"
)

// boundsTarget is one engine with the shop on it, the per-answer bound
// documented for it and how an answer's CPU time is read there.
type boundsTarget struct {
	url     string
	dialect sqlgym.Dialect
	bound   time.Duration
	measure string
	// cpu is a counter: the difference of two readings is what was spent
	// in between, by whoever the engine makes work.
	cpu   func() (time.Duration, error)
	close func()
	skip  string
}

// The documented per-answer bounds in CPU time (docs/verifier.md,
// "Per-answer bounds, by engine"), with the verifier's default limits.
var (
	// The step budget (the slowest charged shape spends 2e8 steps in
	// 5.5 s) or the CPU cap (9 s of thread CPU after at most 0.5 s
	// uncounted); neither is retried.
	sqliteAnswerBound = 10 * time.Second
	// The worker's CPU-time budget, Timeout, and the kill's slack and a
	// fresh worker's start after it.
	duckdbAnswerBound = sqlgym.DefaultTimeout + time.Second
	// statement_timeout and the client deadline 2 s later, each of at
	// most two runs (a timeout under load runs once more with its limit
	// stretched by the slowdown, which gives it no more CPU); one backend,
	// parallel workers off.
	postgresAnswerBound = 2 * (sqlgym.DefaultTimeout + 2*time.Second)
	// max_statement_time, KILL QUERY half a Timeout later and KILL
	// CONNECTION 2 s after that, each of at most two runs.
	mysqlAnswerBound = 2 * (sqlgym.DefaultTimeout*3/2 + 2*time.Second)
)

func boundsTargetFor(ctx context.Context, name string, opts benchBoundsOptions, dir string) (*boundsTarget, error) {
	self := func() (time.Duration, error) { return proccpu.Self(), nil }
	switch name {
	case "sqlite", "duckdb":
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("bench bounds: %w", err)
		}
		path := filepath.Join(dir, "shop."+name)
		create := sqlite.Create
		if name == "duckdb" {
			create = duckdb.Create
		}
		if err := create(ctx, path, shopdb.Statements()); err != nil {
			return nil, fmt.Errorf("bench bounds: create the shop on %s: %w", name, err)
		}
		if name == "sqlite" {
			return &boundsTarget{url: "sqlite:" + path, dialect: sqlgym.DialectSQLite, bound: sqliteAnswerBound,
				measure: "this process", cpu: self, close: func() {}}, nil
		}
		return &boundsTarget{url: "duckdb:" + path, dialect: sqlgym.DialectDuckDB, bound: duckdbAnswerBound,
			measure: "this process and its workers", cpu: proccpu.Tree, close: func() {}}, nil
	case "postgres":
		if opts.Postgres == "" {
			return &boundsTarget{skip: "no --postgres URL"}, nil
		}
		loc, err := engine.ParseURL(opts.Postgres)
		if err != nil {
			return nil, cmdkit.Usagef("--postgres %s: a postgres:// URL (%w)", opts.Postgres, err)
		}
		if loc.Dialect != sqlgym.DialectPostgres {
			return nil, cmdkit.Usagef("--postgres %s: a postgres:// URL, not %s", opts.Postgres, loc.Dialect)
		}
		conn, err := pgx.Connect(ctx, loc.DSN)
		if err != nil {
			return nil, sqlgym.Userf("give the URL of a reader of a PostgreSQL server on this machine", "bench bounds: connect to PostgreSQL: %w", err)
		}
		// The reader's other backends: the verifier's connections.
		backends := proccpu.NewCounter(func() ([]int, error) {
			rows, err := conn.Query(ctx, `SELECT pid FROM pg_stat_activity WHERE usename = current_user AND pid <> pg_backend_pid()`)
			if err != nil {
				return nil, err
			}
			pids, err := pgx.CollectRows(rows, pgx.RowTo[int32])
			out := make([]int, len(pids))
			for i, p := range pids {
				out[i] = int(p)
			}
			return out, err
		})
		return &boundsTarget{url: opts.Postgres, dialect: sqlgym.DialectPostgres, bound: postgresAnswerBound,
			measure: "this process and the reader's backends",
			cpu: func() (time.Duration, error) {
				b, err := backends.Read()
				return proccpu.Self() + b, err
			},
			close: func() { conn.Close(context.Background()) }}, nil
	case "mysql":
		if opts.MySQL == "" {
			return &boundsTarget{skip: "no --mysql URL"}, nil
		}
		server := proccpu.NewCounter(func() ([]int, error) { return proccpu.ByName("mariadbd", "mysqld") })
		if _, err := server.Read(); err != nil {
			return nil, fmt.Errorf("bench bounds: the MariaDB/MySQL server's CPU time (is it on this machine?): %w", err)
		}
		return &boundsTarget{url: opts.MySQL, dialect: sqlgym.DialectMySQL, bound: mysqlAnswerBound,
			measure: "this process and the whole server process (other clients too)",
			cpu: func() (time.Duration, error) {
				s, err := server.Read()
				return proccpu.Self() + s, err
			},
			close: func() {}}, nil
	}
	return nil, cmdkit.Usagef("--engines: %q is not sqlite, duckdb, postgres or mysql", name)
}
