package author

import (
	"fmt"
	"strconv"

	"github.com/sqlgym/sqlgym"
)

// Templates for the group_by and order_limit levels.

// notNull is the WHERE clause that keeps a nullable grouping column's
// NULL group out, and the words that say so.
func notNull(c *column, q bool) (string, string) {
	if c.nulls == 0 {
		return "", ""
	}
	return fmt.Sprintf(" WHERE %s IS NOT NULL", col(c, q)), " (leave out " + c.t.plural + " with no " + c.words + ")"
}

func genGroupCount(g *gen) (Candidate, bool) {
	t, c, ok := g.pickTableCol(anyTable, isCat)
	if !ok {
		return Candidate{}, false
	}
	w, say := notNull(c, false)
	return Candidate{
		Question: g.pick("For each "+c.words+", how many "+t.plural+" are there? Give the "+c.words+" and the count"+say+".",
			"Count the "+t.plural+" per "+c.words+": give each "+c.words+" with its number of "+t.plural+say+"."),
		SQL: fmt.Sprintf("SELECT %s, COUNT(*) FROM %s%s GROUP BY %s", col(c, false), ident(t.name), w, col(c, false)),
	}, true
}

func genGroupHaving(g *gen) (Candidate, bool) {
	t, c, ok := g.pickTableCol(anyTable, isCat)
	if !ok {
		return Candidate{}, false
	}
	f, _ := pickOne(g, c.freq)
	k := f.n - 1
	if k < 1 {
		return Candidate{}, false
	}
	w, _ := notNull(c, false)
	return Candidate{
		Question: g.pick("Which "+plural(c.words)+" have more than "+itoa(k)+" "+t.plural+"?",
			"List the "+plural(c.words)+" shared by more than "+itoa(k)+" "+t.plural+"."),
		SQL: fmt.Sprintf("SELECT %s FROM %s%s GROUP BY %s HAVING COUNT(*) > %d", col(c, false), ident(t.name), w, col(c, false), k),
	}, true
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func genGroupAgg(g *gen) (Candidate, bool) {
	t, c, ok := g.pickTableCol(func(t *table) bool { return len(t.colsWhere(isNum)) > 0 }, isCat)
	if !ok {
		return Candidate{}, false
	}
	n, _ := pickOne(g, t.colsWhere(func(x *column) bool { return x.number && x != c }))
	if n == nil {
		return Candidate{}, false
	}
	agg := g.pickAgg(n)
	aw := aggWords(agg, n)
	w, say := notNull(c, false)
	return Candidate{
		Question: "For each " + c.words + ", what is " + aw + " of its " + t.plural + "? Give the " + c.words + " and " + aw + say + ".",
		SQL:      fmt.Sprintf("SELECT %s, %s(%s) FROM %s%s GROUP BY %s", col(c, false), agg, col(n, false), ident(t.name), w, col(c, false)),
	}, true
}

// parentCols is the parent's key and label for a grouped select; it groups
// by the key too, so namesakes stay apart.
func parentCols(t *table) (sel, group string) {
	if labelIsKey(t) {
		return col(t.pk, true), col(t.pk, true)
	}
	return labelSQL(t, true), col(t.pk, true) + ", " + labelSQL(t, true)
}

func genGroupParent(g *gen) (Candidate, bool) {
	l, ok := pickOne(g, g.linksWhere(func(l *link) bool { return hasLabel(l.parent) && l.parent.pk != nil }))
	if !ok {
		return Candidate{}, false
	}
	sel, group := parentCols(l.parent)
	lw := l.parent.labelWords
	if labelIsKey(l.parent) {
		lw = pkWords(l.parent)
	}
	from := fmt.Sprintf("FROM %s LEFT JOIN %s ON %s = %s", ident(l.parent.name), ident(l.child.name), col(l.fk, true), col(l.pk, true))
	subject, where := "each "+l.parent.singular, ""
	if l.parent.rows > 50 {
		pr, ok := g.pickRows(l.parent, true, 50)
		if !ok || pr.phrase[:4] == "the " {
			return Candidate{}, false
		}
		subject, where = "each of the "+pr.phrase, " WHERE "+pr.where
	}
	return Candidate{
		Question: "For " + subject + ", give the " + lw + " and the number of " + l.child.plural + " (zero when there are none).",
		SQL:      fmt.Sprintf("SELECT %s, COUNT(%s) %s%s GROUP BY %s", sel, col(l.fk, true), from, where, group),
	}, true
}

func genGroupHavingParent(g *gen) (Candidate, bool) {
	l, ok := pickOne(g, g.linksWhere(func(l *link) bool { return hasLabel(l.parent) && l.parent.pk != nil && len(l.perParent) > 1 }))
	if !ok {
		return Candidate{}, false
	}
	// A count that some parents exceed: at least one, rarely most.
	f := l.perParent[len(l.perParent)/2+g.rng.IntN((len(l.perParent)+1)/2)]
	k := f.v.Int - 1
	if k < 1 {
		return Candidate{}, false
	}
	sel, group := parentCols(l.parent)
	give := l.parent.labelWords
	if !labelIsKey(l.parent) {
		sel = col(l.parent.pk, true) + ", " + sel
		give = pkWords(l.parent) + " and " + l.parent.labelWords
	}
	return Candidate{
		Question: g.pick("Which "+l.parent.plural+" "+l.ToChild+" more than "+itoa(k)+" "+l.child.plural+"? Give their "+give+".",
			"List the "+give+" of every "+l.parent.singular+" that "+l.ToChild1+" more than "+itoa(k)+" "+l.child.plural+"."),
		SQL: fmt.Sprintf("SELECT %s FROM %s JOIN %s ON %s = %s GROUP BY %s HAVING COUNT(*) > %d", sel, ident(l.parent.name),
			ident(l.child.name), col(l.fk, true), col(l.pk, true), group, k),
	}, true
}

func genGroupCountFiltered(g *gen) (Candidate, bool) {
	t, c, ok := g.pickTableCol(func(t *table) bool { return len(t.colsWhere(isCat)) > 1 }, isCat)
	if !ok {
		return Candidate{}, false
	}
	d, _ := pickOne(g, t.colsWhere(func(x *column) bool { return x.cat && x != c }))
	v, _, _ := g.catValue(d, 0)
	w, say := notNull(c, false)
	if w == "" {
		w = " WHERE "
	} else {
		w += " AND "
	}
	return Candidate{
		Question: "Among " + t.plural + " " + g.eq(d, v) + ", how many are there for each " + c.words + "? Give the " + c.words + " and the count" + say + ".",
		SQL:      fmt.Sprintf("SELECT %s, COUNT(*) FROM %s%s%s = %s GROUP BY %s", col(c, false), ident(t.name), w, col(d, false), lit(v), col(c, false)),
	}, true
}

// dirWords words a sort direction on a column.
func dirWords(desc bool) (string, string) {
	if desc {
		return "DESC", "highest"
	}
	return "ASC", "lowest"
}

func genTopK(g *gen) (Candidate, bool) {
	t, n, ok := g.pickTableCol(hasLabel, isNum)
	if !ok || !notLabel(t)(n) {
		return Candidate{}, false
	}
	k := 2 + g.rng.IntN(9)
	dir, dw := dirWords(g.rng.IntN(2) == 0)
	where := fmt.Sprintf(" WHERE %s IS NOT NULL", col(n, false))
	lw := labelName(t)
	ks := strconv.Itoa(k)
	q := g.pick("List the "+plural(lw)+" and "+plural(n.words)+" of the "+ks+" "+t.plural+" with the "+dw+" "+n.words+".",
		"Which "+ks+" "+t.plural+" have the "+dw+" "+n.words+"? Give each one's "+lw+" and "+n.words+".")
	if c, ok := pickOne(g, t.colsWhere(func(x *column) bool { return x.cat && x != n })); ok && g.rng.IntN(2) == 0 {
		v, cnt, _ := g.catValue(c, 0)
		if cnt <= int64(k) {
			return Candidate{}, false
		}
		q = "Among " + t.plural + " " + g.eq(c, v) + ", list the " + plural(lw) + " and " + plural(n.words) + " of the " + ks + " with the " + dw + " " + n.words + "."
		where += fmt.Sprintf(" AND %s = %s", col(c, false), lit(v))
	}
	base := fmt.Sprintf("FROM %s%s ORDER BY %s %s", ident(t.name), where, col(n, false), dir)
	c := Candidate{
		Question: q,
		TieSQL:   fmt.Sprintf("SELECT %s %s LIMIT %d", col(n, false), base, k+1),
		TieAt:    k,
	}
	// Rows tied inside the top k come back in the table's key order from
	// SQLite's sorter; PostgreSQL's returns them in any order, so the
	// other engines' gold names that order (a tie at the cut is refused
	// by TieSQL either way).
	g.forEngines(&c, false, func(dl sqlgym.Dialect) string {
		order := base
		if dl != g.p.dialect && t.pk != nil && t.pk != n {
			order += ", " + col(t.pk, false)
		}
		return fmt.Sprintf("SELECT %s, %s %s LIMIT %d", labelSQL(t, false), col(n, false), order, k)
	})
	return c, true
}

func genArgMax(g *gen) (Candidate, bool) {
	t, n, ok := g.pickTableCol(hasLabel, isNum)
	if !ok || !notLabel(t)(n) {
		return Candidate{}, false
	}
	dir, dw := dirWords(g.rng.IntN(2) == 0)
	where := fmt.Sprintf(" WHERE %s IS NOT NULL", col(n, false))
	lw := labelName(t)
	q := g.pick("Which "+t.singular+" has the "+dw+" "+n.words+"? Give its "+lw+".", "Give the "+lw+" of the "+t.singular+" with the "+dw+" "+n.words+".")
	if c, ok := pickOne(g, t.colsWhere(isCat)); ok && g.rng.IntN(2) == 0 {
		v, _, _ := g.catValue(c, 0)
		where += fmt.Sprintf(" AND %s = %s", col(c, false), lit(v))
		q = "Among " + t.plural + " " + g.eq(c, v) + ", which one has the " + dw + " " + n.words + "? Give its " + lw + "."
	}
	base := fmt.Sprintf("FROM %s%s ORDER BY %s %s", ident(t.name), where, col(n, false), dir)
	return Candidate{
		Question: q,
		SQL:      fmt.Sprintf("SELECT %s %s LIMIT 1", labelSQL(t, false), base),
		TieSQL:   fmt.Sprintf("SELECT %s %s LIMIT 2", col(n, false), base),
		TieAt:    1,
	}, true
}

func genArgMaxCat(g *gen) (Candidate, bool) {
	t, c, ok := g.pickTableCol(anyTable, isCat)
	if !ok {
		return Candidate{}, false
	}
	most, dir := "most", "DESC"
	if g.rng.IntN(3) == 0 {
		most, dir = "fewest", "ASC"
	}
	w, _ := notNull(c, false)
	subject := t.plural
	if d, ok := pickOne(g, t.colsWhere(isDate)); ok && g.rng.IntN(2) == 0 {
		y, ok := g.year(d)
		if !ok {
			return Candidate{}, false
		}
		subject = g.during(d, "in "+strconv.Itoa(y))
		w = addWhere(w, yearRange(d, y))
	} else if e, ok := pickOne(g, t.colsWhere(func(x *column) bool { return x.cat && x != c })); ok && g.rng.IntN(2) == 0 {
		v, _, _ := g.catValue(e, 0)
		subject += " " + g.eq(e, v)
		w = addWhere(w, fmt.Sprintf("%s = %s", col(e, false), lit(v)))
	}
	base := fmt.Sprintf("FROM %s%s GROUP BY %s ORDER BY COUNT(*) %s", ident(t.name), w, col(c, false), dir)
	q := "Which " + c.words + " has the " + most + " " + subject + "?"
	if most == "fewest" {
		q = "Which " + c.words + " has the fewest " + subject + ", among those with at least one?"
	}
	return Candidate{
		Question: q,
		SQL:      fmt.Sprintf("SELECT %s %s LIMIT 1", col(c, false), base),
		TieSQL:   fmt.Sprintf("SELECT COUNT(*) %s LIMIT 2", base),
		TieAt:    1,
	}, true
}

func addWhere(w, cond string) string {
	if w == "" {
		return " WHERE " + cond
	}
	return w + " AND " + cond
}

func genArgMaxParent(g *gen) (Candidate, bool) {
	l, ok := pickOne(g, g.linksWhere(func(l *link) bool { return hasLabel(l.parent) && l.parent.pk != nil }))
	if !ok {
		return Candidate{}, false
	}
	sel, group := parentCols(l.parent)
	lw := l.parent.labelWords
	where, subject := "", l.child.plural
	if c, ok := pickOne(g, l.child.colsWhere(isCat)); ok && g.rng.IntN(2) == 0 {
		v, _, _ := g.catValue(c, 0)
		where = fmt.Sprintf(" WHERE %s = %s", col(c, true), lit(v))
		subject += " " + g.eq(c, v)
	}
	base := fmt.Sprintf("FROM %s JOIN %s ON %s = %s%s GROUP BY %s ORDER BY COUNT(*) DESC", ident(l.parent.name), ident(l.child.name),
		col(l.fk, true), col(l.pk, true), where, group)
	return Candidate{
		Question: g.pick("Which "+l.parent.singular+" "+l.ToChild1+" the most "+subject+"? Give its "+lw+".",
			"Give the "+lw+" of the "+l.parent.singular+" that "+l.ToChild1+" the most "+subject+"."),
		SQL:    fmt.Sprintf("SELECT %s %s LIMIT 1", sel, base),
		TieSQL: fmt.Sprintf("SELECT COUNT(*) %s LIMIT 2", base),
		TieAt:  1,
	}, true
}

func genArgMaxSum(g *gen) (Candidate, bool) {
	t, c, ok := g.pickTableCol(func(t *table) bool { return len(t.colsWhere(isNum)) > 0 }, isCat)
	if !ok {
		return Candidate{}, false
	}
	n, _ := pickOne(g, t.colsWhere(func(x *column) bool { return x.number && x != c }))
	if n == nil {
		return Candidate{}, false
	}
	agg, aw := g.pickAgg(n), ""
	if agg != "SUM" && agg != "AVG" {
		return Candidate{}, false
	}
	if agg == "SUM" {
		aw = "the largest sum of " + plural(n.words)
	} else {
		aw = "the highest average " + n.words
	}
	w, _ := notNull(c, false)
	base := fmt.Sprintf("FROM %s%s GROUP BY %s ORDER BY %s(%s) DESC", ident(t.name), w, col(c, false), agg, col(n, false))
	return Candidate{
		Question: "Which " + c.words + " has " + aw + " over its " + t.plural + "?",
		SQL:      fmt.Sprintf("SELECT %s %s LIMIT 1", col(c, false), base),
		TieSQL:   fmt.Sprintf("SELECT %s(%s) %s LIMIT 2", agg, col(n, false), base),
		TieAt:    1,
	}, true
}
