package screen

import (
	"strings"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/sqltext"
)

// nullRowsDropped proves INNER against LEFT JOIN of a table R equivalent
// when the rows the LEFT JOIN adds (the unmatched rows, R's columns NULL)
// cannot change a group's result nor make a group of their own: the
// query groups by columns of other tables, reads R's columns only as the
// plain column argument of an aggregate that ignores NULLs (SUM, AVG, MIN,
// MAX, COUNT(r.c), GROUP_CONCAT), and its HAVING has, in its top-level AND
// chain, such an aggregate compared with a literal in a way a group of
// only NULLs fails (SUM(r.c) > 10 is NULL there, COUNT(r.c) > 0 false).
// Every other column the query reads outside an aggregate must be one
// value per group (a GROUP BY key, or of a table whose whole NOT NULL
// primary key the keys hold): a group keeps its matched rows either way,
// and its unmatched rows only add NULLs the aggregates skip. No COUNT(*)
// nor aggregate of another table's column may appear (the added rows
// would be counted). Spider's battle JOIN ship JOIN death ... GROUP BY
// battle.id HAVING SUM(death.killed) > 10 is one. Without GROUP BY the
// result is one row of aggregates, and no HAVING is needed: Spider's
// SELECT avg(T2.edispl) FROM car_names AS T1 JOIN cars_data AS T2 ...
// WHERE T1.model = 'volvo'.
//
// A LEFT JOIN's result is the inner join's plus the unmatched left rows,
// whatever the ON says, so only the rest of the query matters; later
// joins must not name R (they could match its NULLs), nor may the WHERE
// or a subquery.
func nullRowsDropped(gold string, m Mutant, s *sqlgym.Schema) (bool, string) {
	q, mq := analyse(gold), analyse(m.SQL)
	srcs, ok := q.topSources(s)
	if !ok {
		return false, ""
	}
	gj, mj := q.joinWords(), mq.joinWords()
	if len(gj) != len(mj) {
		return false, ""
	}
	flipped := -1
	for i := range gj {
		if gj[i].left != mj[i].left {
			if flipped >= 0 {
				return false, ""
			}
			flipped = i
		}
	}
	if flipped < 0 || q.toks[gj[flipped].at].depth != 0 {
		return false, ""
	}
	// R is the source the flipped JOIN names: the index of that JOIN among
	// the FROM's joins and commas, plus one.
	ri, seen := -1, 0
	from, fromEnd := q.topFrom()
	if from < 0 {
		return false, ""
	}
	for k := from; k < fromEnd; k++ {
		if q.toks[k].depth != 0 {
			continue
		}
		if q.word(k, "right", "full", "natural", "using") {
			return false, ""
		}
		if q.word(k, "join") || q.punct(k, ",") {
			seen++
			if k == gj[flipped].at {
				ri = seen
			}
		}
	}
	if ri < 0 || ri >= len(srcs) {
		return false, ""
	}
	r := srcs[ri]
	aliases := q.selectAliases()
	groups := q.groupBys()
	var keys [][2]int
	for _, g := range groups {
		if len(g) > 0 && q.toks[g[0][0]].depth == 0 {
			keys = g
		}
	}
	fixed := map[int]map[string]bool{}
	for _, key := range keys {
		i, c, ok := q.keyColumn(key, srcs, aliases)
		if !ok || i == ri {
			return false, "" // a NULL group of R's column, or an expression
		}
		if fixed[i] == nil {
			fixed[i] = map[string]bool{}
		}
		fixed[i][strings.ToLower(c.Name)] = true
	}
	oneValue := func(i int, c *sqlgym.Column) bool {
		if fixed[i][strings.ToLower(c.Name)] {
			return true
		}
		tb := srcs[i].table
		if len(tb.PrimaryKey) == 0 {
			return false
		}
		for _, p := range tb.PrimaryKey {
			pc := tb.Column(p)
			if pc == nil || !keyNotNull(s, tb, pc) || !fixed[i][strings.ToLower(p)] {
				return false
			}
		}
		return true
	}
	rCols := map[string]bool{}
	for _, c := range r.table.Columns {
		rCols[strings.ToLower(c.Name)] = true
	}
	// Where R's join sits among the FROM's tokens: its ON is its own.
	rOn, rEnd := gj[flipped].at, fromEnd
	for k := rOn + 1; k < fromEnd; k++ {
		if q.toks[k].depth == 0 && (q.word(k, "join") || q.punct(k, ",")) {
			rEnd = k
			break
		}
	}
	for k := range q.toks {
		t := q.toks[k]
		if t.Kind != sqltext.Word && t.Kind != sqltext.QuotedIdent || q.punct(k-1, ".") && !q.punct(k+1, ".") {
			continue
		}
		name := strings.ToLower(unquote(t.Text))
		qualified := q.punct(k+1, ".")
		if qualified && name != r.name || !qualified && !rCols[name] {
			continue
		}
		if k > from && k < rEnd && k >= rOn {
			continue // R's own ON
		}
		if !qualified && (q.word(k-1, "as") || q.punct(k+1, "(")) {
			continue // an alias or a function's name
		}
		at := k
		if qualified {
			at = k + 2
		}
		if i, _, first, ok := q.colAt(at, srcs); ok && first == k && i != ri {
			continue // another table's column of the same name
		}
		if !q.nullSkippingArg(k, at) {
			return false, ""
		}
	}
	// Every aggregate reads R's columns, and every other column read
	// outside one is one value per group.
	for k := range q.toks {
		if q.word(k, "over") {
			return false, "" // a window sees the added rows
		}
	}
	// The FROM, WHERE and GROUP BY filter and group the same rows either
	// way (they do not name R): only what a group shows must be one value.
	shown := q.clauseEnd(from, "having", "order", "limit", "offset", "window", "fetch")
	aggregated := false
	for k := range q.toks {
		if q.toks[k].depth > 1 || k > from && k < shown {
			continue
		}
		if q.toks[k].depth == 0 && q.punct(k+1, "(") && q.word(k, "count", "sum", "avg", "min", "max", "total", "group_concat", "string_agg") {
			if !q.nullSkippingCall(k, ri, srcs) {
				return false, ""
			}
			aggregated = true
			continue
		}
		if q.toks[k].depth != 0 || q.inAggregate(k) {
			continue
		}
		if i, c, first, ok := q.colAt(k, srcs); ok && (first == k || first == k-2) && !oneValue(i, c) {
			return false, ""
		}
		if q.punct(k, "(") && q.word(k+1, "select", "with") {
			return false, "" // a subquery could read R's rows
		}
	}
	if keys == nil {
		// One row, aggregated over the matched rows either way: the
		// aggregates skip the added NULLs, and over no match at all they
		// give what they give over none (NULL, or 0 for COUNT).
		if aggregated {
			return true, "the rows the LEFT JOIN adds hold only NULLs in " + r.table.Name + ", which the aggregates of the one result row skip"
		}
		return false, ""
	}
	// Some HAVING conjunct drops a group of only NULLs.
	having := -1
	for k := range q.toks {
		if q.toks[k].depth == 0 && q.word(k, "having") {
			having = k
		}
	}
	if having < 0 {
		return false, ""
	}
	end := q.clauseEnd(having, "order", "limit", "offset", "window", "fetch")
	starts, or := q.conjuncts(having, end)
	if or {
		return false, ""
	}
	for n, a := range starts {
		b := end
		if n+1 < len(starts) {
			b = starts[n+1] - 1
		}
		if q.dropsNullGroup(a, b, ri, srcs) {
			return true, "the rows the LEFT JOIN adds hold only NULLs in " + r.table.Name +
				", which the aggregates skip and the HAVING drops as a group of their own"
		}
	}
	return false, ""
}

