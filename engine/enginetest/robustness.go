package enginetest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/internal/testenv"
)

// RunRobustness runs the cases every engine must pass however hostile or
// unlucky the statement: no generated deep statement may crash the
// process, return an InfraError or leak a connection slot; the caller's
// cancellation and deadline are reported as the caller's, never as the
// statement's timeout; SQL holding a NUL byte is refused.
func RunRobustness(t *testing.T, h Harness) {
	eng, _ := h.Open(t, Fixture())
	t.Run("DeepStatements", func(t *testing.T) { testDeepStatements(t, h.Dialect, eng) })
	t.Run("CallerDeadline", func(t *testing.T) { testCallerDeadline(t, eng) })
	t.Run("NulByte", func(t *testing.T) { testNulByte(t, eng) })
}

// Deep is one generated statement of a shape that once crashed an engine
// (SQLite compiled to Wasm has a fixed 64 KiB stack: ~226 UNION ALL terms,
// ~340-term expression chains, 225 window functions, 265 chained CTEs,
// JSON nested 506 deep and LIKE with ~4,100 wildcards overflowed it).
type Deep struct {
	Name, SQL string
}

// DeepStatements generates each shape at sizes around and beyond those
// limits. The SQL is portable except the JSON path, which is written in
// the dialect's own syntax.
func DeepStatements(d sqlgym.Dialect) []Deep {
	var out []Deep
	for _, n := range []int{100, 250, 600, 1200} {
		out = append(out,
			Deep{fmt.Sprintf("union_all_%d", n), unionAll(n)},
			Deep{fmt.Sprintf("plus_chain_%d", n), "SELECT 1" + strings.Repeat("+1", n-1) + " AS x"},
			Deep{fmt.Sprintf("concat_chain_%d", n), "SELECT 'a'" + strings.Repeat("||'a'", n-1) + " AS x"},
			Deep{fmt.Sprintf("windows_%d", n), windows(n)},
			Deep{fmt.Sprintf("ctes_%d", n), chainedCTEs(n)},
		)
	}
	for _, n := range []int{300, 600, 1200} {
		out = append(out,
			Deep{fmt.Sprintf("json_nested_%d", n), jsonNested(d, n)},
			Deep{fmt.Sprintf("intersect_%d", n), "SELECT 1 AS x" + strings.Repeat(" INTERSECT SELECT 1", n-1)},
			Deep{fmt.Sprintf("except_%d", n), "SELECT 0 AS x" + strings.Repeat(" EXCEPT SELECT 1", n-1)},
			Deep{fmt.Sprintf("nested_subqueries_%d", n), strings.Repeat("SELECT * FROM (", n) + "SELECT 1 AS x" + strings.Repeat(") AS s", n)},
			Deep{fmt.Sprintf("nested_case_%d", n), "SELECT " + strings.Repeat("CASE WHEN n > 0 THEN ", n) + "1" + strings.Repeat(" END", n) + " AS x FROM nums WHERE n = 1"},
		)
	}
	for _, n := range []int{600, 3000} {
		out = append(out, Deep{fmt.Sprintf("nested_parens_%d", n), "SELECT " + strings.Repeat("(", n) + "1" + strings.Repeat(")", n) + " AS x"})
	}
	out = append(out, Deep{"in_list_20000", "SELECT count(*) AS x FROM nums WHERE n IN (0" + strings.Repeat(",1", 19999) + ")"})
	for _, n := range []int{4100, 5000, 9000} {
		out = append(out,
			Deep{fmt.Sprintf("like_wildcards_%d", n), "SELECT count(*) AS x FROM nums WHERE label LIKE '" + strings.Repeat("%", n) + "9'"},
			Deep{fmt.Sprintf("like_mixed_wildcards_%d", n), "SELECT count(*) AS x FROM nums WHERE label LIKE '" + strings.Repeat("%_", n/2) + "'"},
		)
	}
	return out
}

func unionAll(n int) string {
	var b strings.Builder
	b.WriteString("SELECT 1 AS x")
	for i := 2; i <= n; i++ {
		fmt.Fprintf(&b, " UNION ALL SELECT %d", i)
	}
	return b.String()
}

