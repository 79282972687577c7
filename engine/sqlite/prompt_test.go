package sqlite

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym"
)

// promptRow is one row of r6's shape (a heavy call per row of an endless
// recursive CTE) at half its size: about 12 MB allocated and some 30 ms
// of CPU per row, in a few VM steps (and no bounded function, which
// would check the caller itself), so the progress handler's next tick
// (every 1,000 steps) is a hundred rows away.
const promptRow = `SELECT count(hex(randomblob(4000000))) FROM r`

// perRowSteps is what one row of promptRow charges: the difference
// between runs of 2 and 4 rows, which are deterministic.
func perRowSteps(t *testing.T, eng *Engine) int64 {
	t.Helper()
	var got [2]int64
	for i, n := range []int{2, 4} {
		sql := fmt.Sprintf(`WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r WHERE i < %d) `, n) + promptRow
		_, st, err := eng.QueryStats(context.Background(), sql, sqlgym.Limits{VMSteps: 1 << 40, SafetyNet: time.Minute})
		if err != nil {
			t.Fatalf("%d rows: %v", n, err)
		}
		got[i] = st.VMSteps
	}
	return (got[1] - got[0]) / 2
}

// TestHeavyRowsNoticeTheCallerPromptly: a statement whose every row is one
// long function call stops within a few rows of its caller's deadline and
// of the safety net, not at the progress handler's next tick (r6 was
// answered 35 s after its request's deadline). The assertion counts rows
// (charged work), not time: the old handler-only checks ran 100 rows or
// more, which is seconds even on an idle machine.
func TestHeavyRowsNoticeTheCallerPromptly(t *testing.T) {
	eng, _ := newDB(t, Options{PoolSize: 1}, `CREATE TABLE t (a INTEGER)`)
	per := perRowSteps(t, eng)
	if per < 1_000_000 {
		t.Fatalf("one row charges %d steps, want the bytes of its 12 MB", per)
	}
	const maxRows = 30
	cases := []struct {
		name  string
		ctx   func() (context.Context, context.CancelFunc)
		lim   sqlgym.Limits
		check func(error) bool
	}{
		{"caller_deadline", func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), 100*time.Millisecond)
		}, sqlgym.Limits{VMSteps: 1 << 40, SafetyNet: time.Hour}, func(err error) bool {
			return errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, sqlgym.ErrTimeout) && !sqlgym.IsInfra(err)
		}},
		{"caller_cancel", func() (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(100*time.Millisecond, cancel)
			return ctx, cancel
		}, sqlgym.Limits{VMSteps: 1 << 40, SafetyNet: time.Hour}, func(err error) bool {
			return errors.Is(err, context.Canceled) && !sqlgym.IsInfra(err)
		}},
		{"safety_net", func() (context.Context, context.CancelFunc) {
			return context.Background(), func() {}
		}, sqlgym.Limits{VMSteps: 1 << 40, SafetyNet: 100 * time.Millisecond}, func(err error) bool {
			return errors.Is(err, sqlgym.ErrSafetyNet) && sqlgym.IsInfra(err)
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := c.ctx()
			defer cancel()
			_, st, err := eng.QueryStats(ctx, forever+promptRow, c.lim)
			if !c.check(err) {
				t.Fatalf("got %v", err)
			}
			if rows := st.VMSteps / per; rows > maxRows {
				t.Errorf("stopped after about %d rows (%d steps, %v), want at most %d", rows, st.VMSteps, st.Elapsed, maxRows)
			}
			// The connection is reused: the interrupt must not stop the
			// next statement.
			if _, err := eng.Query(context.Background(), `SELECT 1`, sqlgym.Limits{}); err != nil {
				t.Fatalf("next statement: %v", err)
			}
		})
	}
}
