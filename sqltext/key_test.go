package sqltext

import (
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/engine"
)

const (
	dSQLite   = sqlgym.DialectSQLite
	dPostgres = sqlgym.DialectPostgres
	dDuckDB   = sqlgym.DialectDuckDB
)

var allDialects = []sqlgym.Dialect{dSQLite, dPostgres, dDuckDB}

func TestKeyMerges(t *testing.T) {
	cases := []struct {
		d    sqlgym.Dialect
		a, b string
		want string
	}{
		{dSQLite, "SELECT  a ,b\nFROM t -- c\nWHERE a=1 ;", "SELECT a, b FROM t /* x */ WHERE a = 1;", "select a,b from t where a=1;"},
		{dSQLite, "SELECT count ( * ) FROM t", "SELECT COUNT(*) FROM t", "select count(*)from t"},
		{dSQLite, "SELECT Name FROM Singer WHERE X'AB' = b", "select name from singer where x'AB'=b", "select name from singer where x'AB'=b"},
		{dPostgres, "SELECT A FROM T WHERE B = 'X'", "select a from t where b='X'", "select a from t where b='X'"},
		{dPostgres, "SELECT x :: INT, E'a' FROM t", "select x::int, e'a' from t", "select x::int,e'a' from t"},
		{dDuckDB, "SELECT [1, 2] [1], {'a' : 1}", "SELECT [1,2][1],{'a':1}", "SELECT[1,2][1],{'a':1}"},
		{dDuckDB, "SELECT a\n\tFROM t", "SELECT a FROM t -- done", "SELECT a FROM t"},
	}
	for _, c := range cases {
		ka, kb := Key(c.d, c.a), Key(c.d, c.b)
		if ka != c.want || kb != c.want {
			t.Errorf("%s: Key(%q) = %q, Key(%q) = %q, want both %q", c.d, c.a, ka, c.b, kb, c.want)
		}
	}
}

func TestKeyKeepsApart(t *testing.T) {
	cases := []struct {
		d    sqlgym.Dialect
		a, b string
	}{
		{dSQLite, "SELECT [A] FROM t", "SELECT [a] FROM t"},                        // quoted names never fold
		{dDuckDB, "SELECT 1 AS A", "SELECT 1 AS a"},                                // DuckDB keeps case: values can show it
		{dPostgres, "SELECT 'A'", "SELECT 'a'"},                                    // strings never fold
		{dPostgres, `SELECT "A" FROM t`, `SELECT "a" FROM t`},                      // nor quoted names
		{dPostgres, "SELECT 1 |-1", "SELECT 1 | -1"},                               // operator runs stay as written
		{dPostgres, "SELECT 1e -1", "SELECT 1e-1"},                                 // an exponent is not a minus
		{dPostgres, "SELECT U &'x'", "SELECT U&'x'"},                               // nor U & a Unicode string
		{dPostgres, "SELECT x 'a'", "SELECT x'a'"},                                 // nor a word a prefix
		{dSQLite, "SELECT 1;", "SELECT 1"},                                         // semicolons stay
		{dSQLite, "SELECT x [a]", "SELECT x[a]"},                                   // a name next to a quote keeps its space
		{dDuckDB, "SELECT a FROM t", "SELECT a FROM t;"},                           //
		{dSQLite, "SELECT a FROM t WHERE a = - 1", "SELECT a FROM t WHERE a =- 1"}, // = - is not =-
	}
	for _, c := range cases {
		if ka, kb := Key(c.d, c.a), Key(c.d, c.b); ka == kb {
			t.Errorf("%s: Key(%q) and Key(%q) are both %q", c.d, c.a, c.b, ka)
		}
	}
}

