package screen

import (
	"strings"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/sqltext"
)

// derivedTable is a subquery in a FROM that passes columns of one base
// table through unchanged: every value its column holds is a value the
// base table's column holds in some row, so the base column's NOT NULL and
// foreign key hold for it too.
type derivedTable struct {
	table *sqlgym.Table
	// cols maps an output name (lower-cased) to the base column it passes
	// through.
	cols     map[string]string
	nullable bool // on the null side of a LEFT JOIN
}

// aggregates are the calls that, without OVER, make a SELECT of no GROUP BY
// return one row even from no rows, its bare columns NULL.
var aggregates = map[string]bool{"count": true, "sum": true, "avg": true, "min": true, "max": true, "total": true,
	"group_concat": true, "string_agg": true, "json_group_array": true, "json_group_object": true}

// derived reads "( SELECT ... FROM T [WHERE ...] [ORDER BY ...] [LIMIT ...] ) [AS] name"
// opening at token open: a SELECT of one base table with no join, GROUP
// BY, HAVING, set operation or aggregate outside a window. Its pass-through
// columns are "*", "T.*", and items that are a bare column, with or without
// an alias. Anything else is false.
func (q *query) derived(open int, s *sqlgym.Schema) (derivedTable, string, bool) {
	cl := q.closing(open)
	sel := open + 1
	if cl >= len(q.toks) || !q.word(sel, "select") {
		return derivedTable{}, "", false
	}
	a := cl + 1
	if q.word(a, "as") {
		a++
	}
	if a >= len(q.toks) || q.toks[a].Kind != sqltext.Word && q.toks[a].Kind != sqltext.QuotedIdent || reserved(q.toks[a].Text) {
		return derivedTable{}, "", false
	}
	name := strings.ToLower(unquote(q.toks[a].Text))
	d := q.toks[sel].depth
	from := -1
	for k := sel; k < cl; k++ {
		if q.toks[k].Kind == sqltext.Word && aggregates[strings.ToLower(q.toks[k].Text)] && q.punct(k+1, "(") &&
			!q.word(q.closing(k+1)+1, "over") {
			return derivedTable{}, "", false
		}
		if q.toks[k].depth != d {
			continue
		}
		switch {
		case q.word(k, "from"):
			if from >= 0 {
				return derivedTable{}, "", false
			}
			from = k
		case k != sel && q.word(k, "select", "join", "union", "intersect", "except", "group", "having", "with"):
			return derivedTable{}, "", false
		}
	}
	if from < 0 || from+1 >= cl || q.punct(from+2, ".") || q.punct(from+2, "(") {
		return derivedTable{}, "", false
	}
	tb := s.Table(unquote(q.toks[from+1].Text))
	if tb == nil {
		return derivedTable{}, "", false
	}
	end := q.clauseEnd(from, "where", "order", "limit", "window", "offset")
	for k := from + 1; k < end && k < cl; k++ {
		if q.toks[k].depth == d && q.punct(k, ",") {
			return derivedTable{}, "", false // a second table
		}
	}
	dt := derivedTable{table: tb, cols: map[string]string{}}
	start := sel + 1
	if q.word(start, "distinct", "all") {
		start++
	}
	seen := map[string]int{}
	add := func(out, col string) {
		out = strings.ToLower(out)
		seen[out]++
		dt.cols[out] = col
	}
	for _, r := range q.split(start, from) {
		n := r[1] - r[0]
		t := q.toks[r[0]]
		switch {
		case n == 1 && t.Text == "*", n == 3 && q.punct(r[0]+1, ".") && q.toks[r[0]+2].Text == "*":
			for _, c := range tb.Columns {
				add(c.Name, c.Name)
			}
			continue
		}
		col, alias := r[0], -1
		if n >= 3 && q.punct(r[0]+1, ".") {
			col = r[0] + 2
		}
		switch rest := r[1] - (col + 1); {
		case rest == 0:
		case rest == 1:
			alias = col + 1
		case rest == 2 && q.word(col+1, "as"):
			alias = col + 2
		default:
			continue
		}
		ct := q.toks[col]
		if ct.Kind != sqltext.Word && ct.Kind != sqltext.QuotedIdent || tb.Column(unquote(ct.Text)) == nil ||
			alias >= 0 && q.toks[alias].Kind != sqltext.Word && q.toks[alias].Kind != sqltext.QuotedIdent {
			continue
		}
		out := unquote(ct.Text)
		if alias >= 0 {
			out = unquote(q.toks[alias].Text)
		}
		add(out, tb.Column(unquote(ct.Text)).Name)
	}
	for out, n := range seen {
		if n > 1 {
			delete(dt.cols, out) // two items of one name: a reference to it is ambiguous
		}
	}
	return dt, name, true
}
