package duckdb

import (
	"context"
	"errors"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/engine/enginetest"
)

func needWorkers(t testing.TB) {
	t.Helper()
	if !workersSupported {
		t.Skip("DuckDB workers run on Linux only")
	}
}

// onlyWorker runs a statement so that the engine (PoolSize 1) has its one
// worker, and returns its pid.
func onlyWorker(t *testing.T, eng *Engine) int {
	t.Helper()
	query(t, eng, "SELECT 1")
	pids := eng.procs.pids()
	if len(pids) != 1 {
		t.Fatalf("want one worker, have %v", pids)
	}
	return pids[0]
}

// starved reports the InfraError of a statement the machine starved past
// its wall-clock stop (twenty times its CPU budget) before it spent the
// budget: the documented verdict of a machine too busy (a load of 30 on 2
// cores did it to budgets of 50 ms to 1.5 s), never scored, and nothing
// the statement did.
func starved(err error) bool {
	return sqlgym.IsInfra(err) && errors.Is(err, sqlgym.ErrSafetyNet)
}

// procStatus reads a field of /proc/PID/status in kB, or -1 when the
// process is gone.
func procStatus(t *testing.T, pid, field string) int64 {
	t.Helper()
	b, err := os.ReadFile("/proc/" + pid + "/status")
	if err != nil {
		return -1
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, field+":"); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return n
		}
	}
	return -1
}

// gone waits for the process to be killed and reaped: a hang watchdog of
// 30 s (a kill and reap take milliseconds), so a busy machine does not
// fail it.
func gone(pid int) bool {
	for range 1500 {
		if _, err := os.Stat("/proc/" + strconv.Itoa(pid)); errors.Is(err, os.ErrNotExist) {
			return true
		}
		time.Sleep(20 * time.Millisecond)
	}
	return false
}

// The brief's full-size explosions: DuckDB folds them at plan time without
// checking for interrupts. In a worker they return on time and take no
// memory from this process: the worker is killed (repeat) or its memory
// cap refuses the 8 GB allocation at once (range).
func TestWorkerStopsPlanTimeRunaways(t *testing.T) {
	needWorkers(t)
	const budget = 300 * time.Millisecond
	const maxGrowthKB = 256 << 10
	for _, sql := range []string{
		`SELECT len(range(1000000000))`,
		`SELECT repeat('x', 1000000000)`,
		`SELECT length(repeat('x', 1000000000))`,
	} {
		t.Run(sql, func(t *testing.T) {
			// The wall clock, as the worker's stop is what is checked:
			// a timeout kills the worker (an event, whatever the load);
			// how soon Query returns is logged below.
			eng, _ := openDB(t, []string{"CREATE TABLE t (a INTEGER)"}, Options{PoolSize: 1, WallClockTimeout: true})
			pid := onlyWorker(t, eng)
			rssBefore := procStatus(t, "self", "VmRSS")
			start := time.Now()
			_, err := eng.Query(context.Background(), sql, sqlgym.Limits{Timeout: budget})
			took := time.Since(start)
			var ee *sqlgym.ExecError
			if !errors.Is(err, sqlgym.ErrTimeout) && (!errors.As(err, &ee) || ee.Kind != sqlgym.ErrKindOther) {
				t.Fatalf("want ErrTimeout or an out-of-memory ExecError, got %T %v", err, err)
			}
			if errors.Is(err, sqlgym.ErrTimeout) {
				if !gone(pid) {
					t.Errorf("worker %d still runs after the timeout", pid)
				}
			} else if rss := procStatus(t, strconv.Itoa(pid), "VmRSS"); rss > 512<<10 {
				t.Errorf("worker %d kept %d kB after failing the statement", pid, rss)
			}
			// Whatever the worker was doing, none of it happened here.
			time.Sleep(300 * time.Millisecond)
			if grew := procStatus(t, "self", "VmRSS") - rssBefore; grew > maxGrowthKB {
				t.Errorf("this process grew by %d kB", grew)
			}
			start = time.Now()
			query(t, eng, "SELECT 1")
			t.Logf("%v after %v; next statement (maybe a fresh worker) took %v", err, took, time.Since(start))
		})
	}
}

