package postgres

import (
	"errors"
	"testing"

	"github.com/sqlgym/sqlgym"
)

// TestScreen checks the screen on its own, without a server: what it lets
// run, what it refuses and as what, and what it leaves to the server's
// parser.
func TestScreen(t *testing.T) {
	type want struct {
		v    verdict
		kind sqlgym.ErrorKind
	}
	run := want{v: verdictRun}
	ask := want{v: verdictAskOnly}
	refuse := func(k sqlgym.ErrorKind) want { return want{v: verdictRefuse, kind: k} }
	cases := []struct {
		sql  string
		want want
	}{
		{"SELECT 1", run},
		{"  select 1;", run},
		{"SELECT 1;;", run},
		{"((SELECT 1))", run},
		{"WITH x AS (SELECT 1) SELECT * FROM x", run},
		{"VALUES (1), (2)", run},
		{"TABLE people", run},
		{"-- c\n/* d /* nested */ */ SELECT 1 -- e", run},
		{"SELECT 'a;b', \"c;d\", $$e;f$$, $tag$ ; $ $tag$, E'g\\';h'", run},
		{"SELECT U&'\\0041;'", run},
		{"SELECT sleep_minutes, lo_limit, pg_sleep_count FROM t", run},
		{"WITH lo_x(a) AS (SELECT 1) SELECT a FROM lo_x", run},
		{"SELECT a$b FROM t", run},
		{"SELECT $1", run},
		{"", refuse(sqlgym.ErrKindSyntax)},
		{" -- nothing\n /* at all */ ", refuse(sqlgym.ErrKindSyntax)},
		{"SELECT 1; SELECT 2", refuse(sqlgym.ErrKindMulti)},
		{"SELECT 1;;DELETE FROM t", refuse(sqlgym.ErrKindMulti)},
		{"SELECT 'it''s'; DROP TABLE t", refuse(sqlgym.ErrKindMulti)},
		{"SELECT E'\\''; DROP TABLE t", refuse(sqlgym.ErrKindMulti)},
		{"SELECT $q$ $q$; DROP TABLE t", refuse(sqlgym.ErrKindMulti)},
		{"SELECT 1 /* /* */ ; */; DROP TABLE t", refuse(sqlgym.ErrKindMulti)},
		{"INSERT INTO t VALUES (1)", refuse(sqlgym.ErrKindForbidden)},
		{"(DELETE FROM t)", refuse(sqlgym.ErrKindForbidden)},
		{"commit", refuse(sqlgym.ErrKindForbidden)},
		{"SET ROLE postgres", refuse(sqlgym.ErrKindForbidden)},
		{"reset all", refuse(sqlgym.ErrKindForbidden)},
		{"DISCARD ALL", refuse(sqlgym.ErrKindForbidden)},
		{"SELECT pg_sleep(1)", refuse(sqlgym.ErrKindForbidden)},
		{"SELECT PG_SLEEP (1)", refuse(sqlgym.ErrKindForbidden)},
		{"SELECT pg_catalog.pg_sleep/* x */(1)", refuse(sqlgym.ErrKindForbidden)},
		{`SELECT "pg_advisory_lock"(1)`, refuse(sqlgym.ErrKindForbidden)},
		{`SELECT pg_try_advisory_xact_lock(1)`, refuse(sqlgym.ErrKindForbidden)},
		{`SELECT U&"\0070g_sleep"(1)`, refuse(sqlgym.ErrKindForbidden)},
		{`SELECT set_config('a.b', 'c', true)`, refuse(sqlgym.ErrKindForbidden)},
		{`SELECT query_to_xml('select 1', true, true, '')`, refuse(sqlgym.ErrKindForbidden)},
		{`SELECT dblink_connect('x')`, refuse(sqlgym.ErrKindForbidden)},
		{"SELECT 1 -- c\r, pg_sleep(1)", refuse(sqlgym.ErrKindForbidden)},
		{"SELECT 1 -- c\r; DROP TABLE t", refuse(sqlgym.ErrKindMulti)},
		{"SELECT 1 -- c\n, 2 -- d\r, 3", run},
		{"SELECT (2.0).pg_sleep", refuse(sqlgym.ErrKindForbidden)},
		{"SELECT (2.0) . /* x */ PG_SLEEP", refuse(sqlgym.ErrKindForbidden)},
		{`SELECT (x)."pg_sleep" FROM t`, refuse(sqlgym.ErrKindForbidden)},
		{`SELECT (x).U&"\0070g_sleep" FROM t`, refuse(sqlgym.ErrKindForbidden)},
		{"SELECT (pid).pg_terminate_backend FROM pg_stat_activity", refuse(sqlgym.ErrKindForbidden)},
		{"SELECT (1::bigint).pg_advisory_lock", refuse(sqlgym.ErrKindForbidden)},
		{"SELECT ('q').ts_stat", refuse(sqlgym.ErrKindForbidden)},
		{"SELECT pg_create_physical_replication_slot('s', true)", refuse(sqlgym.ErrKindForbidden)},
		{"SELECT table_to_xml('t', true, false, '')", refuse(sqlgym.ErrKindForbidden)},
		{"SELECT (t.a).name, t.b, (c).f1 FROM t", run},
		{"SELECT 1.5e3, .5, 1., 2.e-3 FROM t", run},
		{"SELECT 1\x00; DROP TABLE t", refuse(sqlgym.ErrKindSyntax)},
		{"\x00", refuse(sqlgym.ErrKindSyntax)},
		{"SELEC 1", ask},
		{"ATTACH 'x' AS y", ask},
		{"1", ask},
		{"(((", ask},
		{`"select" 1`, ask},
	}
	for _, c := range cases {
		v, ee := screen(c.sql)
		if v != c.want.v {
			t.Errorf("%q: verdict %d, want %d (%v)", c.sql, v, c.want.v, ee)
			continue
		}
		if v == verdictRefuse {
			if ee == nil || ee.Kind != c.want.kind || ee.Msg == "" {
				t.Errorf("%q: refusal %v, want kind %s with a message", c.sql, ee, c.want.kind)
			}
		} else if ee != nil {
			t.Errorf("%q: verdict %d with an error %v", c.sql, v, ee)
		}
	}
}

