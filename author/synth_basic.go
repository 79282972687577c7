package author

import (
	"fmt"

	"github.com/sqlgym/sqlgym"
)

// Templates for the filter, join and aggregate levels. Each returns false
// when the database has nothing the template needs.

func genFilterCount(g *gen) (Candidate, bool) {
	t, c, ok := g.pickTableCol(anyTable, isCat)
	if !ok {
		return Candidate{}, false
	}
	v, _, _ := g.catValue(c, 0)
	e := g.eq(c, v)
	return Candidate{
		Question: g.pick("How many "+t.plural+" are there "+e+"?", "Count the "+t.plural+" "+e+".", "What is the number of "+t.plural+" "+e+"?"),
		SQL:      fmt.Sprintf("SELECT COUNT(*) FROM %s WHERE %s = %s", ident(t.name), col(c, false), lit(v)),
	}, true
}

func genFilterList(g *gen) (Candidate, bool) {
	t, c, ok := g.pickTableCol(hasLabel, isCat)
	if !ok || !notLabel(t)(c) {
		return Candidate{}, false
	}
	v, _, ok := g.catValue(c, 50)
	if !ok {
		return Candidate{}, false
	}
	e, lp := g.eq(c, v), listWords(t)
	return Candidate{
		Question: g.pick("List the "+lp+" of "+t.plural+" "+e+".", "What are the "+lp+" of the "+t.plural+" "+e+"?", "Show the "+lp+" of all "+t.plural+" "+e+"."),
		SQL:      fmt.Sprintf("SELECT %s FROM %s WHERE %s = %s", labelSQL(t, false), ident(t.name), col(c, false), lit(v)),
	}, true
}

// listWords is what a list of a table's rows shows: "names", "first and
// last names", or "ids" when the rows have no better name than their key.
func listWords(t *table) string {
	if labelIsKey(t) {
		return "ids"
	}
	return labelPlural(t)
}

func genFilterListCmp(g *gen) (Candidate, bool) {
	t, n, ok := g.pickTableCol(hasLabel, isNum)
	if !ok || !notLabel(t)(n) {
		return Candidate{}, false
	}
	op, v, ok := g.threshold(n, 45)
	if !ok {
		return Candidate{}, false
	}
	c := g.cmp(n, op, v)
	where := fmt.Sprintf("WHERE %s %s %s", col(n, false), op, lit(v))
	if g.rng.IntN(2) == 0 {
		return Candidate{
			Question: g.pick("List the "+listWords(t)+" of "+t.plural+" "+c+".", "Which "+t.plural+" are there "+c+"? Give their "+listWords(t)+"."),
			SQL:      fmt.Sprintf("SELECT %s FROM %s %s", labelSQL(t, false), ident(t.name), where),
		}, true
	}
	return Candidate{
		Question: "Give the " + t.labelWords + " and " + n.words + " of each " + t.singular + " " + c + ".",
		SQL:      fmt.Sprintf("SELECT %s, %s FROM %s %s", labelSQL(t, false), col(n, false), ident(t.name), where),
	}, true
}

// threshold picks > or < with a value from the column's extremes, so that
// few rows pass.
func (g *gen) threshold(n *column, max int) (string, sqlgym.Value, bool) {
	if g.rng.IntN(2) == 0 {
		v, ok := g.above(n, max)
		return ">", v, ok
	}
	v, ok := g.below(n, max)
	return "<", v, ok
}

func genFilterCountCmp(g *gen) (Candidate, bool) {
	t, n, ok := g.pickTableCol(anyTable, isNum)
	if !ok || len(n.sample) < 3 {
		return Candidate{}, false
	}
	// An inner value: past the extremes the count would be zero.
	v := n.sample[1+g.rng.IntN(len(n.sample)-2)]
	op := g.pick(">", ">=", "<", "<=")
	c := g.cmp(n, op, v)
	return Candidate{
		Question: g.pick("How many "+t.plural+" are there "+c+"?", "Count the "+t.plural+" "+c+"."),
		SQL:      fmt.Sprintf("SELECT COUNT(*) FROM %s WHERE %s %s %s", ident(t.name), col(n, false), op, lit(v)),
	}, true
}

