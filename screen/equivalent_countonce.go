package screen

import (
	"strings"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/sqltext"
)

// countOnceProved proves COUNT(x) against COUNT(DISTINCT x) equivalent
// when no value of x can be counted twice in a group: every table of the
// top-level FROM (inner joins only) is then one row per value of x in the
// group (pinned, with x fixed). defog academic's
// COUNT(a.aid) over author JOIN domain_author JOIN domain GROUP BY d.name
// (domain.name never repeated, domain_author's pair its key) is one.
// Keys and UNIQUE marks may be implied ones (constraints.Set.Apply,
// ApplyFacts), which variants keep.
func countOnceProved(gold string, m Mutant, s *sqlgym.Schema) (bool, string) {
	q := analyse(gold)
	srcs, ok := q.topSources(s)
	if !ok {
		return false, ""
	}
	arg := q.changedCount(m.SQL)
	if arg < 0 {
		return false, ""
	}
	end := q.closing(arg - 1)
	if q.word(end+1, "over") {
		return false, "" // a window's frame, not the group
	}
	if q.word(arg, "distinct") {
		arg++
	}
	ci, cc, first, ok := q.colAt(end-1, srcs)
	if !ok || first != arg {
		return false, ""
	}
	if !q.pinned(s, srcs, []colAt{{ci, cc}}) {
		return false, ""
	}
	return true, "each counted " + cc.Name + " is one row of every joined table: their keys are fixed in the group"
}

// pinned reports whether, within one group of the query (its top-level
// GROUP BY; the whole result without one), each top-level FROM table is
// at most one row once the columns fixed hold one non-NULL value: every
// table's key (its whole primary key, declared or implied, or a UNIQUE
// column) is then held by values fixed in the group: the columns fixed,
// the NOT NULL GROUP BY keys, a column equal to a literal or to a fixed
// column through a top-level AND-ed equality of an ON or the WHERE; a
// pinned table fixes all its columns. Inner joins only. Ignoring a
// condition is always safe (fewer rows cannot make more), so an ON or
// WHERE holding an OR gives no equality rather than a refusal.
func (q *query) pinned(s *sqlgym.Schema, srcs []source, fixed []colAt) bool {
	from, fromEnd := q.topFrom()
	if from < 0 {
		return false
	}
	for k := from; k < fromEnd; k++ {
		if q.toks[k].depth == 0 && q.word(k, "left", "right", "full", "outer", "cross", "natural", "using") {
			return false // a NULL-extended row is no row of its table
		}
	}
	bound := make([]map[string]bool, len(srcs))
	for i := range bound {
		bound[i] = map[string]bool{}
	}
	bind := func(i int, c *sqlgym.Column) bool {
		n := strings.ToLower(c.Name)
		if bound[i][n] {
			return false
		}
		bound[i][n] = true
		return true
	}
	for _, c := range fixed {
		bind(c.src, c.col)
	}
	aliases := q.selectAliases()
	for _, g := range q.groupBys() {
		if len(g) == 0 || q.toks[g[0][0]].depth != 0 {
			continue
		}
		for _, key := range g {
			// A NULL key gathers every row holding NULL into one group,
			// which a UNIQUE column allows several of.
			if i, c, ok := q.keyColumn(key, srcs, aliases); ok && (c.NotNull || keyNotNull(s, srcs[i].table, c)) {
				bind(i, c)
			}
		}
	}
	var eqs [][2]colAt
	for k := from; k < len(q.toks); k++ {
		if q.toks[k].depth != 0 || !q.word(k, "on", "where") {
			continue
		}
		stop := q.clauseEnd(k, "join", "inner", "where", "group", "having", "order", "limit", "offset", "window", "fetch")
		if q.word(k, "where") {
			stop = q.clauseEnd(k, "group", "having", "order", "limit", "offset", "window", "fetch")
		}
		for c := k + 1; c < stop; c++ {
			if q.toks[c].depth == 0 && q.punct(c, ",") {
				stop = c // "a JOIN b ON ..., c"
			}
		}
		starts, or := q.conjuncts(k, stop)
		if or {
			continue
		}
		for n, a := range starts {
			b := stop
			if n+1 < len(starts) {
				b = starts[n+1] - 1
			}
			l, r, lit, ok := q.equality(a, b, srcs)
			switch {
			case !ok:
			case lit:
				bind(l.src, l.col)
			default:
				eqs = append(eqs, [2]colAt{l, r})
			}
		}
	}
	pinned := make([]bool, len(srcs))
	for changed := true; changed; {
		changed = false
		for _, e := range eqs {
			for _, p := range [][2]colAt{{e[0], e[1]}, {e[1], e[0]}} {
				if bound[p[0].src][strings.ToLower(p[0].col.Name)] && bind(p[1].src, p[1].col) {
					changed = true
				}
			}
		}
		for i, src := range srcs {
			if pinned[i] || !keyHeld(src.table, bound[i]) {
				continue
			}
			pinned[i], changed = true, true
			for c := range src.table.Columns {
				bind(i, &src.table.Columns[c])
			}
		}
	}
	for i := range srcs {
		if !pinned[i] {
			return false
		}
	}
	return true
}

