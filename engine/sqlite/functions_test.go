package sqlite

import (
	"context"
	"fmt"
	"math"
	"math/rand"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/internal/testenv"
)

// rawRows runs q on a plain (unsandboxed) connection to path: SQLite's
// built-in LIKE, GLOB, instr, replace and trim.
func rawRows(t *testing.T, path, q string) ([][]sqlgym.Value, error) {
	t.Helper()
	c, err := openDB(fileURI(path, false), openReadOnly|openURI, false)
	if err != nil {
		t.Fatal(err)
	}
	defer c.close()
	var rows [][]sqlgym.Value
	err = each(c, q, nil, func(r row) { rows = append(rows, append([]sqlgym.Value(nil), r...)) })
	return rows, err
}

func sqlLiteral(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// randomText draws from an alphabet rich in wildcards, escapes, case
// pairs and multi-byte characters, so the overrides meet every branch.
func randomText(r *rand.Rand, maxLen int) string {
	alphabet := []string{"a", "A", "b", "B", "%", "_", "*", "?", "[", "]", "^", "-", "\\", "é", "É", "ß", "日", " ", "x", "!", "\ue000", "\ue001"}
	n := r.Intn(maxLen + 1)
	var b strings.Builder
	for i := 0; i < n; i++ {
		b.WriteString(alphabet[r.Intn(len(alphabet))])
	}
	return b.String()
}

func TestBoundedFunctionsMatchBuiltins(t *testing.T) {
	r := rand.New(rand.NewSource(18))
	stmts := []string{`CREATE TABLE f (id INTEGER PRIMARY KEY, s, p, rp, e)`}
	for i := 0; i < 4000; i++ {
		val := func(maxLen int) string {
			switch r.Intn(20) {
			case 0:
				return "NULL"
			case 1:
				return fmt.Sprint(r.Intn(200) - 50)
			case 2:
				return fmt.Sprintf("%g", r.Float64()*10)
			case 3:
				return "CAST(" + sqlLiteral(randomText(r, maxLen)) + " AS BLOB)"
			}
			return sqlLiteral(randomText(r, maxLen))
		}
		esc := []string{"'\\'", "'%'", "'_'", "'a'", "'é'", "'['", "NULL", "'*'"}[r.Intn(8)]
		stmts = append(stmts, fmt.Sprintf("INSERT INTO f (s, p, rp, e) VALUES (%s, %s, %s, %s)", val(12), val(5), val(3), esc))
	}
	eng, path := newDB(t, Options{}, stmts...)
	for _, expr := range []string{
		"s LIKE p", "s NOT LIKE p", "s LIKE p ESCAPE e", "like(p, s)", "like(p, s, e)",
		"s GLOB p", "glob(p, s)",
		"instr(s, p)", "instr(CAST(s AS BLOB), CAST(p AS BLOB))", "instr(CAST(s AS BLOB), p)", "instr(s, CAST(p AS BLOB))",
		"replace(s, p, rp)", "replace(s, substr(p, 1, 1), rp)", "replace(CAST(s AS BLOB), p, rp)",
		"trim(s, p)", "ltrim(s, p)", "rtrim(s, p)", "trim(s, substr(p, 1, 2))",
		"trim(s)", "ltrim(s)", "rtrim(s)", "trim(' ' || s || ' ')", "length(s)", "length(p)", "length(CAST(s AS BLOB))",
		"length(s || char(0) || p)", "length(e)",
		"substr(s, 2)", "substr(s, -3)", "substr(s, 0)", "substr(s, 2, 3)", "substr(s, -2, -5)", "substr(s, 0, 2)",
		"substr(s, 3, -2)", "substr(s, -30, 40)", "substr(s, NULL)", "substr(s, 1, NULL)", "substr(s, p)", "substr(s, 1, p)",
		"substring(s, id % 9 - 4, id % 7 - 3)", "substr(CAST(s AS BLOB), id % 9 - 4, id % 7 - 3)",
		"substr(CAST(s AS BLOB), -3)", "substr(s || char(0) || p, id % 5, id % 11)", "substr(s, id % 13 - 6)",
	} {
		q := "SELECT id, typeof(" + expr + "), " + expr + " FROM f ORDER BY id"
		want, werr := rawRows(t, path, q)
		res, gerr := eng.Query(context.Background(), q, sqlgym.Limits{MaxRows: 1 << 20})
		if (werr == nil) != (gerr == nil) {
			t.Errorf("%s: built-in error %v, override error %v", expr, werr, gerr)
			continue
		}
		if werr != nil {
			if !strings.Contains(gerr.Error(), werr.Error()[strings.LastIndex(werr.Error(), ":")+1:]) {
				t.Errorf("%s: built-in error %v, override error %v", expr, werr, gerr)
			}
			continue
		}
		bad := 0
		for i := range want {
			for j := range want[i] {
				if !sameValue(want[i][j], res.Rows[i][j]) {
					if bad < 5 {
						t.Errorf("%s row %d: built-in %v, override %v", expr, i+1, want[i], res.Rows[i])
					}
					bad++
					break
				}
			}
		}
		if bad > 0 {
			t.Errorf("%s: %d of %d rows differ", expr, bad, len(want))
		}
	}
	// The error cases, in the built-in's words.
	for _, q := range []string{
		`SELECT 'a' LIKE 'a' ESCAPE 'ab'`,
		`SELECT 'a' LIKE 'a' ESCAPE ''`,
		`SELECT 'a' LIKE '` + strings.Repeat("%", maxLikePattern+1) + `'`,
	} {
		_, gerr := eng.Query(context.Background(), q, sqlgym.Limits{})
		c, err := openDB(fileURI(path, false), openReadOnly|openURI, false)
		if err != nil {
			t.Fatal(err)
		}
		c.limit(limitLikePattern, maxLikePattern)
		werr := each(c, q, nil, func(row) {})
		c.close()
		if werr == nil || gerr == nil || !strings.Contains(werr.Error(), gerr.(*sqlgym.ExecError).Msg) {
			t.Errorf("%.60s: built-in error %v, override error %v", q, werr, gerr)
		}
	}
	// NULL escape: NULL, as built in.
	res := query(t, eng, `SELECT 'a' LIKE 'a' ESCAPE NULL AS x`)
	if !res.Rows[0][0].IsNull() {
		t.Errorf("LIKE ... ESCAPE NULL = %v, want NULL", res.Rows[0][0])
	}
}

func sameValue(a, b sqlgym.Value) bool {
	return a.Kind == b.Kind && a.Str == b.Str && a.Int == b.Int && (a.Float == b.Float || a.Float != a.Float && b.Float != b.Float)
}

// TestMathFunctionsMatchCLI compares sqlgym's math functions with the
// sqlite3 command-line shell's built-in ones on a table of inputs.
func TestMathFunctionsMatchCLI(t *testing.T) {
	cli := testenv.Tool(t, "sqlite3")
	inputs := []string{"NULL", "0", "1", "-1", "2", "3", "10", "100", "0.5", "-0.5", "1.5", "-2.5", "2.5", "3.7", "-3.7",
		"1e308", "-1e308", "1e-300", "9007199254740993", "-9223372036854775808", "9223372036854775807",
		"'abc'", "'3.5'", "' 4 '", "'-7'", "''", "x'01'", "x''", "'1e3'", "0.0", "-0.0", "'0x10'", "45", "90", "180", "0.9999"}
	var stmts = []string{`CREATE TABLE m (id INTEGER PRIMARY KEY, x)`}
	for _, in := range inputs {
		stmts = append(stmts, "INSERT INTO m (x) VALUES ("+in+")")
	}
	eng, path := newDB(t, Options{}, stmts...)
	one := []string{"acos", "acosh", "asin", "asinh", "atan", "atanh", "ceil", "ceiling", "cos", "cosh", "degrees", "exp",
		"floor", "ln", "log", "log10", "log2", "radians", "sin", "sinh", "sqrt", "tan", "tanh", "trunc"}
	two := []string{"atan2", "log", "mod", "pow", "power"}
	var exprs []string
	for _, f := range one {
		exprs = append(exprs, f+"(a.x)")
	}
	for _, f := range two {
		exprs = append(exprs, f+"(a.x, b.x)")
	}
	exprs = append(exprs, "pi()", "pi() * a.x")
	for _, expr := range exprs {
		q := "SELECT a.id, b.id, typeof(" + expr + "), printf('%.17g', " + expr + ") FROM m a, m b"
		if !strings.Contains(expr, "b.x") {
			q += " WHERE b.id = 1"
		}
		q += " ORDER BY a.id, b.id"
		cmd := exec.Command(cli, "-batch", "-noheader", "-separator", "|", path, q)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("sqlite3 %s: %v\n%s", expr, err, out)
		}
		res, err := eng.Query(context.Background(), q, sqlgym.Limits{})
		if err != nil {
			t.Errorf("%s: %v", expr, err)
			continue
		}
		var got strings.Builder
		for _, r := range res.Rows {
			fmt.Fprintf(&got, "%d|%d|%s|%s\n", r[0].Int, r[1].Int, r[2].Str, r[3].Str)
		}
		wantLines := strings.Split(strings.TrimSpace(string(out)), "\n")
		gotLines := strings.Split(strings.TrimSpace(got.String()), "\n")
		if len(wantLines) != len(gotLines) {
			t.Errorf("%s: %d rows from the CLI, %d from sqlgym", expr, len(wantLines), len(gotLines))
			continue
		}
		bad := 0
		for i := range wantLines {
			if !sameMathLine(wantLines[i], gotLines[i]) {
				if bad < 3 {
					t.Errorf("%s: CLI %q, sqlgym %q", expr, wantLines[i], gotLines[i])
				}
				bad++
			}
		}
	}
}

// sameMathLine compares "id|id|type|value" lines: ids and type exactly,
// values as floats within four parts in 1e15, because the CLI (an older
// SQLite) prints at most 16 significant digits, truncated, where sqlgym's
// prints 17.
func sameMathLine(want, got string) bool {
	if want == got {
		return true
	}
	w, g := strings.Split(want, "|"), strings.Split(got, "|")
	if len(w) != 4 || len(g) != 4 || w[0] != g[0] || w[1] != g[1] || w[2] != g[2] {
		return false
	}
	a, err1 := strconv.ParseFloat(w[3], 64)
	b, err2 := strconv.ParseFloat(g[3], 64)
	if err1 != nil || err2 != nil {
		return false
	}
	return a == b || math.Abs(a-b) <= 4e-15*math.Max(math.Abs(a), math.Abs(b))
}
