package duckdb

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/engine/enginetest"
)

func query(t *testing.T, eng *Engine, sql string) *sqlgym.ResultSet {
	t.Helper()
	res, err := eng.Query(context.Background(), sql, sqlgym.Limits{})
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return res
}

func TestOpenMissingFileNeverCreates(t *testing.T) {
	path := filepath.Join(t.TempDir(), "missing.duckdb")
	_, err := Open(path, Options{})
	var ue *sqlgym.UserError
	if !errors.As(err, &ue) {
		t.Fatalf("Open of a missing file: want *sqlgym.UserError, got %v", err)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("Open created %s", path)
	}
}

func TestOpenRefusesNonDuckDBFiles(t *testing.T) {
	dir := t.TempDir()
	notDuck := filepath.Join(dir, "x.duckdb")
	if err := os.WriteFile(notDuck, []byte("SQLite format 3\x00 and more bytes"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{notDuck, dir} {
		if _, err := Open(p, Options{}); err == nil {
			t.Errorf("Open(%s) succeeded", p)
		}
	}
	// A path that would smuggle settings into the driver's DSN.
	odd := filepath.Join(dir, "a?access_mode=READ_WRITE")
	if err := Create(context.Background(), filepath.Join(dir, "ok.duckdb"), []string{"CREATE TABLE t (a INTEGER)"}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "ok.duckdb"))
	if err := os.WriteFile(odd, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(odd, Options{}); err == nil {
		t.Errorf("Open accepted a path with '?'")
	}
}

func TestOpenIsLazyAndFileRemovalIsInfra(t *testing.T) {
	path := newDB(t, []string{"CREATE TABLE t (a INTEGER)"})
	eng, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	if eng.pool != nil || eng.procs != nil {
		t.Fatalf("Open opened DuckDB before the first query")
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	_, err = eng.Query(context.Background(), "SELECT 1", sqlgym.Limits{})
	if !sqlgym.IsInfra(err) {
		t.Fatalf("query on a removed file: want InfraError, got %v", err)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the engine recreated the removed database")
	}
}

func TestClosedEngineIsInfra(t *testing.T) {
	eng, _ := openDB(t, []string{"CREATE TABLE t (a INTEGER)"}, Options{})
	query(t, eng, "SELECT 1")
	if err := eng.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := eng.Query(context.Background(), "SELECT 1", sqlgym.Limits{}); !sqlgym.IsInfra(err) {
		t.Fatalf("query after Close: want InfraError, got %v", err)
	}
}

func TestSandboxSettingsInEffect(t *testing.T) {
	eng, _ := openDB(t, []string{"CREATE TABLE t (a INTEGER)"}, Options{MemoryLimit: "256MB", Threads: 2})
	res := query(t, eng, `SELECT current_setting('access_mode'), current_setting('enable_external_access'),
		current_setting('lock_configuration'), current_setting('threads'), current_setting('memory_limit'),
		current_setting('autoload_known_extensions'), current_setting('TimeZone'), current_setting('max_temp_directory_size')`)
	want := []string{"read_only", "false", "true", "2", "244.1 MiB", "false", "UTC", "0 bytes"}
	for i, w := range want {
		if got := res.Rows[0][i].String(); got != w {
			t.Errorf("setting %d = %q, want %q", i, got, w)
		}
	}
}

func TestValueKinds(t *testing.T) {
	eng, _ := openDB(t, []string{"CREATE TABLE t (a INTEGER)"}, Options{})
	cases := []struct {
		expr string
		want sqlgym.Value
	}{
		{`CAST(-5 AS TINYINT)`, sqlgym.Int(-5)},
		{`CAST(300 AS USMALLINT)`, sqlgym.Int(300)},
		{`CAST(9223372036854775807 AS BIGINT)`, sqlgym.Int(9223372036854775807)},
		{`CAST(18446744073709551615 AS UBIGINT)`, sqlgym.Decimal("18446744073709551615")},
		{`CAST(12 AS HUGEINT)`, sqlgym.Int(12)},
		{`CAST(170141183460469231731687303715884105727 AS HUGEINT)`, sqlgym.Decimal("170141183460469231731687303715884105727")},
		{`CAST(-9223372036854775809 AS HUGEINT)`, sqlgym.Decimal("-9223372036854775809")},
		{`CAST(7 AS UHUGEINT)`, sqlgym.Int(7)},
		{`CAST(0.1 AS FLOAT)`, sqlgym.Float(0.1)},
		{`CAST(0.1 AS DOUBLE)`, sqlgym.Float(0.1)},
		{`CAST('inf' AS DOUBLE)`, sqlgym.Float(posInf)},
		{`CAST(12.5 AS DECIMAL(10,2))`, sqlgym.Decimal("12.50")},
		{`CAST(-0.05 AS DECIMAL(4,2))`, sqlgym.Decimal("-0.05")},
		{`CAST(7 AS DECIMAL(5,0))`, sqlgym.Decimal("7")},
		{`CAST('-12345678901234567890123456.123456789012' AS DECIMAL(38,12))`, sqlgym.Decimal("-12345678901234567890123456.123456789012")},
		{`1.50`, sqlgym.Decimal("1.50")},
		{`'héllo'`, sqlgym.Text("héllo")},
		{`CAST('a' AS ENUM('a', 'b'))`, sqlgym.Text("a")},
		{`'\x00\xff'::BLOB`, sqlgym.Bytes([]byte{0, 0xff})},
		{`true`, sqlgym.Bool(true)},
		{`1 > 2`, sqlgym.Bool(false)},
		{`DATE '2024-02-29'`, sqlgym.Date("2024-02-29")},
		{`TIME '01:02:03'`, sqlgym.TimeOfDay("01:02:03")},
		{`TIME '01:02:03.250'`, sqlgym.TimeOfDay("01:02:03.25")},
		{`TIMESTAMP '2021-03-04 05:06:07'`, sqlgym.Timestamp("2021-03-04 05:06:07")},
		{`TIMESTAMP '2021-03-04 05:06:07.123456'`, sqlgym.Timestamp("2021-03-04 05:06:07.123456")},
		{`CAST('2021-03-04 05:06:07' AS TIMESTAMP_S)`, sqlgym.Timestamp("2021-03-04 05:06:07")},
		{`TIMESTAMPTZ '2021-03-04 05:06:07+02'`, sqlgym.Timestamp("2021-03-04 03:06:07")},
		{`INTERVAL '1 year 2 days 3 hours'`, sqlgym.Interval("1 year 2 days 03:00:00")},
		{`TIMESTAMP '2024-03-01' - TIMESTAMP '2024-02-01 12:00:00'`, sqlgym.Interval("28 days 12:00:00")},
		{`CAST('7cf92952-2f71-4406-8d95-584ef92116f1' AS UUID)`, sqlgym.Text("7cf92952-2f71-4406-8d95-584ef92116f1")},
		{`[1, 2, NULL]`, sqlgym.Text("[1, 2, NULL]")},
		{`['a', 'b c', 'it''s']`, sqlgym.Text(`[a, b c, 'it\'s']`)},
		{`{'a': 1, 'b': 'x'}`, sqlgym.Text("{'a': 1, 'b': x}")},
		{`MAP {'k': 1}`, sqlgym.Text("{k=1}")},
		{`CAST('{"b": 1, "a": [2]}' AS JSON)`, sqlgym.Text(`{"b": 1, "a": [2]}`)},
		{`TIMETZ '01:02:03+01'`, sqlgym.Text("01:02:03+01")},
		{`'infinity'::DATE`, sqlgym.Date("infinity")},
		{`'-infinity'::DATE`, sqlgym.Date("-infinity")},
		{`'infinity'::TIMESTAMP`, sqlgym.Timestamp("infinity")},
		{`'-infinity'::TIMESTAMP`, sqlgym.Timestamp("-infinity")},
		{`DATE '0044-03-15 (BC)'`, sqlgym.Date("0044-03-15 (BC)")},
		{`DATE '12345-01-02'`, sqlgym.Date("12345-01-02")},
		{`TIMESTAMP '0001-01-01 00:00:00'`, sqlgym.Timestamp("0001-01-01 00:00:00")},
		{`TIME_NS '01:02:03.123456789'`, sqlgym.TimeOfDay("01:02:03.123456789")},
		{`union_value(k := 1)`, sqlgym.Text("1")},
		{`'101'::BIT`, sqlgym.Text("101")},
		{`NULL`, sqlgym.Null()},
		{`CAST(NULL AS INTEGER[])`, sqlgym.Null()},
	}
	for _, c := range cases {
		res, err := eng.Query(context.Background(), "SELECT "+c.expr+" AS v", sqlgym.Limits{})
		if err != nil {
			t.Errorf("%s: %v", c.expr, err)
			continue
		}
		got := res.Rows[0][0]
		if !enginetest.SameValue(got, c.want) {
			t.Errorf("%s: got %s, want %s", c.expr, enginetest.FormatValue(got), enginetest.FormatValue(c.want))
		}
	}
}

// Columns read as DuckDB's text keep the statement's names (even repeated
// ones), its row order, and survive quotes, a trailing semicolon and a
// trailing comment in the SQL.
func TestTextColumnsKeepNamesAndOrder(t *testing.T) {
	eng, _ := openDB(t, enginetest.Fixture(), Options{})
	res := query(t, eng, "SELECT [n] AS a, n AS a, 'it''s' AS q FROM nums WHERE n <= 5 ORDER BY n DESC; -- done")
	enginetest.ExpectRows(t, res, []string{"a", "a", "q"}, [][]sqlgym.Value{
		{sqlgym.Text("[5]"), sqlgym.Int(5), sqlgym.Text("it's")},
		{sqlgym.Text("[4]"), sqlgym.Int(4), sqlgym.Text("it's")},
		{sqlgym.Text("[3]"), sqlgym.Int(3), sqlgym.Text("it's")},
		{sqlgym.Text("[2]"), sqlgym.Int(2), sqlgym.Text("it's")},
		{sqlgym.Text("[1]"), sqlgym.Int(1), sqlgym.Text("it's")},
	})
	// The text is DuckDB's own cast.
	res = query(t, eng, "SELECT list(n ORDER BY n) AS l, CAST(list(n ORDER BY n) AS VARCHAR) AS s FROM nums WHERE n < 4")
	if res.Rows[0][0].Str != res.Rows[0][1].Str || res.Rows[0][0].Str != "[1, 2, 3]" {
		t.Errorf("list text %q, DuckDB's cast %q", res.Rows[0][0].Str, res.Rows[0][1].Str)
	}
}

func TestDecimalText(t *testing.T) {
	eng, _ := openDB(t, []string{"CREATE TABLE d (x DECIMAL(18,3))", "INSERT INTO d VALUES (0), (-0.001), (123456789012345.678), (-1)"}, Options{})
	res := query(t, eng, "SELECT x, CAST(x AS VARCHAR) FROM d")
	for _, row := range res.Rows {
		if row[0].Kind != sqlgym.KindDecimal || row[0].Str != row[1].Str {
			t.Errorf("decimal %s, DuckDB prints %q", enginetest.FormatValue(row[0]), row[1].Str)
		}
	}
}

func TestMultiStatementRunsNothing(t *testing.T) {
	// One connection, so a variable set by a smuggled first statement
	// would be visible to the next query.
	eng, _ := openDB(t, []string{"CREATE TABLE t (a INTEGER)"}, Options{PoolSize: 1})
	_, err := eng.Query(context.Background(), "SET VARIABLE smuggled = 42; SELECT 1", sqlgym.Limits{})
	enginetest.ExpectExecError(t, err, sqlgym.ErrKindMulti)
	res := query(t, eng, "SELECT getvariable('smuggled') IS NULL AS unset")
	if !enginetest.SameValue(res.Rows[0][0], sqlgym.Bool(true)) {
		t.Fatalf("the first of two statements ran")
	}
}

func TestStatementTypeGate(t *testing.T) {
	eng, _ := openDB(t, enginetest.Fixture(), Options{PoolSize: 1})
	// DuckDB itself would allow these on a read-only database; they would
	// shadow tables or print profiles for the connection's later
	// statements, so the engine refuses every statement but SELECT and
	// EXPLAIN.
	for _, sql := range []string{
		"CREATE TEMP TABLE people AS SELECT 1 AS id",
		"CREATE TEMP MACRO m(a) AS a",
		"PRAGMA enable_profiling",
		"CHECKPOINT",
		"SET VARIABLE v = 1",
		"USE memory",
	} {
		_, err := eng.Query(context.Background(), sql, sqlgym.Limits{})
		enginetest.ExpectExecError(t, err, sqlgym.ErrKindForbidden)
	}
	res := query(t, eng, "SELECT count(*) FROM people")
	if !enginetest.SameValue(res.Rows[0][0], sqlgym.Int(enginetest.PeopleRows)) {
		t.Errorf("people was shadowed: %v", res.Rows)
	}
	for _, sql := range []string{"EXPLAIN SELECT * FROM people", "FROM people", "DESCRIBE people", "SUMMARIZE nums",
		"VALUES (1)", "WITH x AS (SELECT 1 AS a) SELECT a FROM x", "PRAGMA table_info('people')"} {
		if _, err := eng.Query(context.Background(), sql, sqlgym.Limits{}); err != nil {
			t.Errorf("%s: %v", sql, err)
		}
	}
}

func TestErrorKindsDuckDB(t *testing.T) {
	eng, _ := openDB(t, enginetest.Fixture(), Options{})
	cases := []struct {
		sql  string
		kind sqlgym.ErrorKind
	}{
		{"SELECT x.id FROM people", sqlgym.ErrKindNoColumn},
		{"SELECT people.nope FROM people", sqlgym.ErrKindNoColumn},
		{"SELECT * FROM nope.people", sqlgym.ErrKindNoTable},
		{"SELECT 'a'::INTEGER", sqlgym.ErrKindType},
		{"SELECT name + 1 FROM people", sqlgym.ErrKindType},
		{"SELECT abs('x')", sqlgym.ErrKindType},
		{"SELECT no_such_function(1)", sqlgym.ErrKindOther},
		{"SELECT 1 / 0 = 1 OR error('boom')", sqlgym.ErrKindOther},
		{"SELECT * FROM read_csv('/etc/passwd')", sqlgym.ErrKindForbidden},
		{"SELECT * FROM 'https://127.0.0.1:9/x.parquet'", sqlgym.ErrKindForbidden},
		{"", sqlgym.ErrKindSyntax},
	}
	for _, c := range cases {
		_, err := eng.Query(context.Background(), c.sql, sqlgym.Limits{})
		t.Run(c.sql, func(t *testing.T) { enginetest.ExpectExecError(t, err, c.kind) })
	}
}

func TestCallerCancellationIsNotTimeout(t *testing.T) {
	eng, _ := openDB(t, []string{"CREATE TABLE t (a INTEGER)"}, Options{})
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	_, err := eng.Query(ctx, "SELECT count(*) FROM range(1000000000000)", sqlgym.Limits{Timeout: time.Minute})
	if !errors.Is(err, context.Canceled) || errors.Is(err, sqlgym.ErrTimeout) {
		t.Fatalf("cancelled by the caller: want context.Canceled, got %v", err)
	}
}

// A statement stuck where DuckDB does not check for interrupts (planning
// folds this constant for seconds) must not hold up the caller nor, while
// it finishes on the side, the next statements. Abandoning it is an event,
// not a speed: in a worker, the worker that holds it is killed rather than
// waited for (waited for, it would answer and go back to the pool). How
// soon the call returns is BenchmarkUninterruptibleStatement's to measure.
func TestUninterruptibleStatementIsAbandoned(t *testing.T) {
	eng, _ := openDB(t, []string{"CREATE TABLE t (a INTEGER)"}, Options{PoolSize: 1, WallClockTimeout: true})
	const budget = 200 * time.Millisecond
	// Opening (starting a worker) is not the statement's time.
	query(t, eng, "SELECT 1")
	var pid int
	if eng.useWorkers() {
		pid = onlyWorker(t, eng)
	}
	_, err := eng.Query(context.Background(), "SELECT len(range(10000000))", sqlgym.Limits{Timeout: budget})
	if !errors.Is(err, sqlgym.ErrTimeout) {
		t.Fatalf("want ErrTimeout, got %v", err)
	}
	if pid != 0 && !gone(pid) {
		t.Fatalf("worker %d still runs the abandoned statement: the call waited for it instead of killing it", pid)
	}
	res := query(t, eng, "SELECT 1")
	if len(res.Rows) != 1 {
		t.Fatalf("next statement: %v", res.Rows)
	}
	if pid != 0 {
		if now := onlyWorker(t, eng); now == pid {
			t.Errorf("the next statement ran on the abandoned worker %d", pid)
		}
	}
}

// How long a caller waits for a statement DuckDB cannot interrupt, against
// its 200 ms wall-clock budget (the bound TestUninterruptibleStatementIsAbandoned
// no longer times): ms/op is the wait, next-ms the next statement's.
func BenchmarkUninterruptibleStatement(b *testing.B) {
	eng, _ := openDB(b, []string{"CREATE TABLE t (a INTEGER)"}, Options{PoolSize: 1, WallClockTimeout: true})
	ctx := context.Background()
	var next time.Duration
	b.StopTimer()
	for range b.N {
		if _, err := eng.Query(ctx, "SELECT 1", sqlgym.Limits{}); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		_, err := eng.Query(ctx, "SELECT len(range(10000000))", sqlgym.Limits{Timeout: 200 * time.Millisecond})
		b.StopTimer()
		if !errors.Is(err, sqlgym.ErrTimeout) {
			b.Fatalf("want ErrTimeout, got %v", err)
		}
		start := time.Now()
		if _, err := eng.Query(ctx, "SELECT 1", sqlgym.Limits{}); err != nil {
			b.Fatal(err)
		}
		next += time.Since(start)
	}
	b.ReportMetric(float64(next.Milliseconds())/float64(b.N), "next-ms")
}

func TestConcurrentMixedLoad(t *testing.T) {
	eng, _ := openDB(t, enginetest.Fixture(), Options{PoolSize: 3})
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 10 {
				if (w+i)%5 == 0 {
					_, err := eng.Query(context.Background(), enginetest.RunawaySQL, sqlgym.Limits{Timeout: 50 * time.Millisecond})
					// Stopped by its CPU budget, or, when the machine
					// starves the worker past twenty times the budget
					// (load 35 on 2 cores), by the wall-clock stop as
					// an InfraError (never scored): both are the
					// engine stopping it, neither a wrong verdict.
					if !errors.Is(err, sqlgym.ErrTimeout) && !starved(err) {
						errs <- fmt.Errorf("runaway: want ErrTimeout or a starved InfraError, got %w", err)
					}
					continue
				}
				res, err := eng.Query(context.Background(), "SELECT sum(n) AS s FROM nums WHERE grp = 3", sqlgym.Limits{})
				if err != nil {
					errs <- err
				} else if !enginetest.SameValue(res.Rows[0][0], sqlgym.Int(1249000)) {
					errs <- errors.New("wrong sum " + enginetest.FormatValue(res.Rows[0][0]))
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// Dates and timestamps print as DuckDB prints them, BC and infinite ones
// included.
func TestDateTimeTextMatchesDuckDB(t *testing.T) {
	eng, _ := openDB(t, []string{"CREATE TABLE t (a INTEGER)"}, Options{})
	for _, lit := range []string{
		"DATE '2024-02-29'", "DATE '0044-03-15 (BC)'", "DATE '0001-01-01'", "DATE '12345-06-07'", "'infinity'::DATE",
		"TIMESTAMP '2021-03-04 05:06:07.5'", "CAST(DATE '0010-01-01 (BC)' AS TIMESTAMP)", "'-infinity'::TIMESTAMP",
		"TIME '23:59:59.999999'", "TIMESTAMP_MS '2021-03-04 05:06:07.123'",
	} {
		res := query(t, eng, "SELECT "+lit+", CAST("+lit+" AS VARCHAR)")
		if got, want := res.Rows[0][0].Str, res.Rows[0][1].Str; got != want {
			t.Errorf("%s: got %q, DuckDB prints %q", lit, got, want)
		}
	}
}

// The driver shares one DuckDB instance among engines on the same file;
// the second finds the configuration locked already and must still work,
// also after the first closed.
func TestTwoEnginesOnOneFile(t *testing.T) {
	path := newDB(t, enginetest.Fixture())
	a, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	query(t, a, "SELECT count(*) FROM people")
	query(t, b, "SELECT count(*) FROM people")
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	res := query(t, b, "SELECT count(*) FROM nums")
	if !enginetest.SameValue(res.Rows[0][0], sqlgym.Int(enginetest.NumsRows)) {
		t.Fatalf("got %v", res.Rows)
	}
	_, err = b.Query(context.Background(), "SET lock_configuration = false", sqlgym.Limits{})
	enginetest.ExpectExecError(t, err, sqlgym.ErrKindForbidden)
}
