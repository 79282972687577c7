package screen

import (
	"slices"
	"testing"
)

// TestOneRowGroupsProved: SUM against AVG over groups of one course
// (grouped by its key) or of one row picked by its key is proved; grouped
// by a column that repeats it is not, and the data tells them apart.
func TestOneRowGroupsProved(t *testing.T) {
	eng, s := proofDB(t,
		`CREATE TABLE course (course_id INTEGER PRIMARY KEY, dept TEXT, num_enrolled INTEGER)`,
		`INSERT INTO course VALUES (1, 'cs', 10), (2, 'cs', 30), (3, 'math', 5)`)
	for _, g := range []string{
		`SELECT course_id, SUM(num_enrolled) AS n FROM course GROUP BY course_id`,
		`SELECT SUM(num_enrolled) FROM course WHERE course_id = 2`,
	} {
		m := realMutant(t, g, SwapAggregate, s, "SUM", "AVG")
		if ok, why := Equivalent(g, m, s); !ok {
			t.Errorf("not proved %s: %s", g, why)
		}
	}
	g := `SELECT dept, SUM(num_enrolled) AS n FROM course GROUP BY dept`
	m := realMutant(t, g, SwapAggregate, s, "SUM", "AVG")
	if ok, why := Equivalent(g, m, s); ok {
		t.Errorf("proved over a repeating group key: %s", why)
	}
	if a, b := rowsOf(t, eng, g), rowsOf(t, eng, m.SQL); slices.Equal(a, b) {
		t.Errorf("the data does not tell them apart: %v", a)
	}
}
