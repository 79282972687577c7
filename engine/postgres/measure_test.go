package postgres

import (
	"context"
	"os"
	"os/exec"
	"runtime"
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
	s := newSandbox(t, enginetest.Fixture())
	cases := []struct {
		name       string
		sql        string
		unscreened bool
	}{
		{"like_repeat_unscreened (before)", `SELECT repeat('a', 300000) LIKE '%' || repeat('a', 30000) || 'b'`, true},
		{"like_repeat_screened (after)", `SELECT repeat('a', 300000) LIKE '%' || repeat('a', 30000) || 'b'`, false},
		{"like_repeat_at_cap (after)", `SELECT repeat('a', 10000) LIKE '%' || repeat('a', 10000) || 'b'`, false},
		{"like_string_agg (remains)", `SELECT (SELECT string_agg('a', '') FROM generate_series(1, 300000)) LIKE '%' || (SELECT string_agg('a', '') FROM generate_series(1, 30000)) || 'b'`, false},
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
