package sqlite

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/engine/enginetest"
)

// newDB creates a database from stmts in a fresh directory and opens it.
func newDB(t *testing.T, opts Options, stmts ...string) (*Engine, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "t.sqlite")
	if err := Create(context.Background(), path, stmts); err != nil {
		t.Fatalf("create: %v", err)
	}
	eng, err := Open(path, opts)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	t.Cleanup(func() { eng.Close() })
	return eng, path
}

func query(t *testing.T, eng *Engine, sql string) *sqlgym.ResultSet {
	t.Helper()
	res, err := eng.Query(context.Background(), sql, sqlgym.Limits{})
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return res
}

func TestOpenRefusesWhatIsNotADatabase(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.sqlite")
	if _, err := Open(missing, Options{}); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: want an os.ErrNotExist error, got %v", err)
	}
	if _, err := os.Stat(missing); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Open of a missing file created it (stat err %v)", err)
	}
	if _, err := Open(dir, Options{}); err == nil {
		t.Errorf("a directory opened as a database")
	}
	junk := filepath.Join(dir, "junk.sqlite")
	if err := os.WriteFile(junk, []byte(strings.Repeat("not a database ", 100)), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(junk, Options{}); err == nil || !strings.Contains(err.Error(), "not a database") {
		t.Errorf("junk file: want a 'not a database' error, got %v", err)
	}
	if _, err := Open("", Options{}); err == nil {
		t.Errorf("empty path opened")
	}
}

func TestPathsWithURICharacters(t *testing.T) {
	// A '?' or '#' in a file name must stay part of the name, not start
	// URI parameters that could, say, turn off read-only mode.
	dir := filepath.Join(t.TempDir(), "odd ?mode=rwc#dir%20")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "a?mode=rw&_pragma=query_only(0).db")
	if err := Create(context.Background(), path, []string{`CREATE TABLE t (a INTEGER)`, `INSERT INTO t VALUES (42)`}); err != nil {
		t.Fatalf("create: %v", err)
	}
	eng, err := Open(path, Options{})
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	defer eng.Close()
	enginetest.ExpectRows(t, query(t, eng, `SELECT a FROM t`), []string{"a"}, [][]sqlgym.Value{{sqlgym.Int(42)}})
	_, err = eng.Query(context.Background(), `DELETE FROM t`, sqlgym.Limits{})
	enginetest.ExpectExecError(t, err, sqlgym.ErrKindForbidden)

	// A relative path works too.
	wd, _ := os.Getwd()
	rel, err := filepath.Rel(wd, path)
	if err != nil {
		t.Skip("no relative path to the temp dir")
	}
	eng2, err := Open(rel, Options{})
	if err != nil {
		t.Fatalf("open relative %s: %v", rel, err)
	}
	defer eng2.Close()
	enginetest.ExpectRows(t, query(t, eng2, `SELECT a FROM t`), []string{"a"}, [][]sqlgym.Value{{sqlgym.Int(42)}})
}

