package sqltext

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// keyPieces are what the fuzz tests splice into statements: every way a
// dialect's lexer parts from another's (comments, \r, brackets, backticks,
// quotes, dollar quotes, prefixes, operators next to signs, control
// characters) and clauses that change which rows a filter keeps.
var keyPieces = []string{
	" ", "\n", "\t", "\n  ", "/**/", "/* c */", "-- c\n", "--", "\r", "--\r", "\r\n", "/*", "*/", "/* /* */", "/*/",
	"[", "]", "[x--]", "[b]", "`", "`b`", "'", "''", "\"", "\"b\"", "$", "$$", "$x$", "$1", "E", "e", "U&", "X", "N",
	"(", ")", ",", ";", "-", "+", "|", "@", "&", "*", "/", "1e", ".", "::int", ":", "{", "}", "?", "#", "^", "\\",
	" OR a = 3", " OR true", " AND b = 'x'", " OR b IS NULL", "'x'", "\n'y'", " 'z'", "\x00", "\v", "\f", "\x1b",
	"\xff", "é", "\u00a0", "\ufeff",
}

// keySeeds are the fuzz tests' starting statements: the poisons and the
// shapes of real answers.
func keySeeds() []string {
	s := []string{
		"SELECT a FROM t WHERE a = 1",
		"SELECT a, b FROM t WHERE a = 1 OR b = 'x' ORDER BY a",
		"SELECT count(*) FROM t WHERE b IN ('x', 'y')",
		"SELECT a FROM t WHERE a = 1 -- c\nOR a = 2",
		"SELECT a FROM t WHERE a = 1 /* c */ OR a = 2 /* d */",
		"SELECT a FROM t WHERE b = 'x--y' OR b = 'OR'",
		"SELECT a AS \"A\", b \"b--\" FROM t WHERE a > -1 AND a < 3",
		"SELECT a FROM t WHERE a = 1; ",
		"SELECT -a, a-1, a - -1, a*-1, 2^a, a|1, a||b, a::text, 1e1 FROM t",
		"SELECT [a], `b` FROM t WHERE [a] = 1",
		"SELECT [a, 1][1], {'k': a} FROM t",
		"SELECT E'x', X'00', N'y', B'1', U&'z' FROM t",
		"SELECT 'a'\n'b', 'c' 'd' FROM t",
		"SELECT a FROM t WHERE a = 1 OR $x$ -- $x$ = 'x'\nOR a = 2",
		"SELECT a FROM t WHERE a > 1e -1 OR a < 1E +1",
		"SELECT a FROM t WHERE a > 1e-/**/1 OR a < 1E+ 1",
		"SELECT a FROM t WHERE b = U &'x' OR b = u &\"b\"",
		"SELECT a FROM t WHERE a = 1 ; SELECT 2",
		"EXPLAIN SELECT a FROM t AS X WHERE a = 1",
		"SELECT current_query(), a FROM t",
		"SELECT PG_SLEEP(0), pg_sleep /* x */ (0), \"pg_sleep\"(0)",
		"SELECT \"(a + 1)\", \"a+1\" FROM (SELECT a+1 FROM t)",
		"SELECT count(*) FROM (SELECT a+1 AS x FROM t) NATURAL JOIN (SELECT a + 1 AS x FROM t)",
		"SELECT a FROM t WHERE a = 1 # c\nOR a = 2",
		"SELECT a FROM t WHERE a = 1--1 OR a = 2",
		"SELECT a FROM t WHERE a = 1 /*! OR a = 2 */",
		"SELECT `a`, \"b\" FROM t WHERE b = \"x\" OR b = 'y'",
	}
	for _, p := range keyPoisons {
		if len(p.sql) <= 400 { // what checkKey runs
			s = append(s, p.sql)
		}
	}
	return s
}

