package postgres

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/engine/enginetest"
)

// The measurements behind docs/sandbox-postgres.md. They take minutes and
// load the machine, so they run only with SQLGYM_PG_MEASURE=1:
//
//	SQLGYM_PG_MEASURE=1 go test ./engine/postgres/ -run TestMeasure -v

func measuring(t *testing.T) {
	if os.Getenv("SQLGYM_PG_MEASURE") != "1" {
		t.Skip("measurement: set SQLGYM_PG_MEASURE=1 to run it")
	}
}

// TestMeasureRunaway measures how long a backend keeps running after the
// engine's verdict for statements that ignore cancel requests.
func TestMeasureRunaway(t *testing.T) {
	measuring(t)
	s := newSandbox(t, append(enginetest.Fixture(), bigText))
	cases := []struct {
		name       string
		sql        string
		unscreened bool
	}{
		{"like_repeat_unscreened (before)", `SELECT repeat('a', 300000) LIKE '%' || repeat('a', 30000) || 'b'`, true},
		{"like_repeat_screened (after)", `SELECT repeat('a', 300000) LIKE '%' || repeat('a', 30000) || 'b'`, false},
		{"like_repeat_at_cap (after)", `SELECT repeat('a', 10000) LIKE '%' || repeat('a', 10000) || 'b'`, false},
		{"like_string_agg_unscreened (before)", `SELECT (SELECT string_agg('a', '') FROM generate_series(1, 300000)) LIKE '%' || (SELECT string_agg('a', '') FROM generate_series(1, 30000)) || 'b'`, true},
		{"like_string_agg_screened (after: refused)", `SELECT (SELECT string_agg('a', '') FROM generate_series(1, 300000)) LIKE '%' || (SELECT string_agg('a', '') FROM generate_series(1, 30000)) || 'b'`, false},
		{"like_literals (after: refused)", `SELECT '` + strings.Repeat("a", 100000) + `' LIKE '%` + strings.Repeat("a", 10000) + `b'`, false},
		{"like_column (remains)", `SELECT s LIKE p FROM big`, false},
	}
	for _, c := range cases {
		eng := s.open(t, Options{MaxConns: 1})
		eng.unscreened = c.unscreened
		start := time.Now()
		_, err := eng.Query(context.Background(), c.sql, sqlgym.Limits{Timeout: time.Second})
		verdict := time.Since(start)
		// Poll until no backend of the role runs a statement.
		for time.Since(start) < 5*time.Minute {
			if adminInt(t, s.admin, `SELECT count(*) FROM pg_stat_activity WHERE usename = $1 AND state = 'active'`, s.role) == 0 {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		t.Logf("%s: verdict after %v (%v); backend busy until %v, %v after the verdict",
			c.name, verdict.Round(time.Millisecond), shortErr(errOrOK(err)), time.Since(start).Round(100*time.Millisecond),
			(time.Since(start) - verdict).Round(100*time.Millisecond))
		eng.Close()
	}
}

func errOrOK(err error) error {
	if err == nil {
		return errString("rows")
	}
	return err
}

type errString string

func (e errString) Error() string { return string(e) }

// burn starts three CPU-burning shell loops per core, each killed after
// limit at the latest, and returns the function that kills them all.
func burn(t *testing.T, limit time.Duration) func() {
	t.Helper()
	var cmds []*exec.Cmd
	for i := 0; i < 3*runtime.NumCPU(); i++ {
		ctx, cancel := context.WithTimeout(context.Background(), limit)
		cmd := exec.CommandContext(ctx, "sh", "-c", "while :; do :; done")
		if err := cmd.Start(); err != nil {
			cancel()
			t.Fatalf("start burner: %v", err)
		}
		cmds = append(cmds, cmd)
		go func() { _ = cmd.Wait(); cancel() }()
	}
	stop := func() {
		for _, c := range cmds {
			_ = c.Process.Kill()
		}
	}
	t.Cleanup(stop)
	return stop
}

// TestMeasureFlips counts verdict flips between an idle and a loaded
// machine (three CPU-burning processes per core), with and without the
// load retry: statements with idle runtimes spread around a 1 s limit
// plus typical fast ones.
func TestMeasureFlips(t *testing.T) {
	measuring(t)
	s := newSandbox(t, enginetest.Fixture())
	before := s.open(t, Options{NoLoadRetry: true, MaxConns: 2})
	after := s.open(t, Options{MaxConns: 2})
	lim := sqlgym.Limits{Timeout: time.Second}
	big := sqlgym.Limits{Timeout: time.Minute}

	// Calibrate: idle milliseconds per 1000 rows of a on the cross join.
	cross := func(k int) string {
		return fmt.Sprintf(`SELECT count(*) FROM nums a, nums b WHERE a.n <= %d AND a.x <> b.x`, k)
	}
	perK := time.Duration(1 << 62)
	for i := 0; i < 3; i++ {
		st := time.Now()
		if _, err := before.Query(context.Background(), cross(500), big); err != nil {
			t.Fatal(err)
		}
		perK = min(perK, time.Since(st)/500)
	}
	var stmts []string
	var truth []bool // the idle verdict by design: over the limit
	for ms := 300; ms <= 3000; ms += 150 {
		stmts = append(stmts, cross(int(time.Duration(ms)*time.Millisecond/perK)))
		truth = append(truth, ms > 1000)
	}
	for i := 0; i < 20; i++ {
		stmts = append(stmts, fmt.Sprintf(`SELECT p.name, count(o.id) FROM people p LEFT JOIN orders o ON o.person_id = p.id WHERE p.id > %d GROUP BY p.name ORDER BY 1`, i%3),
			fmt.Sprintf(`SELECT grp, sum(x) FROM nums WHERE n > %d GROUP BY grp ORDER BY grp`, i*10))
		truth = append(truth, false, false)
	}
	t.Logf("%.2f ms per 1000 rows; %d statements (%d near the limit)", float64(perK)/1e3, len(stmts), len(stmts)-40)

	verdicts := func(eng *Engine) ([]bool, time.Duration) {
		out := make([]bool, len(stmts))
		st := time.Now()
		for i, q := range stmts {
			_, err := eng.Query(context.Background(), q, lim)
			if err != nil && !errors.Is(err, sqlgym.ErrTimeout) {
				t.Fatalf("%s: %v", q, err)
			}
			out[i] = err != nil
		}
		return out, time.Since(st)
	}
	flips := func(a, b []bool) (n, toTimeout int) {
		for i := range a {
			if a[i] != b[i] {
				n++
				if b[i] {
					toTimeout++
				}
			}
		}
		return
	}
	count := func(v []bool) (n int) {
		for _, x := range v {
			if x {
				n++
			}
		}
		return
	}
	for _, c := range []struct {
		name string
		eng  *Engine
	}{{"before (no retry)", before}, {"after (load retry)", after}} {
		idle, idleTook := verdicts(c.eng)
		stop := burn(t, 5*time.Minute)
		loaded, loadedTook := verdicts(c.eng)
		slow := c.eng.slowdown(context.Background())
		stop()
		n, toT := flips(idle, loaded)
		wi, wiT := flips(truth, idle)
		wl, wlT := flips(truth, loaded)
		t.Logf("%s: idle %d timeouts (%v), loaded %d timeouts (%v, probe slowdown %.1fx); idle->loaded %d flips (%d to timeout); "+
			"against the design verdict (%d timeouts): idle %d wrong (%d false timeouts), loaded %d wrong (%d false timeouts); %d statements",
			c.name, count(idle), idleTook.Round(time.Second), count(loaded), loadedTook.Round(time.Second), slow, n, toT,
			count(truth), wi, wiT, wl, wlT, len(stmts))
		// Let the machine settle before the next configuration.
		time.Sleep(2 * time.Second)
	}
}
