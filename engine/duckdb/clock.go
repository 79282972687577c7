package duckdb

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/sqlgym/sqlgym"
)

// Which clock decides a statement's timeout. DuckDB has no deterministic
// step counter, so a wall-clock limit flips verdicts with the machine's
// load: the same statement is `timeout` on a busy machine and a result on
// an idle one. In a worker process, which runs one statement at a time on
// one DuckDB thread, the CPU time the process spends is the statement's
// own work and barely depends on load, so there Limits.Timeout is a
// budget of CPU time. A wall-clock stop (wallStop) still bounds a
// statement that waits instead of computing; stopped there before its
// CPU budget is spent, the statement was starved by the machine, which is
// an *sqlgym.InfraError (retried, never scored), not the SQL's timeout.
// In-process (not Linux, or InProcess) every statement shares the
// process, so Limits.Timeout stays wall-clock time there.

// errCPUBudget and errWallStop are the causes a statement's context ends
// with when a clock stops it.
var (
	errCPUBudget = errors.New("CPU-time budget spent")
	errWallStop  = errors.New("wall-clock stop reached before the CPU-time budget was spent")
)

// cpuPoll is how often the CPU clock reads the process's CPU time. Reading
// it costs about a microsecond; a statement overruns its budget by at most
// about this much CPU time.
const cpuPoll = 5 * time.Millisecond

// wallStop is how long a statement on the CPU clock may take in wall-clock
// time: twenty times its budget (a statement getting a twentieth of a core
// still gets its verdict), never more than Limits.SafetyNet. Only a
// starved statement reaches it: one that computes spends its budget first,
// and the gate refuses the functions that wait without computing.
func wallStop(lim sqlgym.Limits) time.Duration {
	return min(20*lim.Timeout, lim.SafetyNet)
}

// statementClock starts a statement's time. The returned context ends
// with cause errCPUBudget, errWallStop or context.DeadlineExceeded (the
// wall clock) when the statement's time is up, or with the parent's error.
type statementClock func(ctx context.Context, lim sqlgym.Limits) (context.Context, context.CancelFunc)

// wallClock: Limits.Timeout is wall-clock time.
func wallClock(ctx context.Context, lim sqlgym.Limits) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, lim.Timeout)
}

// cpuClock: Limits.Timeout is the CPU time this process spends from now
// on, with the wall-clock stop above it.
func cpuClock(ctx context.Context, lim sqlgym.Limits) (context.Context, context.CancelFunc) {
	start, err := processCPU()
	if err != nil {
		// No CPU clock on this system: fall back to the wall clock.
		return wallClock(ctx, lim)
	}
	qctx, cancel := context.WithCancelCause(ctx)
	wall := time.NewTimer(wallStop(lim))
	tick := time.NewTicker(cpuPoll)
	done := make(chan struct{})
	go func() {
		defer wall.Stop()
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-qctx.Done():
				return
			case <-wall.C:
				cancel(errWallStop)
				return
			case <-tick.C:
				if now, err := processCPU(); err == nil && now-start >= lim.Timeout {
					cancel(errCPUBudget)
					return
				}
			}
		}
	}()
	return qctx, func() {
		close(done)
		cancel(context.Canceled)
	}
}

// stopped is the error for a statement cut short: the caller's own
// cancellation is passed through, our time limit is ErrTimeout, and the
// wall-clock stop of a statement whose CPU budget was not spent is the
// machine's fault.
func stopped(ctx, qctx context.Context, lim sqlgym.Limits) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("duckdb: statement cancelled: %w", err)
	}
	if errors.Is(context.Cause(qctx), errWallStop) {
		return &sqlgym.InfraError{Err: fmt.Errorf("duckdb: %w: stopped after %s of wall-clock time, before its %s of CPU time were spent: the machine is too busy (%w)",
			errWallStop, wallStop(lim), lim.Timeout, sqlgym.ErrSafetyNet)}
	}
	if errors.Is(context.Cause(qctx), errCPUBudget) {
		return fmt.Errorf("duckdb: %w after %s of CPU time", sqlgym.ErrTimeout, lim.Timeout)
	}
	return fmt.Errorf("duckdb: %w after %s", sqlgym.ErrTimeout, lim.Timeout)
}