func FuzzKeySQLite(f *testing.F)   { fuzzKey(f, sqliteOracle(f)) }
func FuzzKeyDuckDB(f *testing.F)   { fuzzKey(f, duckdbOracle(f)) }
func FuzzKeyPostgres(f *testing.F) { fuzzKey(f, postgresOracle(f)) }
func FuzzKeyMySQL(f *testing.F)    { fuzzKey(f, mysqlOracle(f)) }

// fuzzKey checks, for a statement and one piece spliced into it, that
// every text of the same key the test can make (the key itself, the
// spliced text, the text in other case, the text with comments between
// its words) runs on the engine exactly as the statement does.
func fuzzKey(f *testing.F, eng keyEngine) {
	for i, s := range keySeeds() {
		f.Add(s, uint16(i*7), uint8(i))
		f.Add(s, uint16(i*13+5), uint8(i*5+3))
	}
	f.Fuzz(func(t *testing.T, sql string, pos uint16, piece uint8) {
		checkKey(t, eng, sql, int(pos), int(piece))
	})
}

// checkKey returns how many texts it ran against sql.
func checkKey(t *testing.T, eng keyEngine, sql string, pos, piece int) int {
	if len(sql) > 400 {
		return 0 // long texts only slow the engines down
	}
	d := eng.d
	key := Key(d, sql)
	if k, ok := keyOK(d, sql); ok {
		// The key lexes back to itself, never falling back: so it can
		// never equal a text kept byte for byte.
		if k2, ok2 := keyOK(d, k); !ok2 || k2 != k {
			t.Fatalf("%s: key of %q is %q, whose key is %q (ok=%v)", d, sql, k, k2, ok2)
		}
	}
	at := pos % (len(sql) + 1)
	variants := []string{
		key,
		sql[:at] + keyPieces[piece%len(keyPieces)] + sql[at:],
		strings.ToUpper(sql),
		strings.ToLower(sql),
		strings.ReplaceAll(sql, " ", "\n/* x */ "),
		strings.ReplaceAll(sql, " ", " -- x\n"),
		"/* x */ " + sql + "\n",
		"-- x\n" + sql + " -- y",
	}
	var want string
	ran := 0
	for _, v := range variants {
		if v == sql || Key(d, v) != key {
			continue
		}
		if ran == 0 {
			want = eng.run(t, sql)
		}
		ran++
		if got := eng.run(t, v); got != want && got != "timeout" && want != "timeout" {
			t.Fatalf("%s: same key %q\n%q runs as %q\n%q runs as %q", d, key, sql, want, v, got)
		}
	}
	return ran
}

// TestKeyRandom is a fixed sample of what the fuzz tests explore, so that
// every go test run asks the engines: statements built from clauses and
// pieces at random places.
func TestKeyRandom(t *testing.T) {
	engs := []keyEngine{sqliteOracle(t), duckdbOracle(t)}
	if testingPostgres(t) {
		engs = append(engs, postgresOracle(t))
	}
	if testingMySQL(t) {
		engs = append(engs, mysqlOracle(t))
	}
	r := rand.New(rand.NewPCG(18, 2))
	seeds := keySeeds()
	ran := map[string]int{}
	for i := 0; i < 300; i++ {
		sql := seeds[r.IntN(len(seeds))]
		for n := r.IntN(4); n > 0; n-- {
			at := r.IntN(len(sql) + 1)
			sql = sql[:at] + keyPieces[r.IntN(len(keyPieces))] + sql[at:]
		}
		pos, piece := r.IntN(1000), r.IntN(256)
		for _, e := range engs {
			ran[string(e.d)] += checkKey(t, e, sql, pos, piece)
		}
	}
	// A sample that never finds two texts of one key proves nothing.
	for _, e := range engs {
		if ran[string(e.d)] < 200 {
			t.Errorf("%s: only %d texts shared a key with a random statement", e.d, ran[string(e.d)])
		}
	}
	t.Logf("texts run against a statement of the same key: %v", ran)
}