// The worker's data segment is capped at MemoryLimit plus WorkerHeadroom:
// an 8 GB vector built inside one function call, which memory_limit does
// not count, fails at once instead of running until the time limit.
func TestWorkerMemoryCap(t *testing.T) {
	needWorkers(t)
	eng, _ := openDB(t, []string{"CREATE TABLE t (a INTEGER)"}, Options{PoolSize: 1})
	// Refused by the cap, the statement fails out of memory; uncapped, it
	// would run into its 30 s limit (ErrTimeout): the error tells which.
	_, err := eng.Query(context.Background(), `SELECT len(range(x)) FROM (VALUES (1000000000)) t(x)`, sqlgym.Limits{Timeout: 30 * time.Second})
	enginetest.ExpectExecError(t, err, sqlgym.ErrKindOther)
	if err == nil || !strings.Contains(strings.ToLower(err.Error()), "out of memory") {
		t.Errorf("want an out-of-memory error, got %v", err)
	}
	query(t, eng, "SELECT 1")
}

// A worker killed from outside during a statement (an operator, the
// kernel's OOM killer when the machine runs out) says nothing about the
// statement: an InfraError, never the model's error, and the engine goes
// on with a fresh worker.
func TestWorkerKilledFromOutsideIsInfra(t *testing.T) {
	needWorkers(t)
	eng, _ := openDB(t, []string{"CREATE TABLE t (a INTEGER)"}, Options{PoolSize: 1})
	for _, sig := range []syscall.Signal{syscall.SIGKILL, syscall.SIGTERM} {
		pid := onlyWorker(t, eng)
		time.AfterFunc(200*time.Millisecond, func() { syscall.Kill(pid, sig) })
		_, err := eng.Query(context.Background(), "SELECT count(*) FROM range(1000000000000)", sqlgym.Limits{Timeout: 30 * time.Second})
		var ee *sqlgym.ExecError
		if !sqlgym.IsInfra(err) || errors.As(err, &ee) || errors.Is(err, sqlgym.ErrTimeout) {
			t.Fatalf("%v: want an InfraError, got %T %v", sig, err, err)
		}
		if !strings.Contains(err.Error(), "killed from outside") {
			t.Errorf("%v: the error should say the worker was killed from outside: %v", sig, err)
		}
		query(t, eng, "SELECT 1")
	}

	// Dying while idle is nobody's fault: the next statement gets a fresh
	// worker.
	idle := onlyWorker(t, eng)
	syscall.Kill(idle, syscall.SIGKILL)
	if !gone(idle) {
		t.Fatalf("worker %d survived SIGKILL", idle)
	}
	query(t, eng, "SELECT 1")
}

// A worker that crashes for no reason the parent can see (here a SIGSEGV
// from the test) gets the statement again on a fresh worker, whose answer
// is the answer.
func TestWorkerCrashIsRetriedOnce(t *testing.T) {
	needWorkers(t)
	eng, _ := openDB(t, []string{"CREATE TABLE t (a INTEGER)"}, Options{PoolSize: 1})
	pid := onlyWorker(t, eng)
	time.AfterFunc(100*time.Millisecond, func() { syscall.Kill(pid, syscall.SIGSEGV) })
	const sql = `SELECT count(*) AS n FROM (SELECT DISTINCT a.range * 100000 + b.range FROM range(1000) a, range(3000) b)`
	res, err := eng.Query(context.Background(), sql, sqlgym.Limits{Timeout: 30 * time.Second})
	if err != nil {
		t.Fatalf("want the retry's result, got %v", err)
	}
	enginetest.ExpectRows(t, res, []string{"n"}, [][]sqlgym.Value{{sqlgym.Int(3000000)}})
	if gone(pid) == false {
		t.Errorf("worker %d survived", pid)
	}
}

