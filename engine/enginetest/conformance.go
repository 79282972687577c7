package enginetest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym"
)

// RunawaySQL is a query that never finishes on its own: a recursive CTE
// counting forever. Every engine must stop it at the time limit.
const RunawaySQL = `WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c) SELECT count(*) AS n FROM c`

// Run runs the conformance suite against a fresh fixture database: value
// kinds per engine (the table in values.go), column names, empty results,
// exactly one statement, error kinds, row/byte caps, StopAfter, timeouts,
// concurrent use and refused writes. The database must be unchanged at the
// end.
func Run(t *testing.T, h Harness) {
	eng, digest := h.Open(t, Fixture())
	before := digest()

	t.Run("Dialect", func(t *testing.T) {
		if got := eng.Dialect(); got != h.Dialect {
			t.Errorf("Dialect() = %q, want %q", got, h.Dialect)
		}
	})
	t.Run("Values", func(t *testing.T) { testValues(t, h.Dialect, eng) })
	t.Run("EmptyResults", func(t *testing.T) { testEmpty(t, eng) })
	t.Run("OneStatement", func(t *testing.T) { testOneStatement(t, eng) })
	t.Run("ErrorKinds", func(t *testing.T) { testErrorKinds(t, eng) })
	t.Run("Caps", func(t *testing.T) { testCaps(t, eng) })
	t.Run("StopAfter", func(t *testing.T) { testStopAfter(t, eng) })
	t.Run("Timeout", func(t *testing.T) { testTimeout(t, eng) })
	t.Run("Concurrent", func(t *testing.T) { testConcurrent(t, h.Dialect, eng) })
	t.Run("WritesForbidden", func(t *testing.T) { testWrites(t, eng) })
	t.Run("Unchanged", func(t *testing.T) {
		if after := digest(); after != before {
			t.Errorf("database digest changed: %s -> %s", before, after)
		}
		res := mustQuery(t, eng, `SELECT count(*) AS n FROM people`, sqlgym.Limits{})
		ExpectRows(t, res, []string{"n"}, [][]sqlgym.Value{{sqlgym.Int(PeopleRows)}})
	})
}

func mustQuery(t testing.TB, eng sqlgym.Engine, sql string, lim sqlgym.Limits) *sqlgym.ResultSet {
	t.Helper()
	res, err := eng.Query(context.Background(), sql, lim)
	if err != nil {
		t.Fatalf("query %q: %v", sql, err)
	}
	return res
}

func testValues(t *testing.T, d sqlgym.Dialect, eng sqlgym.Engine) {
	for _, c := range valueCases {
		t.Run(c.name, func(t *testing.T) {
			res := mustQuery(t, eng, c.sqlFor(d), sqlgym.Limits{})
			rows := make([][]sqlgym.Value, len(c.rows))
			for i, r := range c.rows {
				rows[i] = pick(t, d, r)
			}
			ExpectRows(t, res, c.cols, rows)
			if res.Capped {
				t.Errorf("Capped set without StopAfter")
			}
			if len(rows) > 0 && res.Bytes <= 0 {
				t.Errorf("Bytes = %d for a non-empty result", res.Bytes)
			}
		})
	}
}

func testEmpty(t *testing.T, eng sqlgym.Engine) {
	cases := []struct {
		sql  string
		cols []string
	}{
		{`SELECT id, name FROM people WHERE 1 = 0`, []string{"id", "name"}},
		{`SELECT a, b FROM empty_t`, []string{"a", "b"}},
		{`SELECT p.id, o.item FROM people p JOIN orders o ON o.person_id = p.id WHERE o.qty > 1000`, []string{"id", "item"}},
	}
	for _, c := range cases {
		res := mustQuery(t, eng, c.sql, sqlgym.Limits{})
		ExpectRows(t, res, c.cols, nil)
		if res.NumCols() != len(c.cols) || res.Capped {
			t.Errorf("%q: NumCols %d Capped %v", c.sql, res.NumCols(), res.Capped)
		}
	}
	res := mustQuery(t, eng, `SELECT count(*) AS n FROM empty_t`, sqlgym.Limits{})
	ExpectRows(t, res, []string{"n"}, [][]sqlgym.Value{{sqlgym.Int(0)}})
}