func TestClosedEngineIsInfra(t *testing.T) {
	eng, _ := newDB(t, Options{}, `CREATE TABLE t (a INTEGER)`)
	if err := eng.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	_, err := eng.Query(context.Background(), `SELECT 1`, sqlgym.Limits{})
	if !sqlgym.IsInfra(err) || !errors.Is(err, ErrClosed) {
		t.Errorf("query after Close: want InfraError wrapping ErrClosed, got %v", err)
	}
	if err := eng.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

func TestFileRemovedUnderMutableEngineIsInfra(t *testing.T) {
	// When a query needs a new connection and the file is gone, that is
	// the infrastructure's fault, not the statement's.
	eng, path := newDB(t, Options{PoolSize: 2, Mutable: true}, `CREATE TABLE t (a INTEGER)`)
	enginetest.ExpectRows(t, query(t, eng, `SELECT count(*) AS n FROM t`), []string{"n"}, [][]sqlgym.Value{{sqlgym.Int(0)}})
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	// Hold the one open connection so the next query must open another.
	held, err := eng.acquire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	_, err = eng.Query(context.Background(), `SELECT a FROM t`, sqlgym.Limits{})
	eng.release(held, false)
	if !sqlgym.IsInfra(err) {
		t.Errorf("query on a removed file needing a new connection: want InfraError, got %v", err)
	}
}

func TestRawValues(t *testing.T) {
	eng, _ := newDB(t, Options{},
		`CREATE TABLE v (d DATE, ts TIMESTAMP, b BOOLEAN, n NUMERIC, r REAL, i INTEGER, bl BLOB, t TEXT)`,
		`INSERT INTO v VALUES ('2024-13-45', 'yesterday', 1, '12.50', 3, 9223372036854775807, x'00ff10', 'T')`,
		`INSERT INTO v VALUES ('2024-02-29', '2024-02-29 10:00:00', 0, 'abc', 0.1, -1, '', '')`,
	)
	res := query(t, eng, `SELECT d, ts, b, n, r, i, bl, t FROM v ORDER BY rowid`)
	enginetest.ExpectRows(t, res, []string{"d", "ts", "b", "n", "r", "i", "bl", "t"}, [][]sqlgym.Value{
		{sqlgym.Text("2024-13-45"), sqlgym.Text("yesterday"), sqlgym.Int(1), sqlgym.Float(12.5), sqlgym.Float(3),
			sqlgym.Int(9223372036854775807), sqlgym.Bytes([]byte{0, 0xff, 0x10}), sqlgym.Text("T")},
		{sqlgym.Text("2024-02-29"), sqlgym.Text("2024-02-29 10:00:00"), sqlgym.Int(0), sqlgym.Text("abc"), sqlgym.Float(0.1),
			sqlgym.Int(-1), sqlgym.Text(""), sqlgym.Text("")},
	})
	// typeof agrees with the kinds: nothing is parsed on the way out.
	res = query(t, eng, `SELECT typeof(d), typeof(b), typeof(n), typeof(bl) FROM v ORDER BY rowid LIMIT 1`)
	enginetest.ExpectRows(t, res, []string{"typeof(d)", "typeof(b)", "typeof(n)", "typeof(bl)"}, [][]sqlgym.Value{
		{sqlgym.Text("text"), sqlgym.Text("integer"), sqlgym.Text("real"), sqlgym.Text("blob")},
	})
}

func TestDoubleQuotedStrings(t *testing.T) {
	eng, _ := newDB(t, Options{}, `CREATE TABLE singer (name TEXT, country TEXT)`,
		`INSERT INTO singer VALUES ('Joe', 'France'), ('Ann', 'Peru')`)
	// Spider golds compare columns with double-quoted strings.
	res := query(t, eng, `SELECT name FROM singer WHERE country = "France"`)
	enginetest.ExpectRows(t, res, []string{"name"}, [][]sqlgym.Value{{sqlgym.Text("Joe")}})
	// A double-quoted name that is a column stays the column.
	res = query(t, eng, `SELECT "name" FROM singer WHERE "country" = 'Peru'`)
	enginetest.ExpectRows(t, res, []string{"name"}, [][]sqlgym.Value{{sqlgym.Text("Ann")}})
}

func TestStatementBoundaries(t *testing.T) {
	eng, _ := newDB(t, Options{}, `CREATE TABLE t (a INTEGER)`, `INSERT INTO t VALUES (1)`)
	for _, sql := range []string{
		"SELECT a FROM t;;",
		"SELECT a FROM t; ;\n;",
		"SELECT a FROM t; /* unterminated comment",
		"SELECT a FROM t -- comment without newline",
		"SELECT a FROM t; -- a\n-- b\n/* c */ ;",
	} {
		res, err := eng.Query(context.Background(), sql, sqlgym.Limits{})
		if err != nil {
			t.Errorf("%q: %v", sql, err)
			continue
		}
		enginetest.ExpectRows(t, res, []string{"a"}, [][]sqlgym.Value{{sqlgym.Int(1)}})
	}
	for _, sql := range []string{"SELECT a FROM t; x", "SELECT a FROM t; -- c\n  SELECT 2", "SELECT a FROM t;/**/;VALUES(1)"} {
		_, err := eng.Query(context.Background(), sql, sqlgym.Limits{})
		enginetest.ExpectExecError(t, err, sqlgym.ErrKindMulti)
	}
	for _, sql := range []string{"", ";", " ; ; ", "-- nothing", "/* nothing */"} {
		_, err := eng.Query(context.Background(), sql, sqlgym.Limits{})
		var ee *sqlgym.ExecError
		if !errors.As(err, &ee) {
			t.Errorf("empty statement %q: want ExecError, got %v", sql, err)
		}
	}
}

func TestOnlyTrivia(t *testing.T) {
	cases := map[string]bool{
		"": true, " \t\r\n\f\v": true, ";;": true, "-- x": true, "-- x\n;": true, "/* x */": true,
		"/* x": true, "/* a */ -- b\n ; /* c */": true,
		"x": false, "; x": false, "-- x\nx": false, "/* x */x": false, "- -": false, "/ *": false,
	}
	for in, want := range cases {
		if got := onlyTrivia(in); got != want {
			t.Errorf("onlyTrivia(%q) = %v, want %v", in, got, want)
		}
	}
}

func TestVMStepBudgetIsDeterministic(t *testing.T) {
	eng, _ := newDB(t, Options{PoolSize: 2}, enginetest.Fixture()...)
	lim := sqlgym.Limits{VMSteps: 3_000_000, Timeout: 30 * time.Second}
	var steps [2]int64
	for i := range steps {
		_, st, err := eng.QueryStats(context.Background(), enginetest.RunawaySQL, lim)
		if !errors.Is(err, sqlgym.ErrTimeout) {
			t.Fatalf("runaway under a step budget: want ErrTimeout, got %v", err)
		}
		if st.VMSteps < lim.VMSteps || st.VMSteps > lim.VMSteps+2*checkEvery {
			t.Errorf("stopped after %d VM steps, budget %d", st.VMSteps, lim.VMSteps)
		}
		steps[i] = st.VMSteps
	}
	if steps[0] != steps[1] {
		t.Errorf("the same runaway stopped at %d then %d VM steps", steps[0], steps[1])
	}

	// A query that returns many rows spends no budget on fetching them: the
	// budget counts VM steps only.
	sql := `SELECT n, label FROM nums ORDER BY x DESC`
	_, full, err := eng.QueryStats(context.Background(), sql, sqlgym.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := eng.QueryStats(context.Background(), sql, sqlgym.Limits{VMSteps: full.VMSteps + 2*checkEvery}); err != nil {
		t.Errorf("query needing %d steps under a budget of %d: %v", full.VMSteps, full.VMSteps+2*checkEvery, err)
	}
	if _, _, err := eng.QueryStats(context.Background(), sql, sqlgym.Limits{VMSteps: full.VMSteps / 2}); !errors.Is(err, sqlgym.ErrTimeout) {
		t.Errorf("query needing %d steps under a budget of %d: want ErrTimeout, got %v", full.VMSteps, full.VMSteps/2, err)
	}
	// A cheap query is unaffected by a small budget.
	res, _, err := eng.QueryStats(context.Background(), `SELECT count(*) FROM people`, sqlgym.Limits{VMSteps: 1000})
	if err != nil || len(res.Rows) != 1 {
		t.Errorf("cheap query under a 1000-step budget: %v", err)
	}
}

// inChild re-runs the test named name alone in a child process and
// reports whether the caller is that child. The heap limit is
// process-wide, so tests that set it need a process of their own.
func inChild(t *testing.T, name string) bool {
	t.Helper()
	if os.Getenv("SQLGYM_TEST_CHILD") == name {
		return true
	}
	cmd := exec.Command(os.Args[0], "-test.run=^"+name+"$", "-test.v")
	cmd.Env = append(os.Environ(), "SQLGYM_TEST_CHILD="+name)
	out, err := cmd.CombinedOutput()
	t.Logf("child process:\n%s", out)
	if err != nil {
		t.Fatalf("child process: %v", err)
	}
	return false
}

func TestHeapLimit(t *testing.T) {
	if !inChild(t, "TestHeapLimit") {
		return
	}
	const limit = 32 << 20
	eng, _ := newDB(t, Options{PoolSize: 4, HeapLimit: limit}, enginetest.Fixture()...)
	if got := HeapLimit(); got != limit {
		t.Fatalf("process heap limit %d, want %d", got, limit)
	}
	// DISTINCT over 25M strings needs a temp b-tree far beyond the limit;
	// with temp_store=MEMORY it cannot spill to disk.
	hog := `SELECT count(*) FROM (SELECT DISTINCT a.label || b.label FROM nums a, nums b)`
	// A modest statement that fits the limit alone: it must never fail
	// because the hog took the memory.
	modest := `SELECT count(*) AS n FROM (SELECT DISTINCT a.label || b.n FROM nums a, nums b WHERE b.n <= 20)`
	want := query(t, eng, modest).Rows[0][0].Int
	var wg sync.WaitGroup
	hogErr := make(chan error, 1)
	wg.Add(1)
	go func() {
		defer wg.Done()
		// A budget well past the default: this test is about the heap,
		// which the hog must reach before its steps run out.
		_, err := eng.Query(context.Background(), hog, sqlgym.Limits{VMSteps: 5 * sqlgym.DefaultVMSteps})
		hogErr <- err
	}()
	errs := make(chan error, 3*5)
	for w := 0; w < 3; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 5; i++ {
				res, err := eng.Query(context.Background(), modest, sqlgym.Limits{})
				if err == nil && (len(res.Rows) != 1 || res.Rows[0][0].Int != want) {
					err = fmt.Errorf("modest statement: wrong result %v", res.Rows)
				}
				if err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("a statement that fits the heap alone failed next to a hog: %v", err)
	}
	err := <-hogErr
	var ee *sqlgym.ExecError
	if !errors.As(err, &ee) || !strings.Contains(ee.Msg, "out of memory") {
		t.Fatalf("DISTINCT past the heap limit: want an out-of-memory ExecError, got %v", err)
	}
	t.Logf("hog: %v; statements re-run after the process-wide heap was full: %d", err, reruns.Load())
	// The engine replaces the connection and goes on.
	enginetest.ExpectRows(t, query(t, eng, `SELECT count(*) AS n FROM nums`), []string{"n"},
		[][]sqlgym.Value{{sqlgym.Int(enginetest.NumsRows)}})
}

func TestCreate(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "shop.sqlite")
	// Its speed (one transaction, not one per INSERT) is
	// BenchmarkCreate3000Inserts's to measure.
	stmts := createStmts(3000)
	if err := Create(context.Background(), path, stmts); err != nil {
		t.Fatalf("create: %v", err)
	}
	eng, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	enginetest.ExpectRows(t, query(t, eng, `SELECT count(*) AS n FROM item`), []string{"n"}, [][]sqlgym.Value{{sqlgym.Int(3000)}})
	eng.Close()

	before, err := FileDigest(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := Create(context.Background(), path, []string{`CREATE TABLE x (a)`}); !errors.Is(err, os.ErrExist) {
		t.Errorf("Create over an existing file: want os.ErrExist, got %v", err)
	}
	if after, _ := FileDigest(path); after != before {
		t.Errorf("refused Create changed the existing file")
	}

	bad := filepath.Join(dir, "bad.sqlite")
	if err := Create(context.Background(), bad, []string{`CREATE TABLE x (a)`, `INSERT INTO nope VALUES (1)`}); err == nil {
		t.Errorf("Create with a failing statement succeeded")
	}
	if _, err := os.Stat(bad); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("failed Create left a file behind (stat err %v)", err)
	}
}

func TestPragmaFunctionsAndSchemaReadable(t *testing.T) {
	eng, _ := newDB(t, Options{}, enginetest.Fixture()...)
	// Reading the schema is harmless and models use it.
	res := query(t, eng, `SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name`)
	if len(res.Rows) != 4 {
		t.Errorf("sqlite_master lists %d tables, want 4", len(res.Rows))
	}
	// The PRAGMA table-valued functions go through the PRAGMA authorizer
	// action and are refused like PRAGMA itself.
	_, err := eng.Query(context.Background(), `SELECT name FROM pragma_table_info('people')`, sqlgym.Limits{})
	enginetest.ExpectExecError(t, err, sqlgym.ErrKindForbidden)
}

func TestSafetyNetIsInfraAndClockDecidesWithoutBudget(t *testing.T) {
	eng, _ := newDB(t, Options{PoolSize: 1}, enginetest.Fixture()...)
	// With a budget the clock only abandons: an InfraError, never a timeout.
	_, err := eng.Query(context.Background(), enginetest.RunawaySQL,
		sqlgym.Limits{VMSteps: 1 << 50, SafetyNet: 300 * time.Millisecond, Timeout: time.Millisecond})
	if !sqlgym.IsInfra(err) || !errors.Is(err, sqlgym.ErrSafetyNet) || errors.Is(err, sqlgym.ErrTimeout) {
		t.Errorf("runaway past the safety net: want an InfraError wrapping ErrSafetyNet (not ErrTimeout), got %v", err)
	}
	// Without a budget, Timeout decides, as the statement's timeout.
	_, err = eng.Query(context.Background(), enginetest.RunawaySQL,
		sqlgym.Limits{VMSteps: -1, Timeout: 300 * time.Millisecond, SafetyNet: time.Millisecond})
	if !errors.Is(err, sqlgym.ErrTimeout) || errors.Is(err, sqlgym.ErrStepBudget) || sqlgym.IsInfra(err) {
		t.Errorf("runaway without a budget: want ErrTimeout from the clock, got %v", err)
	}
	// The connection is fine afterwards.
	enginetest.ExpectRows(t, query(t, eng, `SELECT count(*) AS n FROM people`), []string{"n"},
		[][]sqlgym.Value{{sqlgym.Int(enginetest.PeopleRows)}})
}

func TestPanicBecomesInfraAndFreesTheSlot(t *testing.T) {
	eng, _ := newDB(t, Options{PoolSize: 1}, enginetest.Fixture()...)
	testHookRow = func() { panic("injected") }
	for i := 0; i < 3; i++ {
		_, err := eng.Query(context.Background(), `SELECT n FROM nums`, sqlgym.Limits{})
		if !sqlgym.IsInfra(err) || !strings.Contains(err.Error(), "injected") {
			t.Errorf("query that panicked: want an InfraError naming the panic, got %v", err)
		}
	}
	testHookRow = nil
	// The single slot came back each time, and the next connection works.
	enginetest.ExpectRows(t, query(t, eng, `SELECT count(*) AS n FROM nums`), []string{"n"},
		[][]sqlgym.Value{{sqlgym.Int(enginetest.NumsRows)}})
}