// TestLexKeepsStringsOpaque checks that text inside strings, quoted
// identifiers and comments never becomes a token the screen acts on.
func TestLexKeepsStringsOpaque(t *testing.T) {
	toks := lex(`SELECT 'pg_sleep(' , "x""y" , $a$ ; $a$ , E'\\' , b'01' -- ; pg_sleep(
		/* ; */ FROM t`)
	var kinds []tokKind
	for _, tk := range toks {
		kinds = append(kinds, tk.kind)
	}
	want := []tokKind{tokWord, tokString, tokOther, tokQuotedIdent, tokOther, tokString, tokOther, tokString, tokOther, tokString, tokWord, tokWord}
	if len(kinds) != len(want) {
		t.Fatalf("tokens %v, want kinds %v", toks, want)
	}
	for i := range want {
		if kinds[i] != want[i] {
			t.Fatalf("token %d: %v, want kind %d (all: %v)", i, toks[i], want[i], toks)
		}
	}
	if toks[3].text != `x"y` {
		t.Errorf("quoted identifier %q, want x\"y", toks[3].text)
	}
}

// TestRefuseHugeStrings checks the bound on strings built from
// constants: single calls, arithmetic, casts and nesting, while lengths
// taken from columns or small constants pass.
func TestRefuseHugeStrings(t *testing.T) {
	cases := []struct {
		sql    string
		refuse bool
	}{
		{`SELECT repeat('a', 10000)`, false},
		{`SELECT repeat('a', 10001)`, true},
		{`SELECT repeat('a', 1e9)`, true},
		{`SELECT REPEAT('a', 1000 * 1000)`, true},
		{`SELECT repeat('a', 100000::int)`, true},
		{`SELECT repeat(repeat('a', 1000), 1000)`, true},
		{`SELECT lpad('x', 20000, 'y')`, true},
		{`SELECT rpad(name, 1000000) FROM t`, true},
		{`SELECT repeat('a', 100000) LIKE '%' || repeat('a', 10000) || 'b'`, true},
		{`SELECT lpad(a::text, 10, '0'), lpad(b::text, 10, '0'), rpad(c, 20) FROM t`, false},
		{`SELECT repeat('*', stars) FROM t`, false},
		{`SELECT repeat('*', (SELECT max(n) FROM t))`, false},
		{`SELECT repeat(name, 3), repeat('-', 40) FROM t`, false},
		{`SELECT 'repeat(''a'', 1e9)'`, false},
		// Ways around a bound read off the tokens: a count in a string,
		// a power, a quoted function name.
		{`SELECT repeat('a', '100000')`, true},
		{`SELECT repeat('a', (10^5)::int)`, true},
		{`SELECT "repeat"('a', 100000)`, true},
	}
	for _, c := range cases {
		err := refuseHugeStrings(lex(c.sql))
		if c.refuse != (err != nil) {
			t.Errorf("%s: refused %v, want %v (%v)", c.sql, err != nil, c.refuse, err)
		}
		if err != nil && !errors.Is(err, sqlgym.ErrTooLarge) {
			t.Errorf("%s: %v does not wrap ErrTooLarge", c.sql, err)
		}
	}
}