// nullSkippingArg reports whether the column reference spanning tokens
// [k, at] is the whole argument of a top-level aggregate that skips NULLs.
func (q *query) nullSkippingArg(k, at int) bool {
	open := k - 1
	if q.word(open, "distinct") {
		open--
	}
	return q.punct(open, "(") && q.punct(at+1, ")") && q.toks[open].depth == 0 &&
		q.word(open-1, "count", "sum", "avg", "min", "max", "group_concat") && !q.word(q.closing(open)+1, "over")
}

// nullSkippingCall reports whether the aggregate call at k takes one
// plain column of source ri (DISTINCT allowed) and skips NULLs.
func (q *query) nullSkippingCall(k, ri int, srcs []source) bool {
	if !q.word(k, "count", "sum", "avg", "min", "max", "group_concat") {
		return false
	}
	a, end := k+2, q.closing(k+1)
	if q.word(a, "distinct") {
		a++
	}
	i, _, first, ok := q.colAt(end-1, srcs)
	return ok && first == a && i == ri
}

// inAggregate reports whether token k lies inside a top-level aggregate
// call's parentheses.
func (q *query) inAggregate(k int) bool {
	o := q.toks[k].open
	return o > 0 && q.toks[o].depth == 0 && q.word(o-1, "count", "sum", "avg", "min", "max", "total", "group_concat", "string_agg")
}

// dropsNullGroup reports whether tokens [a, b) compare an aggregate of
// source ri's column with a number so that a group whose values are all
// NULL fails: NULL for SUM, AVG, MIN, MAX; COUNT(c) > n with n >= 0 or
// >= n with n >= 1.
func (q *query) dropsNullGroup(a, b, ri int, srcs []source) bool {
	if !q.punct(a+1, "(") || !q.nullSkippingCall(a, ri, srcs) {
		return false
	}
	c := q.closing(a + 1)
	if c+3 != b || q.toks[c+1].Kind != sqltext.Operator || q.toks[c+2].Kind != sqltext.Number {
		return false
	}
	op := q.toks[c+1].Text
	if flips[op] == "" {
		return false
	}
	if !q.word(a, "count") {
		return true
	}
	n, ok := parseInt(q.toks[c+2].Text)
	return ok && (op == ">" && n >= 0 || op == ">=" && n >= 1)
}
