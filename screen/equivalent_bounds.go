package screen

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/sqltext"
)

// boundFlips are the flips that move a bound by its one boundary value.
var boundFlips = map[string]string{"<": "<=", "<=": "<", ">": ">=", ">=": ">"}

// boundFlipEquivalent proves a FlipComparison mutant equivalent when it
// turns "c op L" into "c op' L" (< and <=, > and >=, either side of the
// literal) in a top-level AND chain of the statement's top-level WHERE,
// and another condition of that chain is not true when c holds L.
//
// The argument, and what it needs:
//   - The comparisons disagree exactly on rows where c = L under SQLite's
//     comparison rules. Those rows are the ones whose stored c is the value
//     L takes when stored in a column of c's declared type: a text L that
//     is no number stays text under every affinity and equals only the
//     same text (under BINARY, the default; a column declaring NOCASE or
//     RTRIM is refused); a number under INTEGER, NUMERIC or REAL affinity
//     has one stored form (SQLite turns an integral REAL into an INTEGER,
//     and an INTEGER into a REAL, on the way in), and under TEXT affinity
//     it is compared as the text it is stored as. Refused: a number
//     against a column with no affinity (an untyped or BLOB column holds
//     both 5 and 5.0, which other conditions may tell apart), a zero
//     stored as REAL (0.0 and -0.0), numbers beyond 2^53 or not decimal, a
//     STRICT table's ANY column.
//   - Other conditions are judged on that one row by SQLite itself
//     (boundaryRow): a condition reading any other column fails to run
//     there and proves nothing; one with a subquery, a function outside a
//     fixed deterministic list, 'now', 'localtime', 'utc', CURRENT_*, a
//     date function of no argument, or a date function beside text
//     building (which could spell 'now') is not tried; nor is a literal
//     'now'. If one is false or NULL there, the row fails the WHERE
//     of gold and mutant alike: the queries select the same rows on every
//     database.
//
// Only SQLite schemas: DuckDB and PostgreSQL type and compare otherwise.
func boundFlipEquivalent(gold string, m Mutant, s *sqlgym.Schema) (bool, string) {
	if s == nil || s.Dialect != sqlgym.DialectSQLite {
		return false, ""
	}
	q, mq := analyse(gold), analyse(m.SQL)
	if len(q.toks) != len(mq.toks) {
		return false, ""
	}
	at := -1
	for k := range q.toks {
		if q.toks[k].Text != mq.toks[k].Text {
			if at >= 0 {
				return false, ""
			}
			at = k
		}
	}
	if at < 0 || q.toks[at].Kind != sqltext.Operator || boundFlips[q.toks[at].Text] != mq.toks[at].Text || q.toks[at].depth != 0 {
		return false, ""
	}
	srcs, ok := q.topSources(s)
	if !ok {
		return false, ""
	}
	w := -1
	for k := 0; k < at; k++ {
		if q.toks[k].depth == 0 && q.word(k, "where") {
			w = k
		}
	}
	if w < 0 {
		return false, ""
	}
	end := q.clauseEnd(w, whereEnds...)
	if at >= end {
		return false, ""
	}
	starts, or := q.conjuncts(w, end)
	if or {
		return false, ""
	}
	var conj [][2]int
	own := -1
	for i, st := range starts {
		e := end
		if i+1 < len(starts) {
			e = starts[i+1] - 1
		}
		if at >= st && at < e {
			own = i
		}
		conj = append(conj, [2]int{st, e})
	}
	if own < 0 {
		return false, ""
	}
	a, e := conj[own][0], conj[own][1]
	var lit, ref int
	switch {
	case e == at+2 && literal(q.toks[at+1]):
		lit, ref = at+1, at-1
	case a == at-1 && literal(q.toks[a]):
		lit, ref = a, e-1
	default:
		return false, ""
	}
	src, col, first, ok := q.colAt(ref, srcs)
	if !ok || lit == at+1 && first != a || lit == a && first != at+1 {
		return false, ""
	}
	if strings.EqualFold(strings.TrimSpace(col.Type), "any") {
		return false, "" // in a STRICT table, ANY keeps 5 and '5' and 5.0 apart
	}
	if col.Collation != "" && !strings.EqualFold(col.Collation, "binary") {
		return false, "" // under NOCASE 'B' equals 'b', under RTRIM 'b ' does
	}
	if q.toks[lit].Kind == sqltext.Number && !numberBound(q.toks[lit].Text, affinity(col.Type)) ||
		q.toks[lit].Kind == sqltext.String && nowLike(stringValue(q.toks[lit].Text)) {
		return false, "" // a date function would read the boundary row 'now' as the clock
	}
	var others []string
	for i, c := range conj {
		if i != own && q.pureCondition(c[0], c[1]) {
			others = append(others, q.sql[q.toks[c[0]].Pos:q.toks[c[1]-1].End()])
		}
	}
	if len(others) == 0 {
		return false, ""
	}
	b := boundaryRow{
		Table: srcs[src].table.Name, Column: col.Name, Decl: col.Type, Literal: q.toks[lit].Text,
		Gold:   q.sql[q.toks[a].Pos:q.toks[e-1].End()],
		Mutant: mq.sql[mq.toks[a].Pos:mq.toks[e-1].End()],
		Others: others,
	}
	if srcs[src].name != strings.ToLower(b.Table) {
		b.Alias = srcs[src].name
	}
	v, err := b.refute()
	if err != nil || v.Refuter < 0 {
		return false, ""
	}
	return true, fmt.Sprintf("the bounds differ only where %s = %s, which fails %s", col.Name, b.Literal, others[v.Refuter])
}

