package sqltext

import "testing"

func TestNormalize(t *testing.T) {
	cases := []struct{ in, want string }{
		{"SELECT  Name ,Age\nFROM   Singer  WHERE Age>20 ;", "select name, age from singer where age > 20"},
		{"select count(*) from t", "select count(*) from t"},
		{"SELECT COUNT ( * ) FROM T", "select count(*) from t"},
		{"SELECT a -- comment\nFROM /* c */ t;;", "select a from t"},
		{"SELECT 'ABC', \"MixedCase\", [Order Details], `Q` FROM t", "select 'ABC', \"MixedCase\", [Order Details], `Q` from t"},
		{"SELECT T1.Name, t2.* FROM a AS T1", "select t1.name, t2.* from a as t1"},
		{"SELECT x::INT, '1'::text, (a)::int", "select x::int, '1'::text, (a)::int"},
		{"select a - -1, a<-1, a < - 1", "select a - - 1, a < - 1, a < - 1"},
		{"select arr[1], arr [1], [1,2], (x)[2]", "select arr[1], arr [1], [1, 2], (x)[2]"},
		{"SELECT 1E5, 0XFF, .5", "select 1e5, 0xff, .5"},
		{"SELECT $$Keep  THIS$$, E'A\\'b'", "select $$Keep  THIS$$, E'A\\'b'"},
		{";;SELECT 1;;;SELECT 2;", "select 1; select 2"},
		{"SELECT a FROM t WHERE x IN (1,2)", "select a from t where x in(1, 2)"},
		{"-- nothing", ""},
		{"", ""},
	}
	for _, c := range cases {
		got := Normalize(c.in)
		if got != c.want {
			t.Errorf("Normalize(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
		if again := Normalize(got); again != got {
			t.Errorf("Normalize not idempotent on %q: %q then %q", c.in, got, again)
		}
	}
}

func TestNormalizeEquivalence(t *testing.T) {
	same := [][2]string{
		{"SELECT name FROM singer", "select   NAME\n  from Singer;"},
		{"SELECT count(*) FROM t WHERE a = 1", "SELECT COUNT (*) FROM t /* x */ WHERE a=1 -- y"},
		{"SELECT T1.a FROM t AS T1", "select t1 . a from t as t1"},
		{"SELECT a FROM t WHERE b<-1", "SELECT a FROM t WHERE b < -1"},
	}
	for _, p := range same {
		if a, b := Normalize(p[0]), Normalize(p[1]); a != b {
			t.Errorf("Normalize(%q) = %q but Normalize(%q) = %q", p[0], a, p[1], b)
		}
	}
	differ := [][2]string{
		{"SELECT 'ABC'", "SELECT 'abc'"},
		{`SELECT "Name" FROM t`, `SELECT "name" FROM t`},
		{"SELECT a FROM t WHERE b <= 1", "SELECT a FROM t WHERE b < = 1"},
		{"SELECT 1; SELECT 2", "SELECT 1 SELECT 2"},
	}
	for _, p := range differ {
		if a, b := Normalize(p[0]), Normalize(p[1]); a == b {
			t.Errorf("Normalize(%q) and Normalize(%q) are both %q", p[0], p[1], a)
		}
	}
}