// TestKeyGivesUp lists texts whose extent some engine reads its own way:
// they keep their bytes as their key.
func TestKeyGivesUp(t *testing.T) {
	texts := []string{
		"SELECT 1 --\rOR true\n", "SELECT 1\r\n", "SELECT\v1", "SELECT\f1", "SELECT 1\x00", "SELECT 1 \x7f",
		"SELECT 'a\xff'", "SELECT E'\\''", "SELECT '\\'", "SELECT $$x$$", "SELECT $1", "SELECT 'open", "SELECT \"open",
		"SELECT /* open", "SELECT /* /* */ 1", "SELECT /* a /*/ 1", "SELECT 1; -- c", "SELECT 1; /* c */", "SELECT 1e-1",
		"SELECT U&'x'", "SELECT 'a'\n'b'", "SELECT 'a' -- c\n'b'", "SELECT naïve", "-- only a comment", "", "   ",
		"SELECT Current_Query()", "SELECT \"current_query\"()", "SELECT * FROM pg_catalog.PG_STAT_ACTIVITY",
		"SELECT * FROM pg_prepared_statements", "SELECT * FROM duckdb_prepared_statements()", "SELECT sql FROM sqlite_stmt",
		"EXPLAIN SELECT 1", "explain analyze select 1",
	}
	for _, d := range allDialects {
		for _, s := range texts {
			if d == dSQLite && (s == "SELECT 'a'\n'b'" || s == "SELECT 'a' -- c\n'b'" || s == "SELECT U&'x'") {
				continue // SQLite joins no strings and has no U&
			}
			if _, ok := keyOK(d, s); ok {
				t.Errorf("%s: Key(%q) = %q, want the text kept as it is", d, s, Key(d, s))
			}
		}
	}
	for _, s := range []string{"SELECT [x--]", "SELECT `x`", "SELECT \"x\"", "SELECT ?1", "SELECT :a", "SELECT @a", "SELECT #a",
		"SELECT 2 ^ 3", "SELECT * FROM t NATURAL JOIN u", "explain SELECT 1"} {
		if _, ok := keyOK(dSQLite, s); ok {
			t.Errorf("sqlite: keyOK(%q) = true", s)
		}
	}
	for _, s := range []string{"SELECT `x`", "SELECT {1}"} {
		if _, ok := keyOK(dPostgres, s); ok {
			t.Errorf("postgres: keyOK(%q) = true", s)
		}
	}
	for _, s := range []string{"SELECT `x`", "SELECT ?", "SELECT #1 FROM t"} {
		if _, ok := keyOK(dDuckDB, s); ok {
			t.Errorf("duckdb: keyOK(%q) = true", s)
		}
	}
	for _, s := range []string{"SELECT 1--1", "SELECT /*! 1 */", "SELECT /*M!100000 1 */", "SELECT /*+ NO_ICP(t) */ 1",
		"SELECT @a", "SELECT 'a\\'b'", "SELECT ?", "SELECT {d '2024-01-01'}", "SELECT 1; # x\nSELECT 2"} {
		if _, ok := keyOK(sqlgym.DialectMySQL, s); ok {
			t.Errorf("mysql: keyOK(%q) = true", s)
		}
	}
	for a, b := range map[string]string{
		"SELECT a FROM t # note\nWHERE a = 1": "SELECT a FROM t WHERE a=1",
		"SELECT `a` , \"x\"  FROM t -- c":     "SELECT `a`,\"x\" FROM t",
	} {
		if ka, kb := Key(sqlgym.DialectMySQL, a), Key(sqlgym.DialectMySQL, b); ka != kb {
			t.Errorf("mysql: Key(%q) = %q, Key(%q) = %q", a, ka, b, kb)
		}
	}
	if Key(sqlgym.DialectMySQL, "SELECT a FROM People") == Key(sqlgym.DialectMySQL, "SELECT a FROM people") {
		t.Errorf("mysql: table names differing in case share a key")
	}
	if got := Key("oracle", "SELECT  1"); got != "SELECT  1" {
		t.Errorf("unknown dialect: Key = %q", got)
	}
}

// keyPoisons are the texts of issue 18: each is Normalize-equal to its
// Normalize form, yet the engines named run the two differently, so one
// cached result would have scored the other.
var keyPoisons = []struct {
	sql     string
	engines []sqlgym.Dialect
}{
	// PostgreSQL and DuckDB end a -- comment at \r: OR true runs.
	{"SELECT a FROM t WHERE a = 1 --\rOR true\n", []sqlgym.Dialect{dPostgres, dDuckDB}},
	// SQLite does not nest block comments: OR a = 2 runs there only.
	{"SELECT a FROM t WHERE a = 1 /* /* */ OR a = 2 --*/", []sqlgym.Dialect{dSQLite}},
	// PostgreSQL and DuckDB do: this comment never closes.
	{"SELECT a FROM t WHERE a = 1 /* /* */ OR a = 2 /* */", []sqlgym.Dialect{dPostgres, dDuckDB}},
	// SQLite's [x--] is a name, not the start of a comment.
	{"SELECT a [x--], b FROM t WHERE a = 1", []sqlgym.Dialect{dSQLite}},
	// $$ is a SQLite parameter, not a dollar quote: -- starts a comment.
	{"SELECT a FROM t WHERE a = 1 OR $$ = 1 -- $$\nOR a = 2", []sqlgym.Dialect{dSQLite}},
	// A newline joins two strings into one on PostgreSQL and DuckDB.
	{"SELECT 'a'\n'b'", []sqlgym.Dialect{dPostgres, dDuckDB}},
	// |- is one operator on PostgreSQL and DuckDB, | - is two.
	{"SELECT 1 |-1", []sqlgym.Dialect{dPostgres, dDuckDB}},
	// SQLite names a result column by its written text: "a+1" finds it
	// or, spaced, is a string; NATURAL JOIN matches on it too.
	{`SELECT "a+1" FROM (SELECT a+1 FROM t)`, []sqlgym.Dialect{dSQLite}},
	{"SELECT count(*) FROM (SELECT a+1 FROM t) NATURAL JOIN (SELECT a + 1 FROM t)", []sqlgym.Dialect{dSQLite}},
	// EXPLAIN QUERY PLAN shows an alias as written.
	{"EXPLAIN QUERY PLAN SELECT a FROM t AS X", []sqlgym.Dialect{dSQLite}},
	// Past engine/sqlite's 1 MiB cap on a statement's text, padding fails.
	{"SELECT a FROM t WHERE a = 1" + strings.Repeat(" ", 1<<20), []sqlgym.Dialect{dSQLite}},
	// current_query() shows the statement its own text.
	{"SELECT current_query()", []sqlgym.Dialect{dPostgres, dDuckDB}},
	{"SELECT query FROM pg_stat_activity WHERE pid = pg_backend_pid()", []sqlgym.Dialect{dPostgres}},
	// DuckDB keeps an alias's case, and to_json shows it.
	{"SELECT to_json(s) FROM (SELECT 1 AS A) s", []sqlgym.Dialect{dDuckDB}},
}

