package duckdb

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/internal/testenv"
)

// heavyCalls are statements whose work is inside function calls on large
// values, per row (the argument depends on the row, so DuckDB cannot fold
// it at plan time), or in one quadratic call: the DuckDB side of the
// search that found SQLite's uncharged functions (issue 25). DuckDB checks
// for interrupts between vectors, not inside a call; the worker's CPU
// budget and the parent's kill end them all.
var heavyCalls = []struct{ name, sql string }{
	{"levenshtein_quadratic", `SELECT levenshtein(repeat('a', 200000 + range), repeat('b', 200000)) FROM range(10)`},
	{"damerau_quadratic", `SELECT damerau_levenshtein(repeat('a', 50000 + range), repeat('b', 50000)) FROM range(10)`},
	{"md5_per_row", `SELECT count(md5(repeat('x', 10000000 + range % 2))) FROM range(100000000)`},
	{"repeat_per_row", `SELECT sum(length(repeat('x', 10000000 + range % 2))) FROM range(1000000000)`},
	{"regexp_per_row", `SELECT count(*) FROM range(100000000) WHERE regexp_matches(repeat('a', 1000000 + range % 2), '(a|aa)*b')`},
	{"regexp_replace_per_row", `SELECT sum(length(regexp_replace(repeat('a', 4000000 + range % 2), 'a', 'bb', 'g'))) FROM range(100000000)`},
	{"list_sort_per_row", `SELECT sum(len(list_sort(range(5000000 + r)))) FROM range(100000) t(r)`},
	{"string_split_unnest", `SELECT count(*) FROM (SELECT unnest(string_split(repeat('a,', 5000000 + r), ',')) FROM range(100000) t(r))`},
	{"string_agg_huge", `SELECT length(string_agg(repeat('x', 1000) || range, ',')) FROM range(1000000000)`},
	{"recursive_doubling", `WITH RECURSIVE r(s) AS (SELECT 'xx' UNION ALL SELECT s || s FROM r) SELECT length(s) FROM r`},
	{"cross_product", `SELECT count(*) FROM range(1000000) a, range(1000000) b WHERE a.range + b.range = 7`},
	{"hash_per_row", `SELECT sum(hash(range + 0)) FROM range(1000000000000)`},
}

// TestWorkerEndsHeavyCalls: each heavy shape ends as the model's own
// verdict, timeout or an ExecError (DuckDB's out-of-memory), never an
// infrastructure error of the call's making, and the worker answers the
// next statement. The verdicts come from the worker's CPU clock, so they
// hold on a loaded machine; the time each took is logged, not asserted.
// One that the machine starves past its wall-clock stop (twenty times the
// budget: a load of 30 on 2 cores did it to a 300 ms budget) is the
// documented InfraError wrapping ErrSafetyNet, never scored: accepted and
// logged, as it says nothing about the call.
func TestWorkerEndsHeavyCalls(t *testing.T) {
	needWorkers(t)
	testenv.Slow(t, "12 statements each run to a 1 s CPU budget in a worker")
	runHeavyCalls(t, heavyCalls, time.Second)
}

// TestWorkerEndsQuadraticCall is the fast version: one call that never
// checks for interrupts, under a 300 ms budget.
func TestWorkerEndsQuadraticCall(t *testing.T) {
	needWorkers(t)
	runHeavyCalls(t, heavyCalls[:1], 300*time.Millisecond)
}

func runHeavyCalls(t *testing.T, shapes []struct{ name, sql string }, budget time.Duration) {
	eng, _ := openDB(t, []string{"CREATE TABLE t (a INTEGER)"}, Options{PoolSize: 1})
	for _, s := range shapes {
		t.Run(s.name, func(t *testing.T) {
			start := time.Now()
			_, err := eng.Query(context.Background(), s.sql, sqlgym.Limits{Timeout: budget})
			var ee *sqlgym.ExecError
			switch {
			case errors.Is(err, sqlgym.ErrTimeout), errors.As(err, &ee) && !sqlgym.IsInfra(err):
			case starved(err):
				t.Logf("starved by the machine, not judged: %v", err)
			default:
				t.Errorf("want the model's timeout or ExecError, got %T %v", err, err)
			}
			t.Logf("%v after %v", err, time.Since(start).Round(time.Millisecond))
			query(t, eng, "SELECT 1")
		})
	}
}