func genFilterTwo(g *gen) (Candidate, bool) {
	t, a, ok := g.pickTableCol(anyTable, isCat)
	if !ok {
		return Candidate{}, false
	}
	others := t.colsWhere(func(c *column) bool { return c != a && (c.cat || c.number) })
	b, ok := pickOne(g, others)
	if !ok {
		return Candidate{}, false
	}
	va, _, _ := g.catValue(a, 0)
	var pb, wb string
	if b.cat && (!b.number || g.rng.IntN(2) == 0) {
		vb, _, _ := g.catValue(b, 0)
		pb, wb = g.eq(b, vb), fmt.Sprintf("%s = %s", col(b, false), lit(vb))
	} else {
		vb, ok := g.anyValue(b)
		if !ok {
			return Candidate{}, false
		}
		op := g.pick(">", "<")
		pb, wb = g.cmp(b, op, vb), fmt.Sprintf("%s %s %s", col(b, false), op, lit(vb))
	}
	return Candidate{
		Question: g.pick("How many "+t.plural+" are there "+g.eq(a, va)+" and "+pb+"?", "Count the "+t.plural+" "+g.eq(a, va)+" and "+pb+"."),
		SQL:      fmt.Sprintf("SELECT COUNT(*) FROM %s WHERE %s = %s AND %s", ident(t.name), col(a, false), lit(va), wb),
	}, true
}

func genFilterLookup(g *gen) (Candidate, bool) {
	t, u, ok := g.pickTableCol(anyTable, func(c *column) bool { return c.unique && c.text && !c.key && c.avgLen() <= 40 && c.nulls == 0 })
	if !ok {
		return Candidate{}, false
	}
	x, ok := pickOne(g, t.colsWhere(func(c *column) bool {
		return c != u && !c.key && (c.cat || c.number || c.date || c.text) && c.avgLen() <= 40
	}))
	if !ok {
		return Candidate{}, false
	}
	v, ok := g.anyValue(u)
	if !ok {
		return Candidate{}, false
	}
	e := g.eq(u, v)
	return Candidate{
		Question: g.pick("What is the "+x.words+" of the "+t.singular+" "+e+"?", "Give the "+x.words+" of the "+t.singular+" "+e+"."),
		SQL:      fmt.Sprintf("SELECT %s FROM %s WHERE %s = %s", col(x, false), ident(t.name), col(u, false), lit(v)),
	}, true
}

func genFilterBetween(g *gen) (Candidate, bool) {
	t, n, ok := g.pickTableCol(hasLabel, isNum)
	if !ok || !notLabel(t)(n) || len(n.sample) < 4 {
		return Candidate{}, false
	}
	i := g.rng.IntN(len(n.sample) - 1)
	j := min(len(n.sample)-1, i+1+g.rng.IntN(2))
	a, b := n.sample[i], n.sample[j]
	return Candidate{
		Question: "List the " + listWords(t) + " of " + t.plural + " whose " + n.words + " is between " + say(a) + " and " + say(b) + ", both included.",
		SQL:      fmt.Sprintf("SELECT %s FROM %s WHERE %s BETWEEN %s AND %s", labelSQL(t, false), ident(t.name), col(n, false), lit(a), lit(b)),
	}, true
}

// parentPick picks a way to select parent rows of a link by one value: a
// category, or a unique name (then the parent is singular).
type rowPick struct {
	phrase string // "customers from France", "the category named 'Books'"
	where  string // "customers.country = 'France'"
}

func (g *gen) pickRows(t *table, q bool, maxRows int64) (rowPick, bool) {
	cands := t.colsWhere(func(c *column) bool {
		return c.cat || c.unique && c.text && !c.key && c.avgLen() <= 40 && c.nulls == 0 && c.t.rows <= 5000
	})
	c, ok := pickOne(g, cands)
	if !ok {
		return rowPick{}, false
	}
	if c.cat {
		v, _, ok := g.catValue(c, maxRows)
		if !ok {
			return rowPick{}, false
		}
		return rowPick{t.plural + " " + g.eq(c, v), fmt.Sprintf("%s = %s", col(c, q), lit(v))}, true
	}
	v, ok := g.anyValue(c)
	if !ok {
		return rowPick{}, false
	}
	return rowPick{"the " + t.singular + " " + g.eq(c, v), fmt.Sprintf("%s = %s", col(c, q), lit(v))}, true
}