// TestKeyPoisons shows, for each poison, that the engine really runs it
// and its Normalize form differently, and that their keys differ.
func TestKeyPoisons(t *testing.T) {
	oracles := map[sqlgym.Dialect]keyEngine{dSQLite: sqliteOracle(t), dDuckDB: duckdbOracle(t)}
	if testingPostgres(t) {
		oracles[dPostgres] = postgresOracle(t)
	}
	for _, p := range keyPoisons {
		n := Normalize(p.sql)
		if Normalize(n) != n {
			t.Fatalf("Normalize(%q) = %q is not a fixed point", p.sql, n)
		}
		for _, d := range p.engines {
			if Key(d, p.sql) == Key(d, n) {
				t.Errorf("%s: %q and %q share the key %q", d, p.sql, n, Key(d, p.sql))
			}
			o, ok := oracles[d]
			if !ok {
				continue
			}
			if a, b := o.run(t, p.sql), o.run(t, n); a == b {
				t.Errorf("%s runs %q and %q alike (%q): not a poison", d, p.sql, n, a)
			}
		}
	}
}

// TestURLDialect holds sqlgym.URLDialect, which the verifier keys by, to
// engine.ParseURL, which opens the database.
func TestURLDialect(t *testing.T) {
	for _, u := range []string{
		"sqlite:shop.sqlite", "sqlite:///tmp/x", "duckdb:x.duckdb", "duckdb:x", "postgres://u@h/db", "postgresql://h/db",
		"x.sqlite", "x.SQLITE3", "x.db", "x.duckdb", "x.csv", "mysql://h/db", "", "sqlite", "a/b.DuckDB",
	} {
		want := sqlgym.Dialect("")
		if loc, err := engine.ParseURL(u); err == nil {
			want = loc.Dialect
		}
		if got := sqlgym.URLDialect(u); got != want {
			t.Errorf("URLDialect(%q) = %q, engine.ParseURL says %q", u, got, want)
		}
	}
}

// TestKeyMaxLenRuns holds the engines to what keyMaxLen assumes: a text
// of that length is not refused for its length, so padding cannot make a
// merged text fail where its twin runs. Past it, texts keep their bytes.
func TestKeyMaxLenRuns(t *testing.T) {
	engs := []keyEngine{sqliteOracle(t), duckdbOracle(t)}
	if testingPostgres(t) {
		engs = append(engs, postgresOracle(t))
	}
	short := "SELECT a FROM t WHERE a = 1"
	long := short + strings.Repeat(" ", keyMaxLen-len(short))
	for _, e := range engs {
		if got, want := e.run(t, long), e.run(t, short); got != want {
			t.Errorf("%s: %d bytes run as %q, %d as %q", e.d, len(long), got, len(short), want)
		}
		if Key(e.d, long) != Key(e.d, short) || Key(e.d, long+" ") == Key(e.d, short) {
			t.Errorf("%s: keyMaxLen is not where Key stops merging", e.d)
		}
	}
}

func TestLoopbackDSN(t *testing.T) {
	for dsn, want := range map[string]bool{
		"postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable": true,
		"postgres://127.0.0.1/db":                                     true,
		"postgres://db.example.com/db":                                false,
		"postgres://localhost/db":                                     false,
		"postgres://127.0.0.1/db?host=db.example.com":                 false,
		"postgres://127.0.0.1/db?hostaddr=10.0.0.1":                   false,
		"host=127.0.0.1 dbname=postgres":                              false,
	} {
		if got := loopbackDSN(dsn); got != want {
			t.Errorf("loopbackDSN(%q) = %v, want %v", dsn, got, want)
		}
	}
}
