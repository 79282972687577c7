package sqltext

import (
	"strings"
	"testing"
)

var fuzzSeeds = []string{
	"SELECT a FROM t ORDER BY a",
	"select 'it''s', E'a\\'b', $$x$$, $t$ $$ $t$, \"q\"\"q\", `b`, [c d]",
	"select arr[1], [1,2], (x)[2] -- c\n/* a /* b */ c */",
	"WITH x AS (SELECT 1) SELECT * FROM x; SELECT 2;;",
	"a<-1 a<=b j->>'k' x::int :p @q ?1 $1 $n",
	"SELECT DISTINCT a FROM t WHERE a IS DISTINCT FROM b;  -- c\nSELECT 2",
	"'open", "\"open", "/* open", "$$ open", "[open", "E'\\",
	"1.e5 .5 0x1F 1_000 2.x 1..2",
	"{'a': 1} \\ \x00 \xff\xfe naïve",
	"U&'x' U&\"y\" u&",
}

func FuzzTokens(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, sql string) {
		checkCover(t, sql)
		if n, stmts := CountStatements(sql), SplitStatements(sql); n != len(stmts) {
			t.Fatalf("CountStatements = %d but SplitStatements gives %d", n, len(stmts))
		}
		for _, s := range SplitStatements(sql) {
			if s == "" || TrimStatement(s) != s {
				t.Fatalf("statement %q is not trimmed", s)
			}
		}
		trimmed := TrimStatement(sql)
		if TrimStatement(trimmed) != trimmed {
			t.Fatalf("TrimStatement not idempotent: %q", trimmed)
		}
		HasTopLevelOrderBy(sql)
		LooksLikeSQL(sql)
		if !strings.Contains(strings.ToLower(sql), "order by") && ContainsOrderByQuirk(sql) {
			t.Fatalf("ContainsOrderByQuirk true without the substring")
		}
		if rd := RemoveDistinct(sql); len(rd) > len(sql) {
			t.Fatalf("RemoveDistinct grew the text")
		}
	})
}

func FuzzNormalize(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, sql string) {
		n := Normalize(sql)
		if again := Normalize(n); again != n {
			t.Fatalf("Normalize not idempotent:\n in %q\n 1st %q\n 2nd %q", sql, n, again)
		}
		// Only spacing, comments, case and semicolons may change: the
		// strings and quoted identifiers come through in order.
		if a, b := literals(sql), literals(n); a != b {
			t.Fatalf("literals changed: %q -> %q", a, b)
		}
		if HasTopLevelOrderBy(sql) != HasTopLevelOrderBy(n) {
			t.Fatalf("HasTopLevelOrderBy changed by Normalize: %q -> %q", sql, n)
		}
		if CountStatements(sql) != CountStatements(n) {
			t.Fatalf("CountStatements changed by Normalize: %q -> %q", sql, n)
		}
	})
}

func literals(sql string) string {
	var b strings.Builder
	for _, t := range Tokens(sql) {
		if t.Kind == String || t.Kind == QuotedIdent {
			b.WriteString(t.Text)
			b.WriteByte(0)
		}
	}
	return b.String()
}