// numberBound reports whether a numeric literal has one stored form in a
// column of the affinity (see boundFlipEquivalent).
func numberBound(text, aff string) bool {
	f, err := strconv.ParseFloat(text, 64)
	if err != nil || math.IsInf(f, 0) || math.Abs(f) > 1<<53 {
		return false
	}
	switch aff {
	case "blob":
		return false
	case "real":
		return f != 0
	}
	return true
}

// affinity is SQLite's column affinity of a declared type, by its rules in
// order: INT, then CHAR/CLOB/TEXT, then BLOB or nothing, then
// REAL/FLOA/DOUB, else NUMERIC.
func affinity(decl string) string {
	d := strings.ToUpper(decl)
	switch {
	case strings.Contains(d, "INT"):
		return "integer"
	case strings.Contains(d, "CHAR"), strings.Contains(d, "CLOB"), strings.Contains(d, "TEXT"):
		return "text"
	case strings.Contains(d, "BLOB"), strings.TrimSpace(d) == "":
		return "blob"
	case strings.Contains(d, "REAL"), strings.Contains(d, "FLOA"), strings.Contains(d, "DOUB"):
		return "real"
	}
	return "numeric"
}

// pureFunctions are the SQLite functions whose value depends only on their
// arguments (given no 'now' and no local time zone, refused apart).
var pureFunctions = map[string]bool{
	"abs": true, "char": true, "coalesce": true, "concat": true, "concat_ws": true, "date": true, "datetime": true,
	"format": true, "glob": true, "hex": true, "ifnull": true, "iif": true, "instr": true, "julianday": true,
	"length": true, "like": true, "lower": true, "ltrim": true, "nullif": true, "octet_length": true,
	"printf": true, "quote": true, "replace": true, "round": true, "rtrim": true, "sign": true, "strftime": true,
	"substr": true, "substring": true, "time": true, "trim": true, "typeof": true, "unicode": true,
	"unixepoch": true, "upper": true, "ceil": true, "ceiling": true, "floor": true, "trunc": true, "mod": true,
	"pow": true, "power": true, "sqrt": true, "exp": true, "ln": true, "log": true, "log10": true, "log2": true,
	// Keywords that may stand before a parenthesis.
	"in": true, "not": true, "and": true, "or": true, "cast": true, "case": true, "when": true, "then": true,
	"else": true, "between": true, "is": true,
}

// clockFunctions read the clock when called with no argument or with
// 'now', and the time zone with 'localtime' or 'utc'.
var clockFunctions = map[string]bool{"date": true, "time": true, "datetime": true, "julianday": true,
	"unixepoch": true, "strftime": true, "timediff": true}

// textBuilders can build 'now' from pieces ('n' || 'ow', substr('xnow', 2)).
var textBuilders = map[string]bool{"char": true, "replace": true, "substr": true, "substring": true, "trim": true,
	"ltrim": true, "rtrim": true, "printf": true, "format": true, "concat": true, "concat_ws": true, "lower": true,
	"upper": true, "quote": true}

// nowLike reports whether a date function would read a string as the
// clock or the time zone.
func nowLike(v string) bool {
	v = strings.TrimSpace(v)
	return strings.EqualFold(v, "now") || strings.EqualFold(v, "localtime") || strings.EqualFold(v, "utc")
}

// pureCondition reports whether tokens [a, b) can be judged on a lone row:
// no subquery, nothing that reads the clock, the time zone or anything but
// the row and the arguments. A condition that calls a date function may
// not build text, lest it build 'now'.
func (q *query) pureCondition(a, b int) bool {
	clock, builds := false, false
	for k := a; k < b; k++ {
		t := q.toks[k]
		switch {
		case q.word(k, "select", "current_date", "current_time", "current_timestamp"):
			return false
		case t.Kind == sqltext.Param:
			return false
		case q.word(k, "in") && !q.punct(k+1, "("):
			return false // "x IN t" reads a table
		case t.Kind == sqltext.String:
			if nowLike(stringValue(t.Text)) {
				return false
			}
		case t.Kind == sqltext.Operator && t.Text == "||":
			builds = true
		case (t.Kind == sqltext.Word || t.Kind == sqltext.QuotedIdent) && q.punct(k+1, "("):
			name := strings.ToLower(t.Text)
			if t.Kind == sqltext.QuotedIdent || !pureFunctions[name] {
				return false
			}
			if clockFunctions[name] {
				if q.punct(k+2, ")") {
					return false // date() is today
				}
				clock = true
			}
			builds = builds || textBuilders[name]
		}
	}
	return !(clock && builds)
}

// stringValue is the value of a string literal token.
func stringValue(text string) string {
	if len(text) < 2 {
		return text
	}
	return strings.ReplaceAll(text[1:len(text)-1], "''", "'")
}
