package postgres

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/engine/enginetest"
)

// screenBypasses are the statements that got past the screen before it
// ended -- comments at a carriage return and saw attribute notation,
// (expr).f, as a call of f. Each reached a function the screen denies by
// name.
var screenBypasses = []enginetest.Hostile{
	{Name: "bypass_cr_comment_sleep", SQL: "SELECT 1 -- hidden\r, pg_sleep(100)"},
	{Name: "bypass_cr_comment_set_config", SQL: "SELECT 1 -- hidden\r, set_config('work_mem', '64GB', true)"},
	{Name: "bypass_cr_comment_query_to_xml", SQL: "SELECT 1 -- hidden\r, query_to_xml('SELECT pg_sleep(100)', true, false, '')"},
	{Name: "bypass_cr_comment_notify", SQL: "SELECT 1 -- hidden\r, pg_notify('evil', 'x')"},
	{Name: "bypass_cr_comment_lo_create", SQL: "SELECT 1 -- hidden\r, lo_create(0)"},
	{Name: "bypass_attr_sleep", SQL: `SELECT (100.0).pg_sleep`},
	{Name: "bypass_attr_sleep_spaced", SQL: `SELECT (100.0) . /* x */ pg_sleep`},
	{Name: "bypass_attr_sleep_quoted", SQL: `SELECT (x)."pg_sleep" FROM (VALUES (100.0)) v(x)`},
	{Name: "bypass_attr_sleep_unicode", SQL: `SELECT (x).U&"\0070g_sleep" FROM (VALUES (100.0)) v(x)`},
	{Name: "bypass_attr_advisory_lock", SQL: `SELECT (42::bigint).pg_advisory_lock`},
	{Name: "bypass_attr_lo_unlink", SQL: `SELECT (0::oid).lo_unlink`},
	{Name: "bypass_attr_read_file", SQL: `SELECT ('/etc/passwd'::text).pg_read_file`},
	{Name: "bypass_attr_cancel_siblings", SQL: `SELECT (pid).pg_cancel_backend FROM pg_stat_activity WHERE usename = current_user AND pid <> pg_backend_pid()`},
	{Name: "bypass_attr_terminate_siblings", SQL: `SELECT (pid).pg_terminate_backend FROM pg_stat_activity WHERE usename = current_user AND pid <> pg_backend_pid()`},
	{Name: "bypass_attr_ts_stat", SQL: `SELECT ('SELECT to_tsvector(name) FROM people'::text).ts_stat`},
	{Name: "bypass_replication_slot", SQL: `SELECT pg_create_physical_replication_slot('evil', true)`},
	{Name: "bypass_table_to_xml", SQL: `SELECT table_to_xml('people', true, false, '')`},
}

// TestScreenBypassesRefused runs each former bypass through the engine:
// the screen must refuse it as forbidden before the server sees it, so
// none waits or signals anything.
func TestScreenBypassesRefused(t *testing.T) {
	s := newSandbox(t, enginetest.Fixture())
	eng := s.open(t, Options{})
	for _, b := range screenBypasses {
		// The screen's own message shows the statement never reached the
		// server, whose refusal reads otherwise (TestRoleIsFirstLine).
		_, err := eng.Query(context.Background(), b.SQL, sqlgym.Limits{Timeout: 5 * time.Second})
		var ee *sqlgym.ExecError
		if !errors.As(err, &ee) || ee.Kind != sqlgym.ErrKindForbidden || !strings.Contains(ee.Msg, "not allowed in the sandbox") {
			t.Errorf("%s: want the screen's forbidden refusal, got %T %v", b.Name, err, err)
		}
	}
}

// TestRoleIsFirstLine switches the screen off on a database set up by
// the full recipe: each bypass must now fail on the server's permission
// check (the reader may no longer execute the function), not run.
func TestRoleIsFirstLine(t *testing.T) {
	s := newHardenedSandbox(t, enginetest.Fixture())
	eng := s.open(t, Options{})
	if eng.canSignal {
		t.Fatal("the recipe left the reader able to signal backends")
	}
	eng.unscreened = true
	for _, b := range screenBypasses {
		if b.Name == "bypass_attr_cancel_siblings" || b.Name == "bypass_attr_terminate_siblings" {
			// With no sibling session the call is never made; the direct
			// form below proves the permission.
			continue
		}
		// The server's refusal is the proof it did not run: a bypass
		// that ran would return rows or run into its 2 s limit.
		_, err := eng.Query(context.Background(), b.SQL, sqlgym.Limits{Timeout: 2 * time.Second})
		var ee *sqlgym.ExecError
		if !errors.As(err, &ee) || ee.Kind != sqlgym.ErrKindForbidden ||
			!strings.Contains(ee.Msg, "permission denied") && !strings.Contains(ee.Msg, "must be superuser or replication role") {
			t.Errorf("%s unscreened: want the server's permission refusal, got %T %v", b.Name, err, err)
		}
	}
	for _, sql := range []string{
		`SELECT pg_terminate_backend(pg_backend_pid())`,
		`SELECT pg_cancel_backend(pg_backend_pid())`,
		`SELECT pg_advisory_xact_lock(1)`,
		`SELECT lo_get(0)`,
		`SELECT query_to_xml('SELECT 1', true, false, '')`,
		`SELECT cursor_to_xml('c', 1, true, false, '')`,
		`SELECT pg_sleep_for('1 second')`,
		`SELECT txid_current()`,
	} {
		_, err := eng.Query(context.Background(), sql, sqlgym.Limits{Timeout: 2 * time.Second})
		var ee *sqlgym.ExecError
		if !errors.As(err, &ee) || ee.Kind != sqlgym.ErrKindForbidden || !strings.Contains(ee.Msg, "permission denied") {
			t.Errorf("%s unscreened: want the server's permission refusal, got %T %v", sql, err, err)
		}
	}
	// The engine's own session reset still works: queries keep running on
	// the same pooled connections.
	res, err := eng.Query(context.Background(), `SELECT count(*) AS n FROM people`, sqlgym.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	enginetest.ExpectRows(t, res, []string{"n"}, [][]sqlgym.Value{{sqlgym.Int(enginetest.PeopleRows)}})
}
