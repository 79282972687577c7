package postgres

import (
	"fmt"
	"strings"
	"testing"
)

// The planner cannot be stopped on hundreds of CTEs or window functions
// (complexity.go), so such statements are refused before the server sees
// them; ordinary ones, including CAST(... AS ...) and column aliases, are
// not counted.
func TestRefuseUnplannable(t *testing.T) {
	ctes := func(n int, mat string) string {
		var b strings.Builder
		b.WriteString("WITH c0 AS " + mat + "(SELECT 1 AS x)")
		for i := 1; i < n; i++ {
			fmt.Fprintf(&b, ", c%d AS %s(SELECT x + 1 AS x FROM c%d)", i, mat, i-1)
		}
		fmt.Fprintf(&b, " SELECT CAST(x AS text) AS y FROM c%d", n-1)
		return b.String()
	}
	windows := func(n int) string {
		w := make([]string, n)
		for i := range w {
			w[i] = fmt.Sprintf("sum(n) OVER (ORDER BY n) AS w%d", i)
		}
		return "SELECT " + strings.Join(w, ", ") + " FROM nums"
	}
	cases := []struct {
		name, sql string
		refused   bool
	}{
		{"100 ctes", ctes(maxCTEs, ""), false},
		{"101 ctes", ctes(maxCTEs+1, ""), true},
		{"101 materialized ctes", ctes(maxCTEs+1, "MATERIALIZED "), true},
		{"101 not materialized ctes", ctes(maxCTEs+1, "NOT MATERIALIZED "), true},
		{"500 windows", windows(maxWindows), false},
		{"501 windows", windows(maxWindows + 1), true},
		{"aliases and casts", "SELECT CAST(a AS int) AS x, b AS y FROM t AS u", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ee := refuseUnplannable(lex(c.sql))
			if (ee != nil) != c.refused {
				t.Fatalf("refused = %v (%v), want %v", ee != nil, ee, c.refused)
			}
			if ee != nil && !strings.Contains(ee.Msg, "too complex") {
				t.Errorf("message %q does not say why", ee.Msg)
			}
		})
	}
}
