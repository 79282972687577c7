package sqlite

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym"
)

func manyWindows(n int) string {
	var b strings.Builder
	b.WriteString("SELECT n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, ", sum(n) OVER (ORDER BY n ROWS BETWEEN %d PRECEDING AND CURRENT ROW) AS w%d", i, i)
	}
	b.WriteString(" FROM nums")
	return b.String()
}

// TestManyWindowsRefusedBeforePreparing: past maxWindows window functions
// a statement is the model's error without SQLite preparing it (1,200 took
// 20-40 s to prepare); at the bound it runs. What the counter skips is
// checked on text that names OVER only in strings, identifiers and
// comments.
func TestManyWindowsRefusedBeforePreparing(t *testing.T) {
	eng, _ := newDB(t, Options{PoolSize: 1}, `CREATE TABLE nums (n INTEGER)`, `INSERT INTO nums VALUES (1), (2), (3)`)
	res, err := eng.Query(context.Background(), manyWindows(maxWindows), sqlgym.Limits{})
	if err != nil || len(res.Rows) != 3 || len(res.Columns) != maxWindows+1 {
		t.Fatalf("%d windows: %v %v", maxWindows, err, res)
	}
	for _, n := range []int{maxWindows + 1, 1200} {
		_, st, err := eng.QueryStats(context.Background(), manyWindows(n), sqlgym.Limits{})
		var ee *sqlgym.ExecError
		if !errors.As(err, &ee) || !strings.Contains(ee.Msg, "window functions") || sqlgym.IsInfra(err) {
			t.Fatalf("%d windows: want the model's error naming window functions, got %v", n, err)
		}
		if st.VMSteps != 0 {
			t.Errorf("%d windows: %d steps charged, want none (refused before preparing)", n, st.VMSteps)
		}
	}
	for _, c := range []struct {
		sql  string
		want int
	}{
		{"SELECT 'over over' AS \"over\", [over], `over` -- over\n/* over */", 0},
		{"SELECT 'it''s over' , x.over, overt, _over, over_, over9", 1},
		{"SELECT rank() OVER w, sum(a) oVeR (PARTITION BY b) FROM t WINDOW w AS (ORDER BY a)", 2},
		{"SELECT 'unclosed over", 0},
	} {
		if got := countOver(c.sql); got != c.want {
			t.Errorf("countOver(%q) = %d, want %d", c.sql, got, c.want)
		}
	}
}