func testOneStatement(t *testing.T, eng sqlgym.Engine) {
	one := [][]sqlgym.Value{{sqlgym.Int(1)}}
	for _, sql := range []string{
		"SELECT 1 AS x;",
		"SELECT 1 AS x;  \n\t",
		"SELECT 1 AS x; -- done",
		"SELECT 1 AS x /* note */;",
		"SELECT 1 AS x;\n/* trailing\n comment */\n",
		"-- leading comment\nSELECT 1 AS x",
		"  \n SELECT 1 AS x -- no semicolon",
	} {
		res, err := eng.Query(context.Background(), sql, sqlgym.Limits{})
		if err != nil {
			t.Errorf("%q: %v", sql, err)
			continue
		}
		ExpectRows(t, res, []string{"x"}, one)
	}
	res := mustQuery(t, eng, `SELECT 'a;b' AS s`, sqlgym.Limits{})
	ExpectRows(t, res, []string{"s"}, [][]sqlgym.Value{{sqlgym.Text("a;b")}})

	for _, sql := range []string{
		"SELECT 1; DROP TABLE people",
		"SELECT 1 AS x; SELECT 2 AS y",
		"SELECT 1 AS x; -- hidden\nDELETE FROM people",
		"SELECT 'a;b' AS s; SELECT 'c' AS t",
		"SELECT 1 AS x /* ; */; UPDATE people SET age = 0",
	} {
		_, err := eng.Query(context.Background(), sql, sqlgym.Limits{})
		t.Run(sql, func(t *testing.T) { ExpectExecError(t, err, sqlgym.ErrKindMulti) })
	}
	for _, sql := range []string{"-- only a comment", "/* nothing */", "   "} {
		_, err := eng.Query(context.Background(), sql, sqlgym.Limits{})
		var ee *sqlgym.ExecError
		if !errors.As(err, &ee) {
			t.Errorf("empty statement %q: want *sqlgym.ExecError, got %v", sql, err)
		}
	}
}

func testErrorKinds(t *testing.T, eng sqlgym.Engine) {
	cases := []struct {
		sql  string
		kind sqlgym.ErrorKind
	}{
		{`SELEC 1`, sqlgym.ErrKindSyntax},
		{`SELECT * FROM`, sqlgym.ErrKindSyntax},
		{`SELECT (1 + 2 AS x`, sqlgym.ErrKindSyntax},
		{`SELECT * FROM no_such_tbl`, sqlgym.ErrKindNoTable},
		{`SELECT p.id FROM people p JOIN no_such_tbl q ON q.id = p.id`, sqlgym.ErrKindNoTable},
		{`SELECT no_such_col FROM people`, sqlgym.ErrKindNoColumn},
		{`SELECT id FROM people WHERE no_such_col = 1`, sqlgym.ErrKindNoColumn},
	}
	for _, c := range cases {
		_, err := eng.Query(context.Background(), c.sql, sqlgym.Limits{})
		t.Run(c.sql, func(t *testing.T) {
			ExpectExecError(t, err, c.kind)
			if sqlgym.IsInfra(err) {
				t.Errorf("statement error reported as infrastructure: %v", err)
			}
		})
	}
}

