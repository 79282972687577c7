package postgres

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/engine/enginetest"
)

// TestErrorKindsPostgres checks the SQLSTATE mapping on real server
// errors, with the screen on and, for the server's own refusals, off.
func TestErrorKindsPostgres(t *testing.T) {
	s := newSandbox(t, enginetest.Fixture())
	eng := s.open(t, Options{})
	raw := s.open(t, Options{})
	raw.unscreened = true
	cases := []struct {
		eng  *Engine
		sql  string
		kind sqlgym.ErrorKind
		msg  string
	}{
		{eng, `SELECT id FROM people WHERE 1`, sqlgym.ErrKindType, "argument of WHERE must be type boolean, not type integer"},
		{eng, `SELECT name + 1 FROM people`, sqlgym.ErrKindType, ""},
		{eng, `SELECT 'abc'::integer`, sqlgym.ErrKindType, `invalid input syntax for type integer: "abc"`},
		{eng, `SELECT no_such_fn(1)`, sqlgym.ErrKindType, "function no_such_fn(integer) does not exist"},
		{eng, `SELECT * FROM nosuch.people`, sqlgym.ErrKindNoTable, ""},
		{eng, `SELECT 1 / 0`, sqlgym.ErrKindOther, "division by zero"},
		{eng, `SELECT * FROM people p JOIN orders o ON id = id`, sqlgym.ErrKindOther, `column reference "id" is ambiguous`},
		{eng, `SELEC 1`, sqlgym.ErrKindSyntax, `syntax error at or near "SELEC"`},
		{eng, `SELECT * INTO evil FROM people`, sqlgym.ErrKindForbidden, "cannot execute SELECT INTO in a read-only transaction"},
		{raw, `SELECT 1; SELECT 2`, sqlgym.ErrKindMulti, multiStatementMsg},
		{raw, `DELETE FROM people`, sqlgym.ErrKindForbidden, "cannot execute DELETE in a read-only transaction"},
		{raw, `SELECT pg_read_file('/etc/passwd')`, sqlgym.ErrKindForbidden, "permission denied for function pg_read_file"},
		{raw, `COPY people TO '/tmp/sqlgym-never'`, sqlgym.ErrKindForbidden, ""},
		{raw, `COPY people TO PROGRAM 'true'`, sqlgym.ErrKindForbidden, ""},
		{raw, `SET ROLE postgres`, sqlgym.ErrKindForbidden, `permission denied to set role "postgres"`},
		{raw, `DO $$ BEGIN COMMIT; END $$`, sqlgym.ErrKindForbidden, "invalid transaction termination"},
		{raw, `VACUUM people`, sqlgym.ErrKindForbidden, "VACUUM cannot run inside a transaction block"},
	}
	for _, c := range cases {
		_, err := c.eng.Query(context.Background(), c.sql, sqlgym.Limits{})
		var ee *sqlgym.ExecError
		if !errors.As(err, &ee) {
			t.Errorf("%s: want ExecError %s, got %T %v", c.sql, c.kind, err, err)
			continue
		}
		if ee.Kind != c.kind || (c.msg != "" && ee.Msg != c.msg) || ee.Msg == "" {
			t.Errorf("%s: got %s %q, want %s %q", c.sql, ee.Kind, ee.Msg, c.kind, c.msg)
		}
		if sqlgym.IsInfra(err) {
			t.Errorf("%s: reported as infrastructure", c.sql)
		}
	}
	// The server accepts one statement followed by empty ones.
	if res, err := raw.Query(context.Background(), `SELECT 1 AS x;;`, sqlgym.Limits{}); err != nil {
		t.Errorf("SELECT 1;; : %v", err)
	} else {
		enginetest.ExpectRows(t, res, []string{"x"}, [][]sqlgym.Value{{sqlgym.Int(1)}})
	}
}

// TestCapsPostgres covers what is specific to this engine's caps: a single
// row bigger than MaxBytes is refused from its message header before the
// client allocates it, and stopping early leaves the connection usable.
func TestCapsPostgres(t *testing.T) {
	s := newSandbox(t, enginetest.Fixture())
	eng := s.open(t, Options{MaxConns: 1})
	ctx := context.Background()
	start := time.Now()
	_, err := eng.Query(ctx, `SELECT repeat('x', 50000000)`, sqlgym.Limits{MaxBytes: 1 << 20, Timeout: 10 * time.Second})
	if !errors.Is(err, sqlgym.ErrTooLarge) {
		t.Errorf("50 MB row under a 1 MiB cap: want ErrTooLarge, got %v", err)
	}
	t.Logf("50 MB row refused in %v: %v", time.Since(start), err)

	pid := func() int64 {
		res, err := eng.Query(ctx, `SELECT pg_backend_pid()`, sqlgym.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		return res.Rows[0][0].Int
	}
	before := pid()
	for i := 0; i < 5; i++ {
		res, err := eng.Query(ctx, `SELECT a.n FROM nums a, nums b`, sqlgym.Limits{StopAfter: 3})
		if err != nil || !res.Capped || len(res.Rows) != 3 {
			t.Fatalf("StopAfter 3: %v", err)
		}
		if _, err := eng.Query(ctx, `SELECT a.n FROM nums a, nums b`, sqlgym.Limits{MaxRows: 10}); !errors.Is(err, sqlgym.ErrTooLarge) {
			t.Fatalf("MaxRows 10: want ErrTooLarge, got %v", err)
		}
	}
	// The cancel requests landed on the statements they were meant for, so
	// the same session served everything.
	if after := pid(); after != before {
		t.Errorf("backend changed from %d to %d: capped statements cost a reconnect", before, after)
	}
}
