package sqlite

import (
	"context"
	"errors"
	"runtime"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym"
)

// unchargedShapes work on a large text held in a register without
// allocating or calling a function sqlgym overrides: numeric conversion
// and max/min comparisons inside SQLite's VM. The budget cannot count
// them (docs/sandbox-sqlite.md, "Not charged"); before the CPU cap each
// ran to the wall-clock safety net, an InfraError never scored.
var unchargedShapes = []struct{ name, sql string }{
	{"plus_zero", forever + `SELECT sum(` + registerText + ` + 0) FROM r`},
	{"abs", forever + `SELECT sum(abs(` + registerText + `)) FROM r`},
	{"cast_real", forever + `SELECT sum(CAST(` + registerText + ` AS REAL)) FROM r`},
	{"max", forever + `SELECT max(` + registerText + `) IS NULL FROM r`},
	// One row per step call: the CPU is counted across step calls, which
	// a goroutine may run on different threads.
	{"rows_cast", forever + `SELECT CAST(` + registerText + ` AS REAL) FROM r`},
}

// TestUnchargedWorkStopsAtTheCPUCap: each uncharged shape is the model's
// timeout at its thread-CPU cap (CPUPerStep per budget step), well before
// its step budget and the safety net, and the verdict is a timeout every
// time. A budget of 1e7 steps keeps the cap at 0.45 s of CPU; the safety
// net of 3 minutes is what these shapes reached before.
func TestUnchargedWorkStopsAtTheCPUCap(t *testing.T) {
	eng, _ := newDB(t, Options{PoolSize: 2}, `CREATE TABLE t (a INTEGER)`)
	const budget = 10_000_000
	lim := sqlgym.Limits{VMSteps: budget, SafetyNet: 3 * time.Minute, MaxRows: 1 << 30, MaxBytes: 1 << 40}
	for _, s := range unchargedShapes {
		t.Run(s.name, func(t *testing.T) {
			runtime.LockOSThread()
			cpu := ThreadCPU()
			_, st, err := eng.QueryStats(context.Background(), s.sql, lim)
			cpu = ThreadCPU() - cpu
			runtime.UnlockOSThread()
			if !errors.Is(err, sqlgym.ErrTimeout) || !errors.Is(err, sqlgym.ErrCPUCap) || sqlgym.IsInfra(err) {
				t.Fatalf("want the CPU cap's timeout, got %v", err)
			}
			// Below the budget: the cap, not the count, stopped it.
			if st.VMSteps >= budget {
				t.Errorf("stopped after %d steps of a budget of %d: the budget counts this work now, the shape tests nothing", st.VMSteps, budget)
			}
			t.Logf("%d steps, %v of CPU on the test's thread, %v wall", st.VMSteps, cpu.Round(time.Millisecond), st.Elapsed.Round(time.Millisecond))
		})
	}
}

// TestCPUCapLeavesBudgetedWorkAlone: an ordinary runaway and a charged
// heavy function still stop at their step budget, never at the cap: the
// cap is far above what a budget step costs.
func TestCPUCapLeavesBudgetedWorkAlone(t *testing.T) {
	eng, _ := newDB(t, Options{PoolSize: 1}, `CREATE TABLE t (a INTEGER)`)
	lim := sqlgym.Limits{VMSteps: 50_000_000, SafetyNet: 10 * time.Minute}
	for _, sql := range []string{
		forever + `SELECT count(*) FROM r`,
		forever + `SELECT count(DISTINCT printf('%064d', i)) FROM r`,
		heavyShapes[0].sql,
	} {
		_, _, err := eng.QueryStats(context.Background(), sql, lim)
		if !errors.Is(err, sqlgym.ErrStepBudget) || errors.Is(err, sqlgym.ErrCPUCap) {
			t.Errorf("%s: want the step budget's timeout, got %v", sql, err)
		}
	}
}