func windows(n int) string {
	var b strings.Builder
	b.WriteString("SELECT n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, ", sum(n) OVER (ORDER BY n ROWS BETWEEN %d PRECEDING AND CURRENT ROW) AS w%d", i, i)
	}
	b.WriteString(" FROM nums WHERE n <= 5")
	return b.String()
}

func chainedCTEs(n int) string {
	var b strings.Builder
	b.WriteString("WITH c1 AS (SELECT 1 AS x)")
	for i := 2; i <= n; i++ {
		fmt.Fprintf(&b, ", c%d AS (SELECT x + 1 AS x FROM c%d)", i, i-1)
	}
	fmt.Fprintf(&b, " SELECT x FROM c%d", n)
	return b.String()
}

func jsonNested(d sqlgym.Dialect, n int) string {
	doc := strings.Repeat("[", n) + "1" + strings.Repeat("]", n)
	switch d {
	case sqlgym.DialectPostgres:
		return fmt.Sprintf("SELECT '%s'::jsonb #>> '{%s}' AS x", doc, strings.TrimSuffix(strings.Repeat("0,", n), ","))
	default: // SQLite and DuckDB take a JSONPath
		return fmt.Sprintf("SELECT json_extract('%s', '$%s') AS x", doc, strings.Repeat("[0]", n))
	}
}

// slowDeep says what the deep statements too slow for a plain `go test`
// cost on an engine; they run with SQLGYM_SLOW_TESTS=1. SQLite used to
// parse 1200 windows for 20 to 40 s of a busy core; it now refuses more
// than 100 before preparing, as PostgreSQL's screen refuses more than 500,
// and DuckDB plans them in under a second. MariaDB plans 1200 in 4-5 s
// (load ~30 on 2 cores).
func slowDeep(d sqlgym.Dialect, name string) (string, bool) {
	if d == sqlgym.DialectMySQL && name == "windows_1200" {
		return "MariaDB plans it for 4 s or more", true
	}
	return "", false
}

func testDeepStatements(t *testing.T, d sqlgym.Dialect, eng sqlgym.Engine) {
	for _, s := range DeepStatements(d) {
		t.Run(s.Name, func(t *testing.T) {
			if why, ok := slowDeep(d, s.Name); ok {
				testenv.Slow(t, why)
			}
			// A hang is a failure too, reported rather than waited for.
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			res, err := eng.Query(ctx, s.SQL, sqlgym.Limits{})
			var ee *sqlgym.ExecError
			switch {
			case err == nil:
				if res == nil || len(res.Columns) == 0 {
					t.Errorf("no error and no result")
				}
				t.Logf("ran: %d rows", len(res.Rows))
			case sqlgym.IsInfra(err):
				t.Errorf("InfraError: %v", err)
			case errors.Is(err, sqlgym.ErrTimeout), errors.Is(err, sqlgym.ErrTooLarge):
				t.Logf("stopped: %v", shorten(err.Error()))
			case errors.As(err, &ee):
				if ee.Msg == "" {
					t.Errorf("ExecError kind %s has an empty Msg", ee.Kind)
				}
				t.Logf("refused: %v", shorten(err.Error()))
			default:
				t.Errorf("want rows, *sqlgym.ExecError, ErrTimeout or ErrTooLarge, got %T: %v", err, err)
			}
		})
	}
	// Every slot came back: more queries than any pool holds, serial and
	// concurrent, each with a deadline so that a leak fails instead of
	// hanging.
	const serial, workers, each = 200, 16, 10
	for i := 0; i < serial; i++ {
		if err := cheapQuery(eng); err != nil {
			t.Fatalf("after the deep statements, query %d: %v", i, err)
		}
	}
	var wg sync.WaitGroup
	errs := make(chan error, workers*each)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				if err := cheapQuery(eng); err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("after the deep statements, concurrent query: %v", err)
	}
}