func testCaps(t *testing.T, eng sqlgym.Engine) {
	ctx := context.Background()
	if _, err := eng.Query(ctx, `SELECT n FROM nums`, sqlgym.Limits{MaxRows: 100}); !errors.Is(err, sqlgym.ErrTooLarge) {
		t.Errorf("MaxRows 100 over %d rows: want ErrTooLarge, got %v", NumsRows, err)
	}
	if _, err := eng.Query(ctx, `SELECT label FROM nums`, sqlgym.Limits{MaxBytes: 1000}); !errors.Is(err, sqlgym.ErrTooLarge) {
		t.Errorf("MaxBytes 1000: want ErrTooLarge, got %v", err)
	}
	// A result exactly at the cap is not past it.
	res, err := eng.Query(ctx, `SELECT n FROM nums ORDER BY n`, sqlgym.Limits{MaxRows: NumsRows})
	if err != nil {
		t.Fatalf("MaxRows equal to the row count: %v", err)
	}
	if len(res.Rows) != NumsRows || res.Capped {
		t.Errorf("got %d rows capped=%v, want %d uncapped", len(res.Rows), res.Capped, NumsRows)
	}
	if res.Bytes <= 0 {
		t.Errorf("Bytes = %d", res.Bytes)
	}
	if res, err = eng.Query(ctx, `SELECT label FROM nums`, sqlgym.Limits{MaxBytes: 10 << 20}); err != nil || res.Bytes > 10<<20 {
		t.Errorf("MaxBytes 10MiB: err %v", err)
	}
}

func testStopAfter(t *testing.T, eng sqlgym.Engine) {
	ctx := context.Background()
	res, err := eng.Query(ctx, `SELECT n FROM nums ORDER BY n`, sqlgym.Limits{StopAfter: 10})
	if err != nil {
		t.Fatalf("StopAfter 10: %v", err)
	}
	if !res.Capped || len(res.Rows) != 10 {
		t.Fatalf("StopAfter 10: capped=%v rows=%d, want capped with 10", res.Capped, len(res.Rows))
	}
	for i, row := range res.Rows {
		if !SameValue(row[0], sqlgym.Int(int64(i+1))) {
			t.Fatalf("row %d = %s, want int %d", i, FormatValue(row[0]), i+1)
		}
	}
	// StopAfter below MaxRows wins: a long result is capped, not too large.
	res, err = eng.Query(ctx, `SELECT a.n FROM nums a, nums b WHERE b.n <= 100`, sqlgym.Limits{StopAfter: 50, MaxRows: 1000})
	if err != nil || !res.Capped || len(res.Rows) != 50 {
		t.Errorf("StopAfter 50 on a cross join: err=%v", err)
	}
	// Exactly StopAfter rows: nothing was left unread, so not capped.
	res, err = eng.Query(ctx, `SELECT n FROM nums`, sqlgym.Limits{StopAfter: NumsRows})
	if err != nil || res.Capped || len(res.Rows) != NumsRows {
		t.Errorf("StopAfter = row count: err=%v", err)
	} else if res, err = eng.Query(ctx, `SELECT n FROM nums`, sqlgym.Limits{StopAfter: NumsRows - 1}); err != nil || !res.Capped || len(res.Rows) != NumsRows-1 {
		t.Errorf("StopAfter = row count - 1: err=%v", err)
	}
}

// hangWatchdog bounds a statement the engine should stop long before: it
// catches an engine that never stops one (a hang), not a slow stop. How
// soon statements stop is measured, not asserted: the tests log it.
const hangWatchdog = 2 * time.Minute

