package postgres

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/engine/enginetest"
	"github.com/sqlgym/sqlgym/internal/redteam"
	"github.com/sqlgym/sqlgym/internal/testenv"
)

func TestJITOff(t *testing.T) {
	eng := newSandbox(t, enginetest.Fixture()).open(t, Options{})
	res, err := eng.Query(context.Background(), `SELECT current_setting('jit') AS jit`, sqlgym.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	enginetest.ExpectRows(t, res, []string{"jit"}, [][]sqlgym.Value{{sqlgym.Text("off")}})
}

// redTeamSQL reads the statements of a red-team predictions file.
func redTeamSQL(t *testing.T, name string) []string {
	t.Helper()
	as, err := redteam.ReadFile(testenv.RedTeamFile(t, name))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, a := range as {
		if a.SQL == "" {
			t.Fatalf("%s: an answer with no sql", name)
		}
		out = append(out, a.SQL)
	}
	return out
}

// TestRedTeamJIT replays the red team's statements that JIT compilation
// kept running long after their timeout verdict (issue 25): the verdict
// is a timeout (or a fast answer, for sqlsmith's), and no backend of the
// reader is still running anything a moment later.
func TestRedTeamJIT(t *testing.T) {
	testenv.Slow(t, "three statements run to their 1 s timeout, about 6 s (TestJITOff is the quick check)")
	s := newSandbox(t, enginetest.Fixture())
	eng := s.open(t, Options{})
	ctx := context.Background()
	admin, err := pgx.Connect(ctx, s.admin)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	lim := sqlgym.Limits{Timeout: time.Second}
	for _, c := range []struct {
		file    string
		timeout bool
	}{{"r3_pg_jit_1000.jsonl", true}, {"r3_pg_jit_1600.jsonl", true}, {"r3_pg_jit_sqlsmith.jsonl", false}} {
		for i, sql := range redTeamSQL(t, c.file) {
			start := time.Now()
			_, err := eng.Query(ctx, sql, lim)
			took := time.Since(start)
			switch {
			case c.timeout && !errors.Is(err, sqlgym.ErrTimeout):
				t.Errorf("%s #%d: want the model's timeout, got %v after %v", c.file, i, err, took)
			case !c.timeout && err != nil && errors.Is(err, sqlgym.ErrTimeout):
				t.Errorf("%s #%d: timed out after %v; without JIT it takes well under a second", c.file, i, took)
			}
			// A hang watchdog, not a speed: the backend goes idle in
			// milliseconds once cancelled, and a load of 35 must not fail it.
			if !backendsIdle(t, admin, s.role, 30*time.Second) {
				t.Errorf("%s #%d: the reader's backend still runs a statement 30 s after the verdict", c.file, i)
			}
		}
	}
}

// backendsIdle waits up to within for every backend of role to be idle.
func backendsIdle(t *testing.T, admin *pgx.Conn, role string, within time.Duration) bool {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		var n int
		err := admin.QueryRow(context.Background(),
			`SELECT count(*) FROM pg_stat_activity WHERE usename = $1 AND state <> 'idle'`, role).Scan(&n)
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(50 * time.Millisecond)
	}
}
