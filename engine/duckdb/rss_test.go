package duckdb

import (
	"context"
	"errors"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/internal/testenv"
)

// peakRSS runs sql on the engine's only worker and returns the worker's
// peak resident set size in bytes: VmHWM while it lives, the kernel's
// rusage of the reaped process once it was killed.
func peakRSS(t *testing.T, eng *Engine, sql string, lim sqlgym.Limits) (int64, error) {
	t.Helper()
	query(t, eng, "SELECT 1")
	eng.procs.mu.Lock()
	if len(eng.procs.idle) != 1 {
		eng.procs.mu.Unlock()
		t.Fatalf("want one idle worker, have %d", len(eng.procs.idle))
	}
	w := eng.procs.idle[0]
	eng.procs.mu.Unlock()
	_, err := eng.Query(context.Background(), sql, lim)
	select {
	case <-w.exited:
		ru, ok := w.cmd.ProcessState.SysUsage().(*syscall.Rusage)
		if !ok {
			t.Fatal("no rusage for the reaped worker")
		}
		return ru.Maxrss << 10, err
	default:
	}
	hwm := procStatus(t, strconv.Itoa(w.cmd.Process.Pid), "VmHWM")
	if hwm < 0 {
		// It exited between the check and the read.
		<-w.exited
		return w.cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10, err
	}
	return hwm << 10, err
}

// Every statement's process stays under 1 GiB with the default options:
// DuckDB's memory_limit counts only its buffer-managed memory, so the cap
// is the worker's RLIMIT_DATA (DefaultMemoryLimit + WorkerHeadroom) plus
// the binary's resident code.
func TestWorkerPeakRSSUnder1GiB(t *testing.T) {
	needWorkers(t)
	const limit = 1 << 30
	// The first two (a result at the byte cap, a list that grows without
	// bound) always run; the rest, each seconds of a worker at its memory
	// cap, only with SQLGYM_SLOW_TESTS=1.
	for i, sql := range []string{
		// A result at the default byte cap must still come through.
		`SELECT repeat('x', 1000) FROM range(60000)`,
		`SELECT list(range) FROM range(1000000000000)`,
		`SELECT sum(range) FROM range(1000000000000)`,
		`SELECT * FROM range(1000000000000)`,
		`SELECT count(*) FROM range(100000) a, range(100000) b`,
		`SELECT a.range, b.range FROM range(100000) a, range(100000) b ORDER BY 1 DESC, 2`,
		`WITH RECURSIVE r(s, n) AS (SELECT 'x', 0 UNION ALL SELECT s || s, n + 1 FROM r WHERE n < 40) SELECT max(length(s)) FROM r`,
		`WITH RECURSIVE r(s) AS (SELECT 'xx' UNION ALL SELECT s || s FROM r) SELECT length(s) FROM r`,
	} {
		t.Run(sql, func(t *testing.T) {
			if i >= 2 {
				testenv.Slow(t, "a worker at its memory cap for seconds")
			}
			eng, _ := openDB(t, []string{"CREATE TABLE t (a INTEGER)"}, Options{PoolSize: 1})
			peak, err := peakRSS(t, eng, sql, sqlgym.Limits{Timeout: 1500 * time.Millisecond, MaxRows: 1 << 30, MaxBytes: 1 << 40})
			var ee *sqlgym.ExecError
			// A starved statement (starved) peaked where the machine let
			// it: its peak still counts against the cap.
			if err != nil && !errors.Is(err, sqlgym.ErrTimeout) && !errors.Is(err, sqlgym.ErrTooLarge) && !errors.As(err, &ee) && !starved(err) {
				t.Errorf("want a result, ErrTimeout, ErrTooLarge, an ExecError or a starved InfraError, got %T %v", err, err)
			}
			t.Logf("peak RSS %d MiB (%v)", peak>>20, err)
			if peak >= limit {
				t.Errorf("worker peak RSS %d MiB, want < 1024 MiB", peak>>20)
			}
			query(t, eng, "SELECT 1")
		})
	}
}