// changedCount returns the index of the first argument token of the
// top-level COUNT whose DISTINCT the mutant sql adds or removes (as
// countDistincts makes it), or -1.
func (q *query) changedCount(mutant string) int {
	for k := range q.toks {
		if q.toks[k].depth != 0 || !q.word(k, "count") || !q.punct(k+1, "(") || k+2 >= len(q.toks) {
			continue
		}
		a := k + 2
		switch {
		case q.word(a, "distinct"):
			if q.remove(a, a) == mutant {
				return a
			}
		case q.punct(a, ")") || q.toks[a].Text == "*" || q.word(a, "all"):
		default:
			if q.edit(q.toks[a].Pos, q.toks[a].Pos, "DISTINCT ") == mutant {
				return a
			}
		}
	}
	return -1
}

// equality reads tokens [a, b) as "ref = ref" or "ref = literal" (either
// way round), refs resolved among srcs; lit says the right side is a
// literal and l the column compared with it.
func (q *query) equality(a, b int, srcs []source) (l, r colAt, lit, ok bool) {
	eq := -1
	for k := a; k < b; k++ {
		if q.isOp(k, "=") || q.isOp(k, "==") {
			if eq >= 0 {
				return l, r, false, false
			}
			eq = k
		}
	}
	if eq < 0 {
		return l, r, false, false
	}
	side := func(x, y int) (colAt, bool, bool) {
		if y-x == 1 && (q.toks[x].Kind == sqltext.Number || q.toks[x].Kind == sqltext.String) {
			return colAt{}, true, true
		}
		if y-x != 1 && y-x != 3 {
			return colAt{}, false, false
		}
		i, c, first, ok := q.colAt(y-1, srcs)
		return colAt{i, c}, false, ok && first == x
	}
	lc, llit, lok := side(a, eq)
	rc, rlit, rok := side(eq+1, b)
	switch {
	case !lok || !rok || llit && rlit:
		return l, r, false, false
	case llit:
		return rc, colAt{}, true, true
	case rlit:
		return lc, colAt{}, true, true
	}
	return lc, rc, false, lc.src != rc.src || !strings.EqualFold(lc.col.Name, rc.col.Name)
}

// keyHeld reports whether the bound columns hold a key of tb: its whole
// primary key or one UNIQUE column. Bound values are never NULL, so a key
// that allows NULLs still tells them apart.
func keyHeld(tb *sqlgym.Table, bound map[string]bool) bool {
	if len(tb.PrimaryKey) > 0 {
		all := true
		for _, p := range tb.PrimaryKey {
			all = all && bound[strings.ToLower(p)]
		}
		if all {
			return true
		}
	}
	for i := range tb.Columns {
		if tb.Columns[i].Unique && bound[strings.ToLower(tb.Columns[i].Name)] {
			return true
		}
	}
	return false
}
