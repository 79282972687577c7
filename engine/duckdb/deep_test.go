package duckdb

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/engine/enginetest"
)

// deepStatements are generated statements of every deep shape (issue
// 18.1): long set-operation chains, long operator chains, many window
// functions, many CTEs, deeply nested JSON, patterns full of wildcards.
func deepStatements() map[string]string {
	chain := func(n int, term, sep string) string {
		parts := make([]string, n)
		for i := range parts {
			parts[i] = term
		}
		return strings.Join(parts, sep)
	}
	out := map[string]string{}
	for _, n := range []int{250, 600, 1200} {
		out[fmt.Sprintf("union_all_%d", n)] = chain(n, "SELECT 1", " UNION ALL ")
	}
	out["intersect_600"] = chain(600, "SELECT 1", " INTERSECT ")
	out["except_600"] = chain(600, "SELECT 1", " EXCEPT ")
	for _, n := range []int{340, 1000} {
		out[fmt.Sprintf("plus_%d", n)] = "SELECT " + chain(n, "1", "+")
		out[fmt.Sprintf("concat_%d", n)] = "SELECT " + chain(n, "'a'", "||")
	}
	w := make([]string, 250)
	for i := range w {
		w[i] = fmt.Sprintf("sum(id) OVER (ORDER BY id ROWS %d PRECEDING) AS w%d", i, i)
	}
	out["window_250"] = "SELECT " + strings.Join(w, ", ") + " FROM people"
	ctes := make([]string, 300)
	ctes[0] = "c0 AS (SELECT 1 AS x)"
	for i := 1; i < len(ctes); i++ {
		ctes[i] = fmt.Sprintf("c%d AS (SELECT x + 1 AS x FROM c%d)", i, i-1)
	}
	out["cte_300"] = "WITH " + strings.Join(ctes, ", ") + " SELECT x FROM c299"
	out["json_600"] = "SELECT json_extract('" + strings.Repeat("[", 600) + "1" + strings.Repeat("]", 600) + "', '$" + strings.Repeat("[0]", 600) + "')"
	out["like_5000"] = "SELECT 'abc' LIKE '" + strings.Repeat("%_", 2500) + "'"
	out["glob_5000"] = "SELECT 'abc' GLOB '" + strings.Repeat("*?", 2500) + "'"
	out["like_5000_rows"] = "SELECT count(*) FROM range(20000) t(x) WHERE repeat('a', 200) LIKE '" + strings.Repeat("%a", 2500) + "b'"
	out["nested_parens_600"] = "SELECT " + strings.Repeat("(", 600) + "1" + strings.Repeat(")", 600)
	out["nested_subqueries_300"] = strings.Repeat("SELECT * FROM (", 300) + "SELECT 1" + strings.Repeat(")", 300)
	return out
}

// Each deep statement returns rows or a clean error, never crashes this
// process nor leaks a worker, and afterwards the engine still answers,
// more times than it has workers.
func TestDeepStatements(t *testing.T) {
	for _, mode := range []struct {
		name string
		opts Options
	}{{"worker", Options{PoolSize: 2}}, {"in-process", Options{PoolSize: 2, InProcess: true}}} {
		t.Run(mode.name, func(t *testing.T) {
			eng, _ := openDB(t, enginetest.Fixture(), mode.opts)
			for name, sql := range deepStatements() {
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
			}
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
