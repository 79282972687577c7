package sqltext

import (
	"reflect"
	"testing"
)

func TestSplitStatements(t *testing.T) {
	cases := []struct {
		sql  string
		want []string
	}{
		{"SELECT 1", []string{"SELECT 1"}},
		{"  SELECT 1 ;  ", []string{"SELECT 1"}},
		{"SELECT 1; SELECT 2;", []string{"SELECT 1", "SELECT 2"}},
		{"SELECT ';' ; SELECT \"a;b\"", []string{"SELECT ';'", `SELECT "a;b"`}},
		{"SELECT $$;$$ -- ;\n; /* ; */", []string{"SELECT $$;$$"}},
		{";;; -- only a comment\n;/* x */;", nil},
		{"-- lead\nSELECT a /* mid */ FROM t -- tail\n", []string{"SELECT a /* mid */ FROM t"}},
		{"SELECT (1; DROP TABLE t", []string{"SELECT (1", "DROP TABLE t"}},
		{"SELECT 'open;", []string{"SELECT 'open;"}},
		{"", nil},
	}
	for _, c := range cases {
		got := SplitStatements(c.sql)
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("SplitStatements(%q) = %q, want %q", c.sql, got, c.want)
		}
		if n := CountStatements(c.sql); n != len(c.want) {
			t.Errorf("CountStatements(%q) = %d, want %d", c.sql, n, len(c.want))
		}
	}
}

func TestTrimStatement(t *testing.T) {
	cases := []struct{ in, want string }{
		{"  SELECT 1;  ", "SELECT 1"},
		{"SELECT 1;;\n;", "SELECT 1"},
		{"-- find them\nSELECT a\nFROM t; -- done", "SELECT a\nFROM t"},
		{"SELECT 1; SELECT 2;", "SELECT 1; SELECT 2"},
		{"SELECT ';'", "SELECT ';'"},
		{"/* nothing */ ;", ""},
		{"", ""},
	}
	for _, c := range cases {
		if got := TrimStatement(c.in); got != c.want {
			t.Errorf("TrimStatement(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestLooksLikeSQL(t *testing.T) {
	cases := []struct {
		s    string
		want bool
	}{
		{"SELECT 1", true},
		{"  select a from t", true},
		{"-- the answer\n/* x */ WITH x AS (SELECT 1) SELECT * FROM x", true},
		{"VALUES (1), (2)", true},
		{"((SELECT a FROM t) UNION (SELECT b FROM u))", true},
		{"selection of rows", false},
		{"DELETE FROM t", false},
		{"The query is SELECT 1", false},
		{"'SELECT 1'", false},
		{"", false},
		{"-- SELECT 1", false},
	}
	for _, c := range cases {
		if got := LooksLikeSQL(c.s); got != c.want {
			t.Errorf("LooksLikeSQL(%q) = %v, want %v", c.s, got, c.want)
		}
	}
}

// SplitStatements returns the statements of sql, cut at every semicolon
// outside strings, identifiers and comments. Each is trimmed of the white
// space and comments around it (comments inside are kept); empty and
// comment-only statements are left out. A semicolon inside parentheses
// still separates, as every engine here reads it, so an unbalanced text
// cannot hide a second statement.
func SplitStatements(sql string) []string {
	var out []string
	first, last := -1, -1
	flush := func() {
		if first >= 0 {
			out = append(out, sql[first:last])
		}
		first, last = -1, -1
	}
	for _, t := range Tokens(sql) {
		switch {
		case t.IsPunct(";"):
			flush()
		case t.Significant():
			if first < 0 {
				first = t.Pos
			}
			last = t.End()
		}
	}
	flush()
	return out
}
