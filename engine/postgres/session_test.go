package postgres

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/engine/enginetest"
)

// stateSQL reads the session state a statement could try to leave behind:
// read-only mode, role, settings, advisory locks, prepared statements,
// cursors and LISTEN channels.
const stateSQL = `SELECT current_setting('transaction_read_only') AS ro,
  current_setting('default_transaction_read_only') AS default_ro,
  current_user::text AS usr, session_user::text AS session_usr,
  current_setting('search_path') AS search_path,
  current_setting('statement_timeout') AS statement_timeout,
  current_setting('work_mem') AS work_mem,
  (SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid()) AS advisory_locks,
  (SELECT count(*) FROM pg_prepared_statements) AS prepared,
  (SELECT count(*) FROM pg_cursors) AS cursors,
  (SELECT count(*) FROM pg_listening_channels()) AS listening,
  (SELECT count(*) FROM pg_class WHERE relpersistence = 't') AS temp_relations`

// sessionHostile are statements that try to leave their transaction or
// change the session for the next statement.
var sessionHostile = []string{
	`COMMIT`,
	`ROLLBACK`,
	`BEGIN READ WRITE`,
	`START TRANSACTION READ WRITE`,
	`SET SESSION CHARACTERISTICS AS TRANSACTION READ WRITE`,
	`SET default_transaction_read_only = off`,
	`SET statement_timeout = 0`,
	`SET work_mem = '1GB'`,
	`SET search_path TO public`,
	`SET ROLE postgres`,
	`SET SESSION AUTHORIZATION postgres`,
	`RESET ALL`,
	`DISCARD ALL`,
	`PREPARE evil AS SELECT 1`,
	`DECLARE evil CURSOR WITH HOLD FOR SELECT 1`,
	`LISTEN evil`,
	`CREATE TEMP TABLE evil (a int)`,
	`SELECT set_config('default_transaction_read_only', 'off', false)`,
	`SELECT set_config('statement_timeout', '0', false)`,
	`SELECT set_config('search_path', 'public', false)`,
	`SELECT pg_advisory_lock(42)`,
	`SELECT pg_advisory_lock_shared(7), pg_try_advisory_lock(8)`,
	`SELECT pg_terminate_backend(pg_backend_pid())`,
	`SELECT pg_cancel_backend(pg_backend_pid())`,
}

// TestSessionStateAfterHostile runs each session-changing statement on a
// pool of one connection, then checks the next statement still runs read
// only, as the reader, with the sandbox's settings and nothing left over.
// Unscreened, the statements reach the server, so this also proves the
// server-side layers (read-only transaction, rollback, session reset)
// hold when the screen misses something.
func TestSessionStateAfterHostile(t *testing.T) {
	s := newSandbox(t, enginetest.Fixture())
	for _, unscreened := range []bool{false, true} {
		name := "screened"
		if unscreened {
			name = "unscreened"
		}
		t.Run(name, func(t *testing.T) {
			eng := s.open(t, Options{MaxConns: 1})
			eng.unscreened = unscreened
			lim := sqlgym.Limits{Timeout: 3 * time.Second}
			base := state(t, eng, lim)
			// The one cursor is the unnamed portal of the state query itself.
			want := map[string]string{"ro": "on", "default_ro": "on", "usr": s.role, "session_usr": s.role,
				"statement_timeout": "3s", "advisory_locks": "0", "prepared": "0", "cursors": "1", "listening": "0", "temp_relations": "0"}
			for k, v := range want {
				if base[k] != v {
					t.Fatalf("baseline %s = %q, want %q", k, base[k], v)
				}
			}
			for _, sql := range sessionHostile {
				_, err := eng.Query(context.Background(), sql, lim)
				if sqlgym.IsInfra(err) {
					t.Errorf("%s: infrastructure error %v", sql, err)
				}
				if !unscreened {
					var ee *sqlgym.ExecError
					if !errors.As(err, &ee) || ee.Kind != sqlgym.ErrKindForbidden {
						t.Errorf("%s: want a forbidden ExecError, got %v", sql, err)
					}
				}
				after := state(t, eng, lim)
				for k, v := range base {
					if after[k] != v {
						t.Errorf("after %s (err %v): %s = %q, was %q", sql, err, k, after[k], v)
					}
				}
			}
			if err := eng.pool.Ping(context.Background()); err != nil {
				t.Errorf("pool unusable: %v", err)
			}
		})
	}
	assertNoLeftovers(t, s)
}

func state(t *testing.T, eng *Engine, lim sqlgym.Limits) map[string]string {
	t.Helper()
	res, err := eng.Query(context.Background(), stateSQL, lim)
	if err != nil {
		t.Fatalf("state: %v", err)
	}
	if len(res.Rows) != 1 {
		t.Fatalf("state: %d rows", len(res.Rows))
	}
	m := map[string]string{}
	for i, c := range res.Columns {
		m[c] = res.Rows[0][i].String()
	}
	return m
}
