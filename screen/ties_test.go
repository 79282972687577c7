package screen

import (
	"strings"
	"testing"
)

// TestNestedTieChecks writes a tie check for a LIMIT in a subquery, at
// any depth, and none for a subquery without one.
func TestNestedTieChecks(t *testing.T) {
	gold := `SELECT name FROM singer WHERE age = (SELECT age FROM (SELECT age FROM singer ORDER BY age LIMIT 1) AS x) AND id IN (SELECT id FROM singer WHERE age > 3)`
	ties := NestedTieChecks(gold)
	if len(ties) != 1 {
		t.Fatalf("got %d tie checks %v, want 1 (the innermost LIMIT)", len(ties), ties)
	}
	if ties[0].At != 1 || !strings.Contains(ties[0].SQL, "LIMIT 2") {
		t.Errorf("tie check %+v: want the keys of the first 2 rows and At 1", ties[0])
	}
	if got := NestedTieChecks(`SELECT name FROM singer ORDER BY age LIMIT 1`); len(got) != 0 {
		t.Errorf("a top-level LIMIT is TieCheck's, got %v", got)
	}
}