// testTimeout checks that the engine's own time limit stops a runaway
// (ErrTimeout, not the test's watchdog) and that a caller's context
// deadline stops one whose own limit is far off. Both are events, so a
// loaded machine cannot fail them; the times are logged.
func testTimeout(t *testing.T, eng sqlgym.Engine) {
	const budget = 500 * time.Millisecond
	for round := 0; round < 2; round++ {
		ctx, cancel := context.WithTimeout(context.Background(), hangWatchdog)
		start := time.Now()
		_, err := eng.Query(ctx, RunawaySQL, WallClock(budget))
		t.Logf("runaway query with a %v budget returned after %v", budget, time.Since(start))
		if ctx.Err() != nil {
			t.Errorf("runaway query: hung, stopped only by the test's %v watchdog: %v", hangWatchdog, err)
		} else if !errors.Is(err, sqlgym.ErrTimeout) {
			t.Errorf("runaway query: want ErrTimeout, got %v", err)
		}
		cancel()
		// The connection that ran it must be usable again.
		res := mustQuery(t, eng, `SELECT 1 AS x`, sqlgym.Limits{})
		ExpectRows(t, res, []string{"x"}, [][]sqlgym.Value{{sqlgym.Int(1)}})
	}
	// A cancelled context stops the statement too (any error will do). Its
	// own limit is far beyond the watchdog, so only the context can have
	// stopped it.
	ctx, cancel := context.WithTimeout(context.Background(), budget)
	defer cancel()
	start := time.Now()
	done := make(chan error, 1)
	go func() {
		_, err := eng.Query(ctx, RunawaySQL, WallClock(10*hangWatchdog))
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil {
			t.Errorf("runaway query under a context deadline succeeded")
		}
		t.Logf("context deadline of %v honoured after %v", budget, time.Since(start))
	case <-time.After(hangWatchdog):
		t.Fatalf("runaway query under a %v context deadline: hung, still running after %v", budget, hangWatchdog)
	}
}

func testConcurrent(t *testing.T, d sqlgym.Dialect, eng sqlgym.Engine) {
	type job struct {
		sql  string
		want *sqlgym.ResultSet
		kind sqlgym.ErrorKind
	}
	var jobs []job
	for _, c := range valueCases {
		res := mustQuery(t, eng, c.sqlFor(d), sqlgym.Limits{})
		jobs = append(jobs, job{sql: c.sqlFor(d), want: res})
	}
	jobs = append(jobs,
		job{sql: `SELECT no_such_col FROM people`, kind: sqlgym.ErrKindNoColumn},
		job{sql: `SELECT 1; SELECT 2`, kind: sqlgym.ErrKindMulti},
		job{sql: `DELETE FROM people`, kind: sqlgym.ErrKindForbidden},
	)
	const workers, rounds = 8, 12
	var wg sync.WaitGroup
	errs := make(chan error, workers*rounds)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for r := 0; r < rounds; r++ {
				j := jobs[(w*rounds+r)%len(jobs)]
				res, err := eng.Query(context.Background(), j.sql, sqlgym.Limits{})
				if j.want == nil {
					var ee *sqlgym.ExecError
					if !errors.As(err, &ee) || ee.Kind != j.kind {
						errs <- fmt.Errorf("%q: want %s, got %v", j.sql, j.kind, err)
					}
					continue
				}
				if err != nil {
					errs <- fmt.Errorf("%q: %w", j.sql, err)
					continue
				}
				if !sameResult(res, j.want) {
					errs <- fmt.Errorf("%q: result differs from the serial run", j.sql)
				}
			}
		}(w)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func sameResult(a, b *sqlgym.ResultSet) bool {
	if !equalStrings(a.Columns, b.Columns) || len(a.Rows) != len(b.Rows) || a.Capped != b.Capped {
		return false
	}
	for i := range a.Rows {
		if len(a.Rows[i]) != len(b.Rows[i]) {
			return false
		}
		for j := range a.Rows[i] {
			if !SameValue(a.Rows[i][j], b.Rows[i][j]) {
				return false
			}
		}
	}
	return true
}

func testWrites(t *testing.T, eng sqlgym.Engine) {
	for _, sql := range []string{
		`INSERT INTO people (id, name) VALUES (99, 'Mallory')`,
		`INSERT INTO empty_t (a, b) SELECT n, label FROM nums`,
		`UPDATE people SET age = 0`,
		`DELETE FROM orders`,
		`DROP TABLE people`,
		`CREATE TABLE z (a INTEGER)`,
		`CREATE VIEW v AS SELECT 1 AS x`,
		`CREATE INDEX people_age ON people (age)`,
		`ALTER TABLE people ADD COLUMN evil INTEGER`,
	} {
		_, err := eng.Query(context.Background(), sql, sqlgym.Limits{})
		t.Run(sql, func(t *testing.T) { ExpectExecError(t, err, sqlgym.ErrKindForbidden) })
	}
}
