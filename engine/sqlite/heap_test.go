package sqlite

import (
	"context"
	"errors"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym"
)

// heapHog builds a DISTINCT set of 2 KB strings with no end, hex work per
// row slowing it down, until it holds more than its share.
const heapHog = `WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r)
SELECT count(DISTINCT printf('%2000d', i)) FROM r WHERE length(hex(zeroblob(20000))) > 0`

// TestOutOfMemoryHoldsNoLock: two statements that exhaust their shares
// run at once, so that together they also fill the process-wide heap and
// one of them may be re-run; meanwhile a one-row query on another
// database finishes before either is done (an exclusive re-run once made
// such a query wait 112 s), and each hog ends with its own out-of-memory
// error.
func TestOutOfMemoryHoldsNoLock(t *testing.T) {
	if !inChild(t, "TestOutOfMemoryHoldsNoLock") {
		return
	}
	const limit, share = 64 << 20, 40 << 20
	hogs, _ := newDB(t, Options{PoolSize: 4, HeapLimit: limit, StatementHeapLimit: share}, `CREATE TABLE t (a INTEGER)`)
	other, _ := newDB(t, Options{PoolSize: 2, HeapLimit: limit}, `CREATE TABLE u (a INTEGER)`, `INSERT INTO u VALUES (7)`)
	lim := sqlgym.Limits{VMSteps: 1 << 40, SafetyNet: 10 * time.Minute}
	var wg sync.WaitGroup
	done := make(chan struct{})
	errs := make([]error, 2)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = hogs.Query(context.Background(), heapHog, lim)
		}()
	}
	go func() { wg.Wait(); close(done) }()
	for heapUsed() < limit/2 {
		select {
		case <-done:
			t.Fatalf("the hogs ended before filling half the heap: %v", errs)
		case <-time.After(time.Millisecond):
		}
	}
	res, err := other.Query(context.Background(), `SELECT a FROM u`, sqlgym.Limits{})
	select {
	case <-done:
		t.Errorf("the one-row query on another database finished only after the hogs")
	default:
	}
	if err != nil || len(res.Rows) != 1 || res.Rows[0][0].Int != 7 {
		t.Fatalf("one-row query next to the hogs: %v %v", res, err)
	}
	<-done
	for i, err := range errs {
		var ee *sqlgym.ExecError
		if !errors.As(err, &ee) || !strings.Contains(ee.Msg, "out of memory") || !strings.Contains(ee.Msg, "share") {
			t.Errorf("hog %d: want its own out-of-memory ExecError, got %v", i, err)
		}
	}
	t.Logf("statements re-run after the process-wide heap was full: %d", reruns.Load())
}

// TestMemoryStatisticsOff: SQLite's memory statistics, whose global mutex
// every allocation of every thread took, are off, and sqlgym's allocator
// counts what SQLite holds instead (the process-wide limit is enforced
// from that count).
func TestMemoryStatisticsOff(t *testing.T) {
	if os.Getenv("SQLGYM_SQLITE_MEMSTATUS") == "1" {
		t.Skip("SQLGYM_SQLITE_MEMSTATUS=1 turns them on")
	}
	eng, _ := newDB(t, Options{PoolSize: 1}, `CREATE TABLE t (a TEXT)`, `INSERT INTO t VALUES ('x')`)
	if res, err := eng.Query(context.Background(), `SELECT a FROM t`, sqlgym.Limits{}); err != nil || len(res.Rows) != 1 {
		t.Fatalf("query: %v %v", res, err)
	}
	if got := sqliteCounted(); got != 0 {
		t.Errorf("SQLite's own statistics count %d bytes: they are on, and every allocation takes their mutex", got)
	}
	if got := heapUsed(); got <= 0 {
		t.Errorf("sqlgym's allocator counts %d bytes with a connection open", got)
	}
}
