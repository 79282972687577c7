package duckdb

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/engine/enginetest"
	"github.com/sqlgym/sqlgym/internal/testenv"
)

// deepStatements are DuckDB's own deep shapes: wildcard patterns in GLOB
// and over many rows of a table function. The shared ones
// (enginetest.DeepStatements) run in a worker in TestRobustness and, being
// slow, in process here only with SQLGYM_SLOW_TESTS=1.
func deepStatements() map[string]string {
	return map[string]string{
		"glob_5000":      "SELECT 'abc' GLOB '" + strings.Repeat("*?", 2500) + "'",
		"like_5000_rows": "SELECT count(*) FROM range(20000) t(x) WHERE repeat('a', 200) LIKE '" + strings.Repeat("%a", 2500) + "b'",
	}
}

// Each deep statement returns rows or a clean error, never crashes this
// process nor leaks a worker, and afterwards the engine still answers,
// more times than it has workers.
func TestDeepStatements(t *testing.T) {
	checkDeepStatements(t, deepStatements(), deepModes)
}

// The same for the shared shapes in process. In a worker TestRobustness
// runs them already (enginetest.RunRobustness); running them here too
// cost 44 s of a CI run (load 30) and checked nothing more.
func TestSharedDeepStatementsInProcess(t *testing.T) {
	testenv.Slow(t, "the shared deep shapes in process, about a minute")
	out := map[string]string{}
	for _, d := range enginetest.DeepStatements(sqlgym.DialectDuckDB) {
		out[d.Name] = d.SQL
	}
	checkDeepStatements(t, out, deepModes[1:])
}

type deepMode struct {
	name string
	opts Options
}

var deepModes = []deepMode{{"worker", Options{PoolSize: 2}}, {"in-process", Options{PoolSize: 2, InProcess: true}}}

// checkDeepStatements runs the statements two at a time, the pool's size:
// many of them run out their 2 s limit, and the verdicts accepted (rows,
// a clean error, a timeout) do not depend on what runs beside them, while
// a crash or a leaked worker still shows.
func checkDeepStatements(t *testing.T, stmts map[string]string, modes []deepMode) {
	for _, mode := range modes {
		t.Run(mode.name, func(t *testing.T) {
			eng, _ := openDB(t, enginetest.Fixture(), mode.opts)
			var wg sync.WaitGroup
			slots := make(chan struct{}, mode.opts.PoolSize)
			for name, sql := range stmts {
				slots <- struct{}{}
				wg.Add(1)
				go func() {
					defer func() { <-slots; wg.Done() }()
					start := time.Now()
					res, err := eng.Query(context.Background(), sql, sqlgym.Limits{Timeout: 2 * time.Second})
					var ee *sqlgym.ExecError
					switch {
					case err == nil:
						if len(res.Rows) == 0 {
							t.Errorf("%s: no rows", name)
						}
					case errors.As(err, &ee), errors.Is(err, sqlgym.ErrTooLarge), errors.Is(err, sqlgym.ErrTimeout):
					default:
						t.Errorf("%s: want rows, an ExecError, ErrTooLarge or ErrTimeout, got %T %v", name, err, err)
					}
					t.Logf("%s: %d bytes, %v: %v", name, len(sql), time.Since(start).Round(time.Millisecond), shortErr(err))
				}()
			}
			wg.Wait()
			for i := range 3 * 2 {
				res := query(t, eng, fmt.Sprintf("SELECT %d AS i, count(*) AS n FROM people", i))
				if res.Rows[0][0].Int != int64(i) {
					t.Fatalf("round %d: %v", i, res.Rows)
				}
			}
			if mode.opts.InProcess {
				return
			}
			if n := len(eng.procs.pids()); n > 2 {
				t.Errorf("%d workers live, pool size 2", n)
			}
		})
	}
}

func shortErr(err error) string {
	if err == nil {
		return "ok"
	}
	s := err.Error()
	if len(s) > 120 {
		s = s[:120] + "..."
	}
	return s
}

// The caller's deadline, shorter than Limits.Timeout, stops a runaway
// statement with the caller's error: never ErrTimeout, never an
// ExecError, on either clock.
func TestCallerDeadlineIsNotTimeout(t *testing.T) {
	for _, mode := range []struct {
		name string
		opts Options
	}{{"cpu-clock", Options{PoolSize: 1}}, {"wall-clock", Options{PoolSize: 1, WallClockTimeout: true}},
		{"in-process", Options{PoolSize: 1, InProcess: true}}} {
		t.Run(mode.name, func(t *testing.T) {
			eng, _ := openDB(t, []string{"CREATE TABLE t (a INTEGER)"}, mode.opts)
			query(t, eng, "SELECT 1")
			for _, sql := range []string{
				`SELECT count(*) FROM range(1000000000000)`,
				`WITH RECURSIVE r(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM r) SELECT max(i) FROM r`,
			} {
				ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
				_, err := eng.Query(ctx, sql, sqlgym.Limits{Timeout: 20 * time.Second})
				cancel()
				var ee *sqlgym.ExecError
				if !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, sqlgym.ErrTimeout) || errors.As(err, &ee) || sqlgym.IsInfra(err) {
					t.Errorf("%s: want context.DeadlineExceeded only, got %T %v", sql, err, err)
				}
			}
			query(t, eng, "SELECT 1")
		})
	}
}
