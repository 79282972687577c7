package postgres

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/engine/enginetest"
	"github.com/sqlgym/sqlgym/internal/testenv"
)

// slowSQL runs for many seconds on the fixture: long enough for a test to
// act on its backend.
const slowSQL = `SELECT count(*) FROM nums a, nums b, nums c`

// startSlow runs slowSQL in the background and returns, once the reader's
// backend has been running it for a while, its pid and the channel its
// error comes on. The wait matters: the extended protocol's Parse already
// shows the statement as active, and a cancel that lands while the backend
// still reads the Bind and Execute messages is dropped by the server.
func startSlow(t *testing.T, s *sandbox, eng *Engine, lim sqlgym.Limits) (int64, <-chan error) {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		_, err := eng.Query(context.Background(), slowSQL, lim)
		done <- err
	}()
	deadline := time.Now().Add(time.Minute) // a hang watchdog: it shows up in milliseconds
	for time.Now().Before(deadline) {
		pid := adminInt(t, s.admin, `SELECT coalesce(max(pid), 0) FROM pg_stat_activity WHERE usename = $1 AND state = 'active' AND query LIKE '%nums a, nums b%'
			AND now() - state_change > interval '300 ms'`, s.role)
		if pid != 0 {
			return pid, done
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal("the reader's statement never showed up in pg_stat_activity")
	return 0, nil
}

func wantInfra(t *testing.T, what string, err error, detail string) {
	t.Helper()
	var ee *sqlgym.ExecError
	if !sqlgym.IsInfra(err) || errors.As(err, &ee) || errors.Is(err, sqlgym.ErrTimeout) {
		t.Errorf("%s: want an InfraError, got %T %v", what, err, err)
		return
	}
	if !strings.Contains(err.Error(), detail) {
		t.Errorf("%s: error does not say what happened (%q): %v", what, detail, err)
	}
}

// TestAdministratorActionsAreInfra reproduces, on the real server, what
// an administrator or a migration does to a running statement, with a
// reader set up by the recipe: each is an InfraError saying what happened,
// never the model's error or timeout.
func TestAdministratorActionsAreInfra(t *testing.T) {
	s := newHardenedSandbox(t, enginetest.Fixture())
	eng := s.open(t, Options{MaxConns: 2})
	lim := sqlgym.Limits{Timeout: 20 * time.Second}

	t.Run("terminate", func(t *testing.T) {
		pid, done := startSlow(t, s, eng, lim)
		testenv.PostgresExec(t, s.admin, "SELECT pg_terminate_backend("+itoa(pid)+")")
		wantInfra(t, "pg_terminate_backend by a superuser", waitErr(t, done), "ended the session")
	})
	t.Run("cancel", func(t *testing.T) {
		pid, done := startSlow(t, s, eng, lim)
		testenv.PostgresExec(t, s.admin, "SELECT pg_cancel_backend("+itoa(pid)+")")
		err := waitErr(t, done)
		wantInfra(t, "pg_cancel_backend by a superuser", err, "cancelled the statement")
	})
	t.Run("lock", func(t *testing.T) {
		// A migration holds ACCESS EXCLUSIVE on people in an open
		// transaction on a second connection.
		ctx := context.Background()
		mig, err := pgx.Connect(ctx, s.admin)
		if err != nil {
			t.Fatal(err)
		}
		defer mig.Close(ctx)
		tx, err := mig.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback(ctx)
		if _, err := tx.Exec(ctx, "LOCK TABLE "+pgx.Identifier{s.schema, "people"}.Sanitize()+" IN ACCESS EXCLUSIVE MODE"); err != nil {
			t.Fatal(err)
		}
		_, err = eng.Query(ctx, `SELECT count(*) FROM people`, sqlgym.Limits{Timeout: time.Second})
		wantInfra(t, "a table locked by a migration", err, "lock_timeout")
		// Tables nobody locked still work meanwhile.
		if _, err := eng.Query(ctx, `SELECT count(*) FROM nums`, sqlgym.Limits{Timeout: time.Second}); err != nil {
			t.Errorf("unlocked table: %v", err)
		}
	})
	t.Run("revoked_grant", func(t *testing.T) {
		people := pgx.Identifier{s.schema, "people"}.Sanitize()
		role := pgx.Identifier{s.role}.Sanitize()
		testenv.PostgresExec(t, s.admin, "REVOKE SELECT ON "+people+" FROM "+role)
		_, err := eng.Query(context.Background(), `SELECT name FROM people`, sqlgym.Limits{})
		wantInfra(t, "a revoked grant on a task table", err, "lost SELECT on "+s.schema+".people")
		// A system object the reader may not read stays the model's own
		// forbidden error, even while the task's grants are broken.
		_, err = eng.Query(context.Background(), `SELECT rolpassword FROM pg_authid`, sqlgym.Limits{})
		var ee *sqlgym.ExecError
		if !errors.As(err, &ee) || ee.Kind != sqlgym.ErrKindForbidden || sqlgym.IsInfra(err) {
			t.Errorf("pg_authid: want a forbidden ExecError, got %T %v", err, err)
		}
		testenv.PostgresExec(t, s.admin, "GRANT SELECT ON "+people+" TO "+role)
		if _, err := eng.Query(context.Background(), `SELECT name FROM people`, sqlgym.Limits{}); err != nil {
			t.Errorf("after GRANT back: %v", err)
		}
	})
	t.Run("revoked_schema", func(t *testing.T) {
		sc, role := pgx.Identifier{s.schema}.Sanitize(), pgx.Identifier{s.role}.Sanitize()
		testenv.PostgresExec(t, s.admin, "REVOKE USAGE ON SCHEMA "+sc+" FROM "+role)
		_, err := eng.Query(context.Background(), `SELECT * FROM `+sc+`.people`, sqlgym.Limits{})
		wantInfra(t, "a revoked USAGE on the task's schema", err, "may not use the task's schema")
		testenv.PostgresExec(t, s.admin, "GRANT USAGE ON SCHEMA "+sc+" TO "+role)
	})
	// After all of it the pool still serves statements.
	for i := 0; i < 4; i++ {
		if _, err := eng.Query(context.Background(), `SELECT 1`, sqlgym.Limits{}); err != nil {
			t.Fatalf("after the administrator's actions: %v", err)
		}
	}
}

// TestTerminationBlamedWhenRoleCanSignal is the other side of the rule:
// a reader that may still call pg_terminate_backend (no recipe REVOKE)
// could have ended its own session, so when the server is still up the
// termination is the statement's error, with a message naming the fix.
func TestTerminationBlamedWhenRoleCanSignal(t *testing.T) {
	s := newSandbox(t, enginetest.Fixture())
	eng := s.open(t, Options{MaxConns: 2})
	if !eng.canSignal {
		t.Skip("PUBLIC may not execute pg_terminate_backend in this database")
	}
	pid, done := startSlow(t, s, eng, sqlgym.Limits{Timeout: 20 * time.Second})
	testenv.PostgresExec(t, s.admin, "SELECT pg_terminate_backend("+itoa(pid)+")")
	err := waitErr(t, done)
	var ee *sqlgym.ExecError
	if !errors.As(err, &ee) || sqlgym.IsInfra(err) || !strings.Contains(ee.Msg, "revoke pg_cancel_backend and pg_terminate_backend") {
		t.Errorf("want an ExecError naming the recipe, got %T %v", err, err)
	}
}

func waitErr(t *testing.T, done <-chan error) error {
	t.Helper()
	select {
	case err := <-done:
		return err
	case <-time.After(30 * time.Second):
		t.Fatal("the statement did not return")
		return nil
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