func cheapQuery(eng sqlgym.Engine) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := eng.Query(ctx, `SELECT count(*) AS n FROM people`, sqlgym.Limits{})
	if err != nil {
		return err
	}
	if len(res.Rows) != 1 || res.Rows[0][0].Int != PeopleRows {
		return fmt.Errorf("count(*) FROM people: got %v", res.Rows)
	}
	return nil
}

// expectCallerError checks the contract for a statement the caller gave up
// on: errors.Is(err, want), and nothing that would be scored.
func expectCallerError(t *testing.T, what string, err, want error) {
	t.Helper()
	var ee *sqlgym.ExecError
	switch {
	case err == nil:
		t.Errorf("%s: the statement succeeded", what)
	case !errors.Is(err, want):
		t.Errorf("%s: want an error wrapping %v, got %v", what, want, err)
	case errors.Is(err, sqlgym.ErrTimeout):
		t.Errorf("%s: reported as the statement's timeout: %v", what, err)
	case errors.Is(err, sqlgym.ErrTooLarge):
		t.Errorf("%s: reported as too large: %v", what, err)
	case errors.As(err, &ee):
		t.Errorf("%s: reported as the statement's own error: %v", what, err)
	}
}

func testCallerDeadline(t *testing.T, eng sqlgym.Engine) {
	// The caller's deadline passes while the statement runs. The default
	// limits are far longer: only the caller can have stopped it.
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	_, err := eng.Query(ctx, RunawaySQL, sqlgym.Limits{})
	cancel()
	expectCallerError(t, "caller deadline", err, context.DeadlineExceeded)

	// The caller cancels while the statement runs.
	ctx, cancel = context.WithCancel(context.Background())
	timer := time.AfterFunc(200*time.Millisecond, cancel)
	_, err = eng.Query(ctx, RunawaySQL, sqlgym.Limits{})
	timer.Stop()
	cancel()
	expectCallerError(t, "caller cancel", err, context.Canceled)

	// Already cancelled or past its deadline before the call.
	ctx, cancel = context.WithCancel(context.Background())
	cancel()
	_, err = eng.Query(ctx, `SELECT 1 AS x`, sqlgym.Limits{})
	expectCallerError(t, "cancelled before the call", err, context.Canceled)
	ctx, cancel = context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	_, err = eng.Query(ctx, `SELECT 1 AS x`, sqlgym.Limits{})
	cancel()
	expectCallerError(t, "deadline passed before the call", err, context.DeadlineExceeded)

	// A cancellation that arrives after a statement ended must not stop
	// the next statement on the same connection.
	for i := 0; i < 200; i++ {
		ctx, cancel := context.WithCancel(context.Background())
		_, err := eng.Query(ctx, `SELECT count(*) AS n FROM nums`, sqlgym.Limits{})
		cancel()
		if err != nil {
			t.Fatalf("round %d: %v", i, err)
		}
		if err := cheapQuery(eng); err != nil {
			t.Fatalf("round %d: the query after a late cancellation failed: %v", i, err)
		}
	}
	// A far deadline changes nothing.
	ctx, cancel = context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	res, err := eng.Query(ctx, `SELECT count(*) AS n FROM nums`, sqlgym.Limits{})
	if err != nil {
		t.Fatalf("query under a far deadline: %v", err)
	}
	ExpectRows(t, res, []string{"n"}, [][]sqlgym.Value{{sqlgym.Int(NumsRows)}})
}

func testNulByte(t *testing.T, eng sqlgym.Engine) {
	for _, sql := range []string{
		"SELECT 1 AS x\x00; DELETE FROM people",
		"SELECT 1 AS x\x00",
		"SELECT 'a\x00b' AS x",
		"\x00SELECT 1 AS x",
	} {
		_, err := eng.Query(context.Background(), sql, sqlgym.Limits{})
		ExpectExecError(t, err, sqlgym.ErrKindSyntax)
		var ee *sqlgym.ExecError
		if errors.As(err, &ee) && !strings.Contains(strings.ToLower(ee.Msg), "nul") {
			t.Errorf("%q: the message does not say the SQL holds a NUL byte: %q", sql, ee.Msg)
		}
	}
	if err := cheapQuery(eng); err != nil {
		t.Errorf("after the NUL-byte statements: %v", err)
	}
}
