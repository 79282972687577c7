package postgres

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/engine/enginetest"
	"github.com/sqlgym/sqlgym/internal/testenv"
)

// TestPoolRespectsConnectionLimit checks that the pool is sized under
// the role's CONNECTION LIMIT (one below it, for the engine's own probe),
// so a burst of statements never draws "too many connections".
func TestPoolRespectsConnectionLimit(t *testing.T) {
	s := newSandbox(t, enginetest.Fixture())
	testenv.PostgresExec(t, s.admin, "ALTER ROLE "+pgx.Identifier{s.role}.Sanitize()+" CONNECTION LIMIT 3")
	eng := s.open(t, Options{MaxConns: 8})
	if eng.maxConns != 2 {
		t.Fatalf("pool size %d under CONNECTION LIMIT 3, want 2", eng.maxConns)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 12)
	for i := 0; i < 12; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := eng.Query(context.Background(), `SELECT count(*) FROM nums a, nums b WHERE a.n % 7 = b.n % 5`, sqlgym.Limits{Timeout: 20 * time.Second})
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Errorf("statement under the connection limit: %v", err)
		}
	}
}

// TestTooManyConnectionsIsInfra fills the role's connection limit from
// outside the engine: the next statement that needs a new connection gets
// 53300, which is the database's state, never the model's error.
func TestTooManyConnectionsIsInfra(t *testing.T) {
	s := newSandbox(t, enginetest.Fixture())
	testenv.PostgresExec(t, s.admin, "ALTER ROLE "+pgx.Identifier{s.role}.Sanitize()+" CONNECTION LIMIT 2")
	eng := s.open(t, Options{})
	// Drop the engine's pooled connection, then take both slots.
	testenv.PostgresExec(t, s.admin, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = '"+s.role+"'")
	ctx := context.Background()
	var hold []*pgx.Conn
	defer func() {
		for _, c := range hold {
			c.Close(ctx)
		}
	}()
	deadline := time.Now().Add(time.Minute) // a hang watchdog: the backend exits in milliseconds
	for len(hold) < 2 && time.Now().Before(deadline) {
		c, err := pgx.Connect(ctx, s.reader)
		if err != nil {
			// The terminated backend may not have exited yet.
			time.Sleep(50 * time.Millisecond)
			continue
		}
		hold = append(hold, c)
	}
	if len(hold) < 2 {
		t.Fatal("could not take the role's two connections")
	}
	_, err := eng.Query(ctx, `SELECT 1`, sqlgym.Limits{})
	wantInfra(t, "the role's connection limit reached", err, "too many connections")
	hold[0].Close(ctx)
	hold = hold[1:]
	deadline = time.Now().Add(time.Minute) // a hang watchdog, as above
	for {
		if _, err = eng.Query(ctx, `SELECT 1`, sqlgym.Limits{}); err == nil || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err != nil {
		t.Errorf("after a slot came free: %v", err)
	}
}

// TestWorkMemPinned checks that work_mem is the engine's in every
// statement, whatever the role's own setting, and that a statement cannot
// raise it: SET is refused by the screen and set_config by the recipe.
func TestWorkMemPinned(t *testing.T) {
	s := newHardenedSandbox(t, enginetest.Fixture())
	testenv.PostgresExec(t, s.admin, "ALTER ROLE "+pgx.Identifier{s.role}.Sanitize()+" SET work_mem = '1GB'")
	eng := s.open(t, Options{})
	res, err := eng.Query(context.Background(), `SELECT current_setting('work_mem') AS w`, sqlgym.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	enginetest.ExpectRows(t, res, []string{"w"}, [][]sqlgym.Value{{sqlgym.Text(DefaultWorkMem)}})
	eng.unscreened = true
	_, err = eng.Query(context.Background(), `SELECT set_config('work_mem', '1GB', true)`, sqlgym.Limits{})
	var ee *sqlgym.ExecError
	if !errors.As(err, &ee) || ee.Kind != sqlgym.ErrKindForbidden {
		t.Errorf("set_config unscreened on a hardened database: want forbidden, got %v", err)
	}
}

// TestTempFileLimit checks the bound a superuser sets on the role: a
// sort that spills past temp_file_limit fails at once as too large,
// instead of filling the disk until the time limit.
func TestTempFileLimit(t *testing.T) {
	s := newSandbox(t, enginetest.Fixture())
	testenv.PostgresExec(t, s.admin, "ALTER ROLE "+pgx.Identifier{s.role}.Sanitize()+" SET temp_file_limit = '1MB'")
	eng := s.open(t, Options{})
	_, err := eng.Query(context.Background(), `SELECT count(DISTINCT a.n::text || b.label) FROM nums a, nums b`, sqlgym.Limits{Timeout: 20 * time.Second})
	if !errors.Is(err, sqlgym.ErrTooLarge) || !strings.Contains(err.Error(), "temp_file_limit") {
		t.Errorf("sort past temp_file_limit: want ErrTooLarge naming temp_file_limit, got %T %v", err, err)
	}
	if _, err := eng.Query(context.Background(), `SELECT count(*) FROM nums`, sqlgym.Limits{}); err != nil {
		t.Errorf("after the refused sort: %v", err)
	}
}

// TestNULRefused checks that SQL with a NUL byte never reaches the
// server, screen or no screen: the protocol would cut it there.
func TestNULRefused(t *testing.T) {
	s := newSandbox(t, enginetest.Fixture())
	eng := s.open(t, Options{})
	for _, unscreened := range []bool{false, true} {
		eng.unscreened = unscreened
		for _, sql := range []string{"SELECT 1\x00; DELETE FROM people", "\x00", "SELECT 'a\x00b'"} {
			_, err := eng.Query(context.Background(), sql, sqlgym.Limits{})
			var ee *sqlgym.ExecError
			if !errors.As(err, &ee) || ee.Kind != sqlgym.ErrKindSyntax || !strings.Contains(ee.Msg, "NUL byte") {
				t.Errorf("%q (unscreened %v): want a syntax ExecError about the NUL byte, got %T %v", sql, unscreened, err, err)
			}
		}
	}
}

// TestAbandonedBackendsHoldSlots runs statements that ignore cancel
// requests (a long LIKE on a 100,000-character text column, which the
// screen lets through) until the engine abandons them, then a burst of small
// statements: those must wait for the abandoned backends rather than open
// connections past the role's limit, so none fails with "too many
// connections" and the role never holds more backends than its limit.
func TestAbandonedBackendsHoldSlots(t *testing.T) {
	s := newSandbox(t, append(enginetest.Fixture(), bigText))
	testenv.PostgresExec(t, s.admin, "ALTER ROLE "+pgx.Identifier{s.role}.Sanitize()+" CONNECTION LIMIT 3")
	eng := s.open(t, Options{MaxConns: 8, NoLoadRetry: true})
	// A long text column, not string_agg or long literals (the screen
	// refuses a LIKE over those): as deaf to cancels.
	const deaf = `SELECT s LIKE p FROM big`

	stop := make(chan struct{})
	peak := make(chan int64, 1)
	go func() {
		var most int64
		defer func() { peak <- most }()
		for {
			select {
			case <-stop:
				return
			case <-time.After(50 * time.Millisecond):
			}
			n, err := adminIntErr(s.admin, `SELECT count(*) FROM pg_stat_activity WHERE usename = $1`, s.role)
			if err != nil { // off the test goroutine: t.Error, not t.Fatal
				t.Error(err)
				return
			}
			most = max(most, n)
		}
	}()

	var wg sync.WaitGroup
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := eng.Query(context.Background(), deaf, sqlgym.Limits{Timeout: 300 * time.Millisecond})
			if !errors.Is(err, sqlgym.ErrTimeout) {
				t.Errorf("cancel-deaf statement: want ErrTimeout, got %v", err)
			}
		}()
	}
	wg.Wait()
	abandoned := adminInt(t, s.admin, `SELECT count(*) FROM pg_stat_activity WHERE usename = $1 AND state = 'active'`, s.role)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	errs := make(chan error, 6)
	for i := 0; i < 6; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := eng.Query(ctx, `SELECT count(*) FROM people`, sqlgym.Limits{})
			errs <- err
		}()
	}
	wg.Wait()
	close(stop)
	close(errs)
	for err := range errs {
		if err != nil {
			t.Errorf("statement after abandoned backends: %v", err)
		}
	}
	if most := <-peak; most > 3 {
		t.Errorf("the role held %d backends, its limit is 3", most)
	}
	t.Logf("%d backends were still running the abandoned statements", abandoned)
	if abandoned == 0 {
		t.Log("the abandoned statements had already ended: the server was fast enough to make this test prove little")
	}
}

// bigText is a table holding a 100,000-character text and a 10,002-
// character pattern: a LIKE of one against the other ignores cancels for
// seconds, and the screen cannot see it (the data, not the SQL, is long).
const bigText = `CREATE TABLE big AS SELECT repeat('a', 100000) AS s, '%' || repeat('a', 10000) || 'b' AS p`