func TestWorkerCallerCancelKills(t *testing.T) {
	needWorkers(t)
	eng, _ := openDB(t, []string{"CREATE TABLE t (a INTEGER)"}, Options{PoolSize: 1})
	pid := onlyWorker(t, eng)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	_, err := eng.Query(ctx, "SELECT count(*) FROM range(1000000000000)", sqlgym.Limits{Timeout: time.Minute})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("want context.Canceled, got %v", err)
	}
	if !gone(pid) {
		t.Errorf("worker %d still runs after the caller cancelled", pid)
	}
}

func TestWorkerCloseEndsWorkers(t *testing.T) {
	needWorkers(t)
	eng, _ := openDB(t, enginetest.Fixture(), Options{PoolSize: 3})
	errs := make(chan error, 3)
	for range 3 {
		go func() {
			_, err := eng.Query(context.Background(), "SELECT count(*) FROM people", sqlgym.Limits{})
			errs <- err
		}()
	}
	for range 3 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	pids := eng.procs.pids()
	if len(pids) == 0 {
		t.Fatal("no workers")
	}
	if err := eng.Close(); err != nil {
		t.Fatal(err)
	}
	for _, pid := range pids {
		if !gone(pid) {
			t.Errorf("worker %d outlived Close", pid)
		}
	}
}

// Errors keep their identity across the pipe.
func TestWorkerErrorIdentity(t *testing.T) {
	needWorkers(t)
	eng, _ := openDB(t, enginetest.Fixture(), Options{})
	_, err := eng.Query(context.Background(), "SELECT n FROM nums", sqlgym.Limits{MaxRows: 10})
	if !errors.Is(err, sqlgym.ErrTooLarge) {
		t.Errorf("want ErrTooLarge, got %v", err)
	}
	_, err = eng.Query(context.Background(), "SELECT nope FROM nums", sqlgym.Limits{})
	enginetest.ExpectExecError(t, err, sqlgym.ErrKindNoColumn)
	res, err := eng.Query(context.Background(), "SELECT n FROM nums WHERE n < 0", sqlgym.Limits{})
	if err != nil || res.Rows == nil || len(res.Columns) != 1 {
		t.Errorf("empty result: %+v, %v", res, err)
	}
}

// In-process mode (the only one off Linux) still passes the suite.
func TestConformanceInProcess(t *testing.T) {
	h := harness(t)
	h.Open = func(t *testing.T, stmts []string) (sqlgym.Engine, func() string) {
		eng, path := openDB(t, stmts, Options{InProcess: true})
		return eng, func() string { return fileDigest(t, path) }
	}
	enginetest.Run(t, h)
}

func TestParseSize(t *testing.T) {
	for s, want := range map[string]uint64{
		"1GB": 1e9, "256MB": 256e6, "512 MiB": 512 << 20, "1.5gb": 1.5e9, "2GiB": 2 << 30, "100": 100, "10kb": 10e3,
	} {
		if got, err := parseSize(s); err != nil || got != want {
			t.Errorf("parseSize(%q) = %d, %v; want %d", s, got, err, want)
		}
	}
	for _, s := range []string{"", "GB", "1XB", "-1GB", "80%"} {
		if _, err := parseSize(s); err == nil {
			t.Errorf("parseSize(%q) accepted", s)
		}
	}
}

// A statement that crashes every fresh worker it runs on is its own
// error, and the engine goes on.
func TestWorkerCrashTwiceIsStatementError(t *testing.T) {
	needWorkers(t)
	const bomb = "SELECT 'this statement crashes its worker'"
	eng, _ := openDB(t, []string{"CREATE TABLE t (a INTEGER)"}, Options{PoolSize: 1, crashOn: bomb})
	query(t, eng, "SELECT 1")
	_, err := eng.Query(context.Background(), bomb, sqlgym.Limits{Timeout: 10 * time.Second})
	enginetest.ExpectExecError(t, err, sqlgym.ErrKindOther)
	if err == nil || !strings.Contains(err.Error(), "crashed the DuckDB worker twice") {
		t.Errorf("want the crashed-twice error, got %v", err)
	}
	query(t, eng, "SELECT 1")
}
