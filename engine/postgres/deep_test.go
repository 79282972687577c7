package postgres

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/engine/enginetest"
)

// deepStatements are PostgreSQL's own deep shapes; the shared ones
// (enginetest.DeepStatements) run once each in TestRobustness. The
// planner ignores cancels on the largest of those (1,200 chained CTEs or
// window functions) for many seconds, so running them again here, several
// times each, would only measure that known limit (docs/sandbox-postgres.md).
func deepStatements() map[string]string {
	return map[string]string{
		"jsonb_5000":       "SELECT '" + strings.Repeat("[", 5000) + strings.Repeat("]", 5000) + "'::jsonb",
		"like_5000_mixed":  "SELECT name FROM people WHERE name LIKE '" + strings.Repeat("%a", 5000) + "'",
		"ctes_250":         enginetestDeep("ctes_250"),
		"union_all_1200":   enginetestDeep("union_all_1200"),
		"nested_case_600":  enginetestDeep("nested_case_600"),
		"nested_parens_3k": enginetestDeep("nested_parens_3000"),
	}
}

// enginetestDeep is one of the shared deep statements, by name.
func enginetestDeep(name string) string {
	for _, d := range enginetest.DeepStatements(sqlgym.DialectPostgres) {
		if d.Name == name {
			return d.SQL
		}
	}
	panic("no shared deep statement " + name)
}

// TestDeepStatements checks that each deep statement returns rows or the
// statement's own error (an ExecError, such as 54001 stack depth limit
// exceeded, ErrTooLarge or ErrTimeout), never an InfraError, and that the
// pool stays healthy: every statement runs more times than the pool has
// connections.
func TestDeepStatements(t *testing.T) {
	s := newSandbox(t, enginetest.Fixture())
	const poolSize = 2
	eng := s.open(t, Options{MaxConns: poolSize})
	// 300 chained CTEs take the planner longer than this: a timeout is
	// one of the allowed outcomes, and a short limit keeps the test short.
	lim := sqlgym.Limits{Timeout: 2 * time.Second}
	for name, sql := range deepStatements() {
		for i := 0; i < poolSize+1; i++ {
			res, err := eng.Query(context.Background(), sql, lim)
			var ee *sqlgym.ExecError
			switch {
			case err == nil:
				if len(res.Columns) == 0 {
					t.Errorf("%s: no columns", name)
				}
			case sqlgym.IsInfra(err):
				t.Errorf("%s run %d: InfraError %v", name, i, err)
			case errors.As(err, &ee), errors.Is(err, sqlgym.ErrTooLarge), errors.Is(err, sqlgym.ErrTimeout):
				if i == 0 {
					t.Logf("%s: %v", name, shortErr(err))
				}
			default:
				t.Errorf("%s run %d: unexpected error %T %v", name, i, err, err)
			}
		}
	}
	res, err := eng.Query(context.Background(), `SELECT count(*) AS n FROM people`, lim)
	if err != nil {
		t.Fatalf("pool unhealthy after the deep statements: %v", err)
	}
	enginetest.ExpectRows(t, res, []string{"n"}, [][]sqlgym.Value{{sqlgym.Int(enginetest.PeopleRows)}})
	assertNoLeftovers(t, s)
}

func shortErr(err error) string {
	s := err.Error()
	if len(s) > 120 {
		s = s[:120] + "..."
	}
	return s
}

// TestCallerDeadline checks the caller's-context contract: a deadline or
// a cancel that ends before the statement does stops it and returns an
// error that is the context's, never ErrTimeout or an ExecError, and the
// server stops the statement too.
func TestCallerDeadline(t *testing.T) {
	s := newSandbox(t, enginetest.Fixture())
	eng := s.open(t, Options{MaxConns: 2})
	lim := sqlgym.Limits{Timeout: 30 * time.Second}

	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	// Not stopped by the deadline, the statement would run into its own
	// 30 s limit: ErrTimeout, which checkCallerErr refuses.
	_, err := eng.Query(ctx, slowSQL, lim)
	checkCallerErr(t, "deadline", err, context.DeadlineExceeded)

	ctx2, cancel2 := context.WithCancel(context.Background())
	go func() { time.Sleep(300 * time.Millisecond); cancel2() }()
	_, err = eng.Query(ctx2, slowSQL, lim)
	checkCallerErr(t, "cancel", err, context.Canceled)

	// A deadline already passed before the call.
	ctx3, cancel3 := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel3()
	_, err = eng.Query(ctx3, `SELECT 1`, lim)
	checkCallerErr(t, "passed deadline", err, context.DeadlineExceeded)

	// The server stopped the abandoned statements (the engine sent cancel
	// requests), and the engine still works.
	assertNoLeftovers(t, s)
	if _, err := eng.Query(context.Background(), `SELECT 1`, sqlgym.Limits{}); err != nil {
		t.Errorf("after the caller's deadlines: %v", err)
	}
}

func checkCallerErr(t *testing.T, what string, err, want error) {
	t.Helper()
	var ee *sqlgym.ExecError
	if !errors.Is(err, want) || errors.Is(err, sqlgym.ErrTimeout) || errors.As(err, &ee) || errors.Is(err, sqlgym.ErrTooLarge) {
		t.Errorf("%s: want an error wrapping %v and nothing else, got %T %v", what, want, err, err)
	}
}
