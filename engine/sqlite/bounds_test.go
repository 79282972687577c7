package sqlite

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym"
)

// TestBoundsStopSuperLinearCalls: each statement is one function call
// whose cost is the product of its arguments' sizes. Unbounded, each runs
// for minutes inside one VM step, where neither the budget nor the safety
// net can stop it (the safety net would at last report an InfraError
// after a minute); bounded, each is refused at once as the statement's
// own error.
func TestBoundsStopSuperLinearCalls(t *testing.T) {
	eng, _ := newDB(t, Options{}, `CREATE TABLE t (a INTEGER)`)
	for name, sql := range map[string]string{
		"like":    `SELECT printf('%.*c', 16000000, 'a') LIKE '%' || printf('%.*c', 9000, 'a') || 'b'`,
		"glob":    `SELECT printf('%.*c', 16000000, 'a') GLOB '*' || printf('%.*c', 9000, 'a') || 'b'`,
		"instr":   `SELECT instr(printf('%.*c', 16000000, 'a'), printf('%.*c', 8000000, 'a') || 'b')`,
		"replace": `SELECT length(replace(printf('%.*c', 16000000, 'a'), printf('%.*c', 8000000, 'a') || 'b', 'x'))`,
		"ltrim":   `SELECT length(ltrim(printf('%.*c', 4000000, 'a'), printf('%.*c', 4000000, 'b') || 'a'))`,
		"rtrim":   `SELECT length(rtrim(printf('%.*c', 4000000, 'a'), printf('%.*c', 4000000, 'b') || 'a'))`,
		"trim":    `SELECT length(trim(printf('%.*c', 4000000, 'a'), printf('%.*c', 4000000, 'b') || 'a'))`,
	} {
		t.Run(name, func(t *testing.T) {
			_, st, err := eng.QueryStats(context.Background(), sql, sqlgym.Limits{})
			var ee *sqlgym.ExecError
			if !errors.As(err, &ee) || !strings.Contains(ee.Msg, "too costly") {
				t.Fatalf("want a 'too costly' ExecError, got %v", err)
			}
			t.Logf("refused after %v: %v", st.Elapsed, err)
		})
	}
}

// TestBoundedCallsChargeTheBudget: a call under the bound runs, and the
// work it does inside its one VM step counts against the step budget.
func TestBoundedCallsChargeTheBudget(t *testing.T) {
	eng, _ := newDB(t, Options{}, `CREATE TABLE t (a INTEGER)`)
	// 1,000 bytes of pattern against 100,000 of subject: 1e8 < the bound.
	sql := `SELECT printf('%.*c', 100000, 'a') LIKE '%' || printf('%.*c', 998, 'a') || 'b' AS x`
	res, st, err := eng.QueryStats(context.Background(), sql, sqlgym.Limits{})
	if err != nil {
		t.Fatalf("LIKE under the bound: %v", err)
	}
	if res.Rows[0][0].Int != 0 {
		t.Errorf("LIKE = %v, want 0", res.Rows[0][0])
	}
	if charge := int64(1000*100000) / patternCostPerStep; st.VMSteps < charge {
		t.Errorf("the LIKE call charged %d steps, want at least %d", st.VMSteps, charge)
	}
	t.Logf("LIKE of cost 1e8: %d steps, %v", st.VMSteps, st.Elapsed)
	// The same call under a budget smaller than its charge is a timeout.
	_, _, err = eng.QueryStats(context.Background(),
		`SELECT count(*) FROM (SELECT 1 UNION ALL SELECT 2) WHERE printf('%.*c', 100000, 'a') LIKE '%' || printf('%.*c', 998, 'a') || 'b'`,
		sqlgym.Limits{VMSteps: 1_000_000})
	if !errors.Is(err, sqlgym.ErrStepBudget) {
		t.Errorf("two LIKE calls charging 12.5M steps under a 1M budget: want ErrStepBudget, got %v", err)
	}
}

// TestAbsentFunctions: this build has no REGEXP and no decimal extension,
// like Python's sqlite3, which BIRD's scorer uses.
func TestAbsentFunctions(t *testing.T) {
	eng, _ := newDB(t, Options{}, `CREATE TABLE t (a INTEGER)`)
	for _, sql := range []string{`SELECT 'a' REGEXP 'a'`, `SELECT regexp('a', 'a')`, `SELECT decimal_add('1', '2')`, `SELECT decimal('1.5')`} {
		_, err := eng.Query(context.Background(), sql, sqlgym.Limits{})
		var ee *sqlgym.ExecError
		if !errors.As(err, &ee) || !strings.Contains(ee.Msg, "no such function") {
			t.Errorf("%s: want 'no such function', got %v", sql, err)
		}
	}
}

// TestLikePrefixIndexLost measures what overriding like() costs: SQLite's
// LIKE optimisation (a prefix pattern on a column with a NOCASE index
// becomes an index range) applies only to the built-in function. The
// result must be the same; the steps show the optimisation's absence.
func TestLikePrefixIndexLost(t *testing.T) {
	_, path := newDB(t, Options{},
		`CREATE TABLE c (id INTEGER PRIMARY KEY, name TEXT COLLATE NOCASE)`,
		`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 100000) INSERT INTO c SELECT i, 'name' || i FROM n`,
		`CREATE INDEX c_name ON c (name)`)
	eng, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	raw, err := OpenRaw(path)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	q := `SELECT count(*) FROM c WHERE name LIKE 'name1234%'`
	m, err := raw.Measure(q)
	if err != nil {
		t.Fatal(err)
	}
	res, st, err := eng.QueryStats(context.Background(), q, sqlgym.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Rows[0][0].Int != 11 {
		t.Errorf("count = %v, want 11", res.Rows[0][0])
	}
	t.Logf("prefix LIKE on a NOCASE-indexed column, 100,000 rows: built-in %d steps (%v CPU), sandbox %d steps (%v wall)",
		m.VMSteps, m.CPU, st.VMSteps, st.Elapsed)
}
