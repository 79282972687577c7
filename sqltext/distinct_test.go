package sqltext

import "testing"

func TestRemoveDistinct(t *testing.T) {
	cases := []struct{ in, want string }{
		{"SELECT DISTINCT name FROM singer", "SELECT  name FROM singer"},
		{"select count(distinct x) from t", "select count( x) from t"},
		{"SELECT DISTINCT(a) FROM t", "SELECT (a) FROM t"},
		{"select a from t where a is distinct from b", "select a from t where a is  from b"},
		{"SELECT \"distinct\", [distinct], `distinct`, 'distinct' FROM t -- distinct", "SELECT \"distinct\", [distinct], `distinct`, 'distinct' FROM t -- distinct"},
		{"SELECT t.distinct FROM t", "SELECT t. FROM t"},
		{"SELECT distinct_count, indistinct FROM t", "SELECT distinct_count, indistinct FROM t"},
		{"SELECT DISTINCT a FROM t; SELECT DISTINCT b", "SELECT  a FROM t; "},
		{"SELECT a FROM t;  -- c\nSELECT 2", "SELECT a FROM t;  -- c\n"},
		{"SELECT a FROM t;\nSELECT 2", "SELECT a FROM t;"},
		{";select distinct 1", ";"},
		{"SELECT (1; SELECT DISTINCT 2", "SELECT (1; SELECT  2"},
		{"SELECT CASE WHEN a THEN 1 END FROM t; SELECT 2", "SELECT CASE WHEN a THEN 1 END FROM t; "},
		{"", ""},
		{"   ", "   "},
	}
	for _, c := range cases {
		if got := RemoveDistinct(c.in); got != c.want {
			t.Errorf("RemoveDistinct(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
	}
}
