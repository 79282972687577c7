package duckdb

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/engine/enginetest"
)

// TestFlipRate measures how often a statement's verdict (a result or
// `timeout`) differs between an idle machine and one with three
// CPU-burning processes per core, on the wall clock (the old behaviour)
// and on the CPU clock (the default in workers). It is a measurement, not
// a check, and takes a few minutes: it runs only with
// SQLGYM_DUCKDB_FLIP=1. docs/sandbox-duckdb.md records its numbers.
func TestFlipRate(t *testing.T) {
	needWorkers(t)
	if os.Getenv("SQLGYM_DUCKDB_FLIP") != "1" {
		t.Skip("a measurement of a few minutes: set SQLGYM_DUCKDB_FLIP=1")
	}
	const limit = time.Second
	batch := flipBatch(t, limit)
	for _, wall := range []bool{true, false} {
		name := map[bool]string{true: "wall clock", false: "CPU clock"}[wall]
		eng, _ := openDB(t, enginetest.Fixture(), Options{PoolSize: 1, WallClockTimeout: wall})
		query(t, eng, "SELECT 1")
		idle1, l1 := runFlipBatch(t, eng, batch, limit)
		idle2, l2 := runFlipBatch(t, eng, batch, limit)
		stop := burnCPU(t, 3*runtime.NumCPU())
		loaded, l3 := runFlipBatch(t, eng, batch, limit)
		stop()
		t.Logf("%s: idle vs idle: %d of %d flipped (load %s / %s); idle vs loaded: %d of %d flipped, %d infra (load %s)",
			name, flips(idle1, idle2), len(batch), l1, l2, flips(idle1, loaded), len(batch), count(loaded, "infra"), l3)
		for _, run := range []struct {
			name string
			v    []string
		}{{"idle 1", idle1}, {"idle 2", idle2}, {"loaded", loaded}} {
			t.Logf("%s %-6s: %s; %d of %d verdicts differ from the idle CPU time's (over or under the limit)",
				name, run.name, verdictLine(run.v), wrong(batch, run.v), len(batch)-1)
		}
		for i, s := range batch {
			if idle1[i] != loaded[i] || idle1[i] != idle2[i] {
				t.Logf("  %-6s idle %-8s %-8s loaded %-8s", s.label, idle1[i], idle2[i], loaded[i])
			}
		}
	}
}

type flipStatement struct {
	label string
	sql   string
}

// flipBatch is 19 statements whose idle CPU time spreads from 0.2 to 2.0
// times the limit, and 10 typical ones well under it.
func flipBatch(t *testing.T, limit time.Duration) []flipStatement {
	// Calibrate: rows per CPU-second of a CPU-bound scan, measured on the
	// worker's own CPU time so that the machine's load does not bias it.
	eng, _ := openDB(t, []string{"CREATE TABLE t (a INTEGER)"}, Options{PoolSize: 1})
	const probe = 100_000_000
	pid := onlyWorker(t, eng)
	best := time.Hour
	for range 2 {
		before, err := childCPU(pid)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := eng.Query(context.Background(), fmt.Sprintf("SELECT sum(hash(range)) FROM range(%d)", probe), sqlgym.Limits{Timeout: time.Minute}); err != nil {
			t.Fatal(err)
		}
		after, _ := childCPU(pid)
		best = min(best, after-before)
	}
	perSec := float64(probe) / best.Seconds()
	t.Logf("calibration: %.0f rows per CPU-second", perSec)
	var out []flipStatement
	for f := 0.2; f <= 2.0001; f += 0.1 {
		n := int64(perSec * f * limit.Seconds())
		out = append(out, flipStatement{fmt.Sprintf("%.1fx", f), fmt.Sprintf("SELECT sum(hash(range)) FROM range(%d)", n)})
	}
	for i, sql := range []string{
		"SELECT count(*) FROM people", "SELECT name FROM people ORDER BY id", "SELECT grp, sum(n) FROM nums GROUP BY grp",
		"SELECT * FROM people p JOIN nums n ON p.id = n.n", "SELECT count(*) FROM range(100000)",
		"SELECT max(n) FROM nums", "SELECT DISTINCT grp FROM nums", "SELECT count(*) FROM range(1000) a, range(1000) b",
		"SELECT sum(hash(range)) FROM range(1000000)", "SELECT string_agg(name, ',') FROM people",
	} {
		out = append(out, flipStatement{fmt.Sprintf("typ%d", i), sql})
	}
	return out
}

func runFlipBatch(t *testing.T, eng *Engine, batch []flipStatement, limit time.Duration) ([]string, string) {
	out := make([]string, len(batch))
	for i, s := range batch {
		_, err := eng.Query(context.Background(), s.sql, sqlgym.Limits{Timeout: limit})
		switch {
		case err == nil:
			out[i] = "ok"
		case errors.Is(err, sqlgym.ErrTimeout):
			out[i] = "timeout"
		case sqlgym.IsInfra(err):
			out[i] = "infra"
		default:
			out[i] = "error"
			t.Logf("%s: %v", s.label, err)
		}
	}
	b, _ := os.ReadFile("/proc/loadavg")
	return out, strings.Join(strings.Fields(string(b))[:1], "")
}

// verdictLine is one letter per statement: o ok, T timeout, i infra, e error.
func verdictLine(v []string) string {
	var b strings.Builder
	for _, x := range v {
		b.WriteByte(map[string]byte{"ok": 'o', "timeout": 'T', "infra": 'i', "error": 'e'}[x])
	}
	return b.String()
}

// wrong counts verdicts other than what the statement's idle CPU time
// says: ok under the limit, timeout over it (1.0x, on the limit, is
// skipped; infra counts as wrong: no verdict).
func wrong(batch []flipStatement, v []string) int {
	n := 0
	for i, s := range batch {
		want := "ok"
		if strings.HasSuffix(s.label, "x") {
			f, _ := strconv.ParseFloat(strings.TrimSuffix(s.label, "x"), 64)
			switch {
			case f > 0.99 && f < 1.01:
				continue
			case f > 1:
				want = "timeout"
			}
		}
		if v[i] != want {
			n++
		}
	}
	return n
}

func flips(a, b []string) int {
	n := 0
	for i := range a {
		if a[i] != b[i] && a[i] != "infra" && b[i] != "infra" {
			n++
		}
	}
	return n
}

func count(a []string, v string) int {
	n := 0
	for _, x := range a {
		if x == v {
			n++
		}
	}
	return n
}

// burnCPU starts n busy loops, each bounded to five minutes in case the
// test dies, and returns the function that kills them.
func burnCPU(t *testing.T, n int) func() {
	var cmds []*exec.Cmd
	for range n {
		c := exec.Command("timeout", "300", "sh", "-c", "while :; do :; done")
		c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, c)
	}
	stopped := false
	stop := func() {
		if stopped {
			return
		}
		stopped = true
		for _, c := range cmds {
			_ = syscall.Kill(-c.Process.Pid, syscall.SIGKILL)
			_ = c.Wait()
		}
	}
	t.Cleanup(stop)
	time.Sleep(time.Second)
	return stop
}