func genJoinCount(g *gen) (Candidate, bool) {
	l, ok := pickOne(g, g.linksWhere(func(*link) bool { return true }))
	if !ok {
		return Candidate{}, false
	}
	pr, ok := g.pickRows(l.parent, true, 0)
	if !ok {
		return Candidate{}, false
	}
	ph := l.child.plural + " " + l.ToParent + " " + pr.phrase
	return Candidate{
		Question: g.pick("How many "+ph+" are there?", "Count the "+ph+"."),
		SQL:      fmt.Sprintf("SELECT COUNT(*) %s WHERE %s", joinSQL(l), pr.where),
	}, true
}

func genJoinList(g *gen) (Candidate, bool) {
	l, ok := pickOne(g, g.linksWhere(func(l *link) bool { return hasLabel(l.child) }))
	if !ok {
		return Candidate{}, false
	}
	pr, ok := g.pickRows(l.parent, true, 0)
	if !ok {
		return Candidate{}, false
	}
	set := l.child.plural + " " + l.ToParent + " " + pr.phrase
	q := "List the " + listWords(l.child) + " of " + set + "."
	where := pr.where
	if n, ok := pickOne(g, l.child.colsWhere(isNum)); ok && g.rng.IntN(2) == 0 {
		v, ok := g.anyValue(n)
		if !ok {
			return Candidate{}, false
		}
		op := g.pick(">", "<")
		// The condition on the child goes last, apart, so it cannot be
		// read as a condition on the parent.
		q = "Among " + set + ", list the " + listWords(l.child) + " of those " + g.cmp(n, op, v) + "."
		where += fmt.Sprintf(" AND %s %s %s", col(n, true), op, lit(v))
	}
	return Candidate{Question: q, SQL: fmt.Sprintf("SELECT %s %s WHERE %s", labelSQL(l.child, true), joinSQL(l), where)}, true
}

func genJoinPair(g *gen) (Candidate, bool) {
	l, ok := pickOne(g, g.linksWhere(func(l *link) bool { return hasLabel(l.child) && hasLabel(l.parent) && !labelIsKey(l.parent) }))
	if !ok {
		return Candidate{}, false
	}
	var pred, where string
	if c, ok := pickOne(g, l.child.colsWhere(isCat)); ok && g.rng.IntN(2) == 0 {
		v, _, ok := g.catValue(c, 50)
		if !ok {
			return Candidate{}, false
		}
		pred, where = g.eq(c, v), fmt.Sprintf("%s = %s", col(c, true), lit(v))
	} else if n, ok := pickOne(g, l.child.colsWhere(isNum)); ok {
		op, v, ok := g.threshold(n, 40)
		if !ok {
			return Candidate{}, false
		}
		pred, where = g.cmp(n, op, v), fmt.Sprintf("%s %s %s", col(n, true), op, lit(v))
	} else {
		return Candidate{}, false
	}
	cw := labelName(l.child)
	return Candidate{
		Question: "For each " + l.child.singular + " " + pred + ", give its " + cw + " and the " + l.parent.labelWords + " of its " + l.parent.singular + ".",
		SQL:      fmt.Sprintf("SELECT %s, %s %s WHERE %s", labelSQL(l.child, true), labelSQL(l.parent, true), joinSQL(l), where),
	}, true
}

func genJoinTwoHop(g *gen) (Candidate, bool) {
	type hop struct{ a, b *link }
	var hops []hop
	for _, a := range g.linksWhere(func(*link) bool { return true }) {
		for _, b := range a.parent.parents {
			if b.parent != a.child && b.parent.rows > 0 {
				hops = append(hops, hop{a, b})
			}
		}
	}
	h, ok := pickOne(g, hops)
	if !ok {
		return Candidate{}, false
	}
	pr, ok := g.pickRows(h.b.parent, true, 0)
	if !ok {
		return Candidate{}, false
	}
	ph := h.a.child.plural + " " + h.a.ToParent + " " + h.a.parent.plural + " " + h.b.ToParent + " " + pr.phrase
	return Candidate{
		Question: g.pick("How many "+ph+" are there?", "Count the "+ph+"."),
		SQL: fmt.Sprintf("SELECT COUNT(*) %s JOIN %s ON %s = %s WHERE %s", joinSQL(h.a), ident(h.b.parent.name),
			col(h.b.fk, true), col(h.b.pk, true), pr.where),
	}, true
}

