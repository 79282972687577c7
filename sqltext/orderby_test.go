package sqltext

import "testing"

func TestHasTopLevelOrderBy(t *testing.T) {
	cases := []struct {
		sql  string
		want bool
	}{
		{"SELECT a FROM t ORDER BY a", true},
		{"select a from t order   by a desc limit 3", true},
		{"SELECT a FROM t ORDER\n\tBY a", true},
		{"SELECT a FROM t ORDER /* why */ BY a", true},
		{"SELECT a FROM t", false},
		{"SELECT a FROM (SELECT a FROM t ORDER BY a) s", false},
		{"WITH x AS (SELECT a FROM t ORDER BY a) SELECT a FROM x", false},
		{"WITH x AS (SELECT a FROM t ORDER BY a) SELECT a FROM x ORDER BY a", true},
		{"SELECT a, row_number() OVER (ORDER BY b) FROM t", false},
		{"SELECT string_agg(x, ',' ORDER BY x) FROM t", false},
		{"SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY x) FROM t", false},
		{"SELECT a FROM t WINDOW w AS (ORDER BY a)", false},
		{"SELECT a FROM t UNION SELECT b FROM u ORDER BY 1", true},
		{"SELECT a FROM t WHERE s = 'order by'", false},
		{"SELECT a FROM t -- order by a", false},
		{"SELECT a FROM t /* ORDER BY a */", false},
		{`SELECT "order" FROM t`, false},
		{`SELECT a AS "ORDER BY" FROM t`, false},
		{"(SELECT a FROM t ORDER BY a)", true},
		{"((SELECT a FROM t ORDER BY a))", true},
		{"(SELECT a FROM t ORDER BY a) UNION (SELECT b FROM u)", false},
		{"SELECT a FROM t; SELECT a FROM t ORDER BY a", false},
		{";SELECT a FROM t ORDER BY a", true},
		{"SELECT a FROM t) ORDER BY a", true},
		{"SELECT ordered, by_x FROM t", false},
		{"", false},
	}
	for _, c := range cases {
		if got := HasTopLevelOrderBy(c.sql); got != c.want {
			t.Errorf("HasTopLevelOrderBy(%q) = %v, want %v", c.sql, got, c.want)
		}
	}
}

func TestContainsOrderByQuirk(t *testing.T) {
	cases := []struct {
		sql  string
		want bool
	}{
		{"SELECT a FROM t ORDER BY a", true},
		{"select a from t order by a", true},
		{"SELECT a FROM t OrDeR bY a", true},
		// The quirks the official scorer has, kept on purpose.
		{"SELECT a FROM t ORDER  BY a", false},
		{"SELECT a FROM t ORDER\nBY a", false},
		{"SELECT a FROM (SELECT a FROM t ORDER BY a)", true},
		{"SELECT rank() OVER (ORDER BY a) FROM t", true},
		{"SELECT a FROM t WHERE s = 'border by the sea'", true},
		{"SELECT a FROM t -- order by a", true},
		{"SELECT a FROM t", false},
		{"order b", false},
		{"", false},
	}
	for _, c := range cases {
		if got := ContainsOrderByQuirk(c.sql); got != c.want {
			t.Errorf("ContainsOrderByQuirk(%q) = %v, want %v", c.sql, got, c.want)
		}
	}
}