// aggWords words an aggregate of a column: "the average price", "the sum
// of the total amounts".
func aggWords(agg string, n *column) string {
	switch agg {
	case "AVG":
		return "the average " + n.words
	case "SUM":
		return "the sum of the " + plural(n.words)
	case "MIN":
		return "the lowest " + n.words
	case "MAX":
		return "the highest " + n.words
	}
	panic("author: unknown aggregate " + agg)
}

// aggOf words an aggregate over a set of rows: "the average price of
// products in ...", "the lowest price among products in ...".
func aggOf(agg string, n *column, set string) string {
	if agg == "MIN" || agg == "MAX" {
		return aggWords(agg, n) + " among " + set
	}
	return aggWords(agg, n) + " of " + set
}

// pickAgg picks an aggregate that means something on the column.
func (g *gen) pickAgg(n *column) string {
	if g.p.lex.summable(n) {
		return g.pick("AVG", "SUM", "MIN", "MAX")
	}
	return g.pick("AVG", "MIN", "MAX")
}

func genAggEq(g *gen) (Candidate, bool) {
	t, n, ok := g.pickTableCol(func(t *table) bool { return len(t.colsWhere(isCat)) > 0 }, isNum)
	if !ok {
		return Candidate{}, false
	}
	c, _ := pickOne(g, t.colsWhere(func(c *column) bool { return c.cat && c != n }))
	if c == nil {
		return Candidate{}, false
	}
	v, _, _ := g.catValue(c, 0)
	agg := g.pickAgg(n)
	return Candidate{
		Question: g.pick("What is "+aggOf(agg, n, t.plural+" "+g.eq(c, v))+"?", "Among "+t.plural+" "+g.eq(c, v)+", what is "+aggWords(agg, n)+"?"),
		SQL:      fmt.Sprintf("SELECT %s(%s) FROM %s WHERE %s = %s", agg, col(n, false), ident(t.name), col(c, false), lit(v)),
	}, true
}

func genAggJoin(g *gen) (Candidate, bool) {
	l, ok := pickOne(g, g.linksWhere(func(l *link) bool { return len(l.child.colsWhere(isNum)) > 0 }))
	if !ok {
		return Candidate{}, false
	}
	n, _ := pickOne(g, l.child.colsWhere(isNum))
	pr, ok := g.pickRows(l.parent, true, 0)
	if !ok {
		return Candidate{}, false
	}
	agg := g.pickAgg(n)
	return Candidate{
		Question: "What is " + aggOf(agg, n, l.child.plural+" "+l.ToParent+" "+pr.phrase) + "?",
		SQL:      fmt.Sprintf("SELECT %s(%s) %s WHERE %s", agg, col(n, true), joinSQL(l), pr.where),
	}, true
}

func genAggDistinct(g *gen) (Candidate, bool) {
	t, d, ok := g.pickTableCol(anyTable, func(c *column) bool { return (c.cat || c.text && c.distinct > maxCat && c.avgLen() <= 40) && !c.key })
	if !ok {
		return Candidate{}, false
	}
	c, _ := pickOne(g, t.colsWhere(func(c *column) bool { return c.cat && c != d }))
	if c == nil || g.rng.IntN(3) == 0 {
		return Candidate{
			Question: g.pick("How many distinct "+plural(d.words)+" appear among the "+t.plural+"?", "How many different "+plural(d.words)+" do the "+t.plural+" have?"),
			SQL:      fmt.Sprintf("SELECT COUNT(DISTINCT %s) FROM %s", col(d, false), ident(t.name)),
		}, true
	}
	v, _, _ := g.catValue(c, 0)
	return Candidate{
		Question: "How many distinct " + plural(d.words) + " appear among " + t.plural + " " + g.eq(c, v) + "?",
		SQL:      fmt.Sprintf("SELECT COUNT(DISTINCT %s) FROM %s WHERE %s = %s", col(d, false), ident(t.name), col(c, false), lit(v)),
	}, true
}

func genAggAll(g *gen) (Candidate, bool) {
	t, n, ok := g.pickTableCol(anyTable, isNum)
	if !ok {
		return Candidate{}, false
	}
	agg := g.pickAgg(n)
	w := aggWords(agg, n)
	return Candidate{
		Question: g.pick("What is "+w+" over all "+t.plural+"?", "Across all "+t.plural+", what is "+w+"?"),
		SQL:      fmt.Sprintf("SELECT %s(%s) FROM %s", agg, col(n, false), ident(t.name)),
	}, true
}
