package author

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/sqlgym/sqlgym"
)

// Templates for the subquery, date and window levels.

func genAboveAvg(g *gen) (Candidate, bool) {
	t, n, ok := g.pickTableCol(hasLabel, isNum)
	if !ok || !notLabel(t)(n) {
		return Candidate{}, false
	}
	c, ok := pickOne(g, t.colsWhere(func(x *column) bool { return x.cat && x != n }))
	if !ok {
		return Candidate{}, false
	}
	v, _, _ := g.catValue(c, 0)
	e := g.eq(c, v)
	cond := fmt.Sprintf("%s = %s", col(c, false), lit(v))
	above, op := "above", ">"
	if g.rng.IntN(2) == 0 {
		above, op = "below", "<"
	}
	if g.rng.IntN(2) == 0 {
		return Candidate{
			Question: "List the " + listWords(t) + " of " + t.plural + " " + e + " whose " + n.words + " is " + above + " the average " + n.words + " of all " + t.plural + ".",
			SQL: fmt.Sprintf("SELECT %s FROM %s WHERE %s AND %s %s (SELECT AVG(%s) FROM %s)", labelSQL(t, false), ident(t.name), cond,
				col(n, false), op, col(n, false), ident(t.name)),
		}, true
	}
	return Candidate{
		Question: "Among " + t.plural + " " + e + ", which have " + article(n.words) + " " + n.words + " " + above + " the average of those " + t.plural + "? Give their " + listWords(t) + ".",
		SQL: fmt.Sprintf("SELECT %s FROM %s WHERE %s AND %s %s (SELECT AVG(%s) FROM %s WHERE %s)", labelSQL(t, false), ident(t.name), cond,
			col(n, false), op, col(n, false), ident(t.name), cond),
	}, true
}

// childPred picks a condition on a link's child rows: a category value or
// a threshold on a number.
func (g *gen) childPred(t *table, q bool) (string, string, bool) {
	if c, ok := pickOne(g, t.colsWhere(isCat)); ok && g.rng.IntN(3) > 0 {
		v, _, _ := g.catValue(c, 0)
		return g.eq(c, v), fmt.Sprintf("%s = %s", col(c, q), lit(v)), true
	}
	if n, ok := pickOne(g, t.colsWhere(isNum)); ok {
		op, v, ok := g.threshold(n, 40)
		return g.cmp(n, op, v), fmt.Sprintf("%s %s %s", col(n, q), op, lit(v)), ok
	}
	return "", "", false
}

func genInSubquery(g *gen) (Candidate, bool) {
	l, ok := pickOne(g, g.linksWhere(func(l *link) bool { return hasLabel(l.parent) && l.parent.pk != nil }))
	if !ok {
		return Candidate{}, false
	}
	pred, where, ok := g.childPred(l.child, false)
	if !ok {
		return Candidate{}, false
	}
	sel, give := col(l.parent.pk, false), pkWords(l.parent)
	if !labelIsKey(l.parent) {
		sel += ", " + labelSQL(l.parent, false)
		give += " and " + l.parent.labelWords
	}
	neg, not := "at least one", "IN"
	if g.rng.IntN(4) == 0 {
		neg, not = "no", "NOT IN"
	}
	return Candidate{
		Question: "Give the " + give + " of every " + l.parent.singular + " with " + neg + " " + l.child.singular + " " + pred + ".",
		SQL: fmt.Sprintf("SELECT %s FROM %s WHERE %s %s (SELECT %s FROM %s WHERE %s IS NOT NULL AND %s)", sel, ident(l.parent.name),
			col(l.parent.pk, false), not, col(l.fk, false), ident(l.child.name), col(l.fk, false), where),
	}, true
}

func genNotExists(g *gen) (Candidate, bool) {
	l, ok := pickOne(g, g.linksWhere(func(l *link) bool { return l.parent.pk != nil }))
	if !ok {
		return Candidate{}, false
	}
	subject, where := l.parent.plural, ""
	if g.rng.IntN(2) == 0 {
		pr, ok := g.pickRows(l.parent, true, 0)
		if !ok || pr.phrase[:4] == "the " {
			return Candidate{}, false
		}
		subject, where = pr.phrase, " AND "+pr.where
	}
	exists := fmt.Sprintf("NOT EXISTS (SELECT 1 FROM %s WHERE %s = %s)", ident(l.child.name), col(l.fk, true), col(l.pk, true))
	if hasLabel(l.parent) && g.rng.IntN(2) == 0 {
		sel, give := col(l.parent.pk, true), pkWords(l.parent)
		if !labelIsKey(l.parent) {
			sel += ", " + labelSQL(l.parent, true)
			give += " and " + l.parent.labelWords
		}
		return Candidate{
			Question: "Which " + subject + " have no " + l.child.plural + " at all? Give their " + give + ".",
			SQL:      fmt.Sprintf("SELECT %s FROM %s WHERE %s%s", sel, ident(l.parent.name), exists, where),
		}, true
	}
	return Candidate{
		Question: g.pick("How many "+subject+" have no "+l.child.plural+" at all?", "Count the "+subject+" that have no "+l.child.plural+"."),
		SQL:      fmt.Sprintf("SELECT COUNT(*) FROM %s WHERE %s%s", ident(l.parent.name), exists, where),
	}, true
}

func genCTEAvgPerParent(g *gen) (Candidate, bool) {
	l, ok := pickOne(g, g.linksWhere(func(*link) bool { return true }))
	if !ok {
		return Candidate{}, false
	}
	fk := col(l.fk, false)
	pred, where := "", fmt.Sprintf(" WHERE %s IS NOT NULL", fk)
	if p, w, ok := g.childPred(l.child, false); ok && g.rng.IntN(2) == 0 {
		pred, where = " "+p, where+" AND "+w
	}
	cte := fmt.Sprintf("WITH per_%s AS (SELECT %s, COUNT(*) AS n FROM %s%s GROUP BY %s) ", sanitize(l.parent.singular), fk, ident(l.child.name), where, fk)
	name := "per_" + sanitize(l.parent.singular)
	if g.rng.IntN(2) == 0 {
		return Candidate{
			Question: "On average, how many " + l.child.plural + pred + " does " + article(l.parent.singular) + " " + l.parent.singular + " have, counting only " + l.parent.plural + " with at least one?",
			SQL:      cte + "SELECT AVG(n) FROM " + name,
		}, true
	}
	return Candidate{
		Question: "What is the largest number of " + l.child.plural + pred + " that a single " + l.parent.singular + " has, and how many " + l.parent.plural + " have that many?",
		SQL:      cte + fmt.Sprintf("SELECT n, COUNT(*) FROM %s WHERE n = (SELECT MAX(n) FROM %s) GROUP BY n", name, name),
	}, true
}

// sanitize makes words into an identifier part.
func sanitize(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9') {
			b[i] = '_'
		}
	}
	return string(b)
}

func genMaxSubquery(g *gen) (Candidate, bool) {
	t, n, ok := g.pickTableCol(hasLabel, isNum)
	if !ok || !notLabel(t)(n) {
		return Candidate{}, false
	}
	agg, dw := "MAX", "highest"
	if g.rng.IntN(2) == 0 {
		agg, dw = "MIN", "lowest"
	}
	return Candidate{
		Question: "List the " + listWords(t) + " of the " + t.plural + " with the " + dw + " " + n.words + " (all of them if several tie).",
		SQL:      fmt.Sprintf("SELECT %s FROM %s WHERE %s = (SELECT %s(%s) FROM %s)", labelSQL(t, false), ident(t.name), col(n, false), agg, col(n, false), ident(t.name)),
	}, true
}

func genCTEAboveAvgParent(g *gen) (Candidate, bool) {
	l, ok := pickOne(g, g.linksWhere(func(l *link) bool {
		return hasLabel(l.parent) && l.parent.pk != nil && len(l.child.colsWhere(isNum)) > 0
	}))
	if !ok {
		return Candidate{}, false
	}
	n, _ := pickOne(g, l.child.colsWhere(isNum))
	if !g.p.lex.summable(n) {
		return Candidate{}, false
	}
	fk := col(l.fk, false)
	sel, give := col(l.parent.pk, true), pkWords(l.parent)
	if !labelIsKey(l.parent) {
		sel += ", " + labelSQL(l.parent, true)
		give += " and " + l.parent.labelWords
	}
	name := "totals"
	return Candidate{
		Question: "Which " + l.parent.plural + " have a total " + n.words + " over their " + l.child.plural + " more than three times the average such total (among " + l.parent.plural + " with at least one " + l.child.singular + ")? Give their " + give + ".",
		SQL: fmt.Sprintf("WITH %s AS (SELECT %s, SUM(%s) AS total FROM %s WHERE %s IS NOT NULL GROUP BY %s) SELECT %s FROM %s JOIN %s ON %s.%s = %s WHERE %s.total > 3 * (SELECT AVG(total) FROM %s)",
			name, fk, col(n, false), ident(l.child.name), fk, fk, sel, ident(l.parent.name), name, name, fk, col(l.pk, true), name, name),
	}, true
}

// Dates.

// year picks a year the column's values span.
func (g *gen) year(d *column) (int, bool) {
	if len(d.asc) == 0 || len(d.desc) == 0 {
		return 0, false
	}
	lo, err1 := strconv.Atoi(d.asc[0].Str[:4])
	hi, err2 := strconv.Atoi(d.desc[0].Str[:4])
	if err1 != nil || err2 != nil || hi < lo {
		return 0, false
	}
	return lo + g.rng.IntN(hi-lo+1), true
}

// during is the noun phrase for a table's rows whose date falls in a
// period: "orders placed in 2024", "singers with a release date in 2024".
func (g *gen) during(d *column, period string) string {
	if ev, ok := g.p.lex.Events[d.ref()]; ok {
		return d.t.plural + " " + ev[0] + " " + period
	}
	return d.t.plural + " with " + article(d.words) + " " + d.words + " " + period
}

// howMany is "How many orders were placed in 2024?" or "How many X have a
// Y in 2024?".
func (g *gen) howMany(d *column, pre, period string) string {
	if ev, ok := g.p.lex.Events[d.ref()]; ok {
		return "How many " + d.t.plural + pre + " " + ev[1] + " " + period + "?"
	}
	return "How many " + d.t.plural + pre + " have " + article(d.words) + " " + d.words + " " + period + "?"
}

func yearRange(d *column, y int) string {
	return fmt.Sprintf("%s >= '%04d-01-01' AND %s < '%04d-01-01'", col(d, false), y, col(d, false), y+1)
}

func (g *gen) optEq(t *table) (string, string) {
	if c, ok := pickOne(g, t.colsWhere(isCat)); ok && g.rng.IntN(2) == 0 {
		v, _, _ := g.catValue(c, 0)
		return " " + g.eq(c, v), fmt.Sprintf(" AND %s = %s", col(c, false), lit(v))
	}
	return "", ""
}

func genDateYear(g *gen) (Candidate, bool) {
	t, d, ok := g.pickTableCol(anyTable, isDate)
	if !ok {
		return Candidate{}, false
	}
	y, ok := g.year(d)
	if !ok {
		return Candidate{}, false
	}
	pre, w := g.optEq(t)
	return Candidate{
		Question: g.howMany(d, pre, "in "+strconv.Itoa(y)),
		SQL:      fmt.Sprintf("SELECT COUNT(*) FROM %s WHERE %s%s", ident(t.name), yearRange(d, y), w),
	}, true
}

var monthNames = []string{"January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"}

func genDateMonth(g *gen) (Candidate, bool) {
	t, d, ok := g.pickTableCol(anyTable, isDate)
	if !ok {
		return Candidate{}, false
	}
	y, ok := g.year(d)
	if !ok {
		return Candidate{}, false
	}
	m := 1 + g.rng.IntN(12)
	pre, w := g.optEq(t)
	c := Candidate{Question: g.howMany(d, pre, fmt.Sprintf("in %s %d", monthNames[m-1], y))}
	if g.p.dialect == sqlgym.DialectSQLite {
		g.forEngines(&c, true, func(dl sqlgym.Dialect) string {
			return fmt.Sprintf("SELECT COUNT(*) FROM %s WHERE %s = '%04d-%02d'%s", ident(t.name), monthKey(dl, col(d, false)), y, m, w)
		})
		return c, true
	}
	next := time.Date(y, time.Month(m)+1, 1, 0, 0, 0, 0, time.UTC)
	c.SQL = fmt.Sprintf("SELECT COUNT(*) FROM %s WHERE %s >= '%04d-%02d-01' AND %s < '%s'%s", ident(t.name), col(d, false), y, m, col(d, false), next.Format("2006-01-02"), w)
	return c, true
}

func genDateDay(g *gen) (Candidate, bool) {
	t, d, ok := g.pickTableCol(anyTable, isDate)
	if !ok {
		return Candidate{}, false
	}
	v, ok := g.anyValue(d)
	if !ok {
		return Candidate{}, false
	}
	day, err := time.Parse("2006-01-02", v.Str[:10])
	if err != nil {
		return Candidate{}, false
	}
	q := g.howMany(d, "", "on "+day.Format("2006-01-02"))
	if !d.stamp {
		return Candidate{Question: q, SQL: fmt.Sprintf("SELECT COUNT(*) FROM %s WHERE %s = '%s'", ident(t.name), col(d, false), day.Format("2006-01-02"))}, true
	}
	return Candidate{Question: q, SQL: fmt.Sprintf("SELECT COUNT(*) FROM %s WHERE %s >= '%s' AND %s < '%s'", ident(t.name), col(d, false),
		day.Format("2006-01-02"), col(d, false), day.AddDate(0, 0, 1).Format("2006-01-02"))}, true
}

func genDatePerMonth(g *gen) (Candidate, bool) {
	t, d, ok := g.pickTableCol(anyTable, isDate)
	if !ok {
		return Candidate{}, false
	}
	y, ok := g.year(d)
	if !ok {
		return Candidate{}, false
	}
	pre, w := g.optEq(t)
	q := strings.TrimSuffix(g.howMany(d, pre, ""), " ?")
	c := Candidate{Question: fmt.Sprintf("For each month of %d, %s? Give the month as YYYY-MM and the count, leaving out months with none.", y, strings.ToLower(q[:1])+q[1:])}
	g.forEngines(&c, true, func(dl sqlgym.Dialect) string {
		return fmt.Sprintf("SELECT %s AS month_start, COUNT(*) FROM %s WHERE %s%s GROUP BY month_start",
			monthKey(dl, col(d, false)), ident(t.name), yearRange(d, y), w)
	})
	return c, true
}

func genDateDuration(g *gen) (Candidate, bool) {
	ts := g.tables(func(t *table) bool { return len(t.colsWhere(isDate)) > 1 })
	t, ok := pickOne(g, ts)
	if !ok {
		return Candidate{}, false
	}
	ds := t.colsWhere(isDate)
	i := g.rng.IntN(len(ds))
	j := (i + 1 + g.rng.IntN(len(ds)-1)) % len(ds)
	a, b := ds[i], ds[j]
	if a.asc[0].Str > b.asc[0].Str {
		a, b = b, a // from the earlier to the later date
	}
	diff := func(dl sqlgym.Dialect) string { return daysBetween(dl, col(a, false), col(b, false)) }
	both := fmt.Sprintf("%s IS NOT NULL AND %s IS NOT NULL", col(a, false), col(b, false))
	if g.rng.IntN(2) == 0 {
		c := Candidate{Question: "What is the average number of days between the " + a.words + " and the " + b.words + " of " + t.plural + ", over " + t.plural + " that have both?"}
		g.forEngines(&c, true, func(dl sqlgym.Dialect) string {
			return fmt.Sprintf("SELECT AVG(%s) FROM %s WHERE %s", diff(dl), ident(t.name), both)
		})
		return c, true
	}
	k := 1 + g.rng.IntN(10)
	c := Candidate{Question: fmt.Sprintf("How many %s have more than %d days between their %s and their %s?", t.plural, k, a.words, b.words)}
	g.forEngines(&c, true, func(dl sqlgym.Dialect) string {
		return fmt.Sprintf("SELECT COUNT(*) FROM %s WHERE %s AND %s > %d", ident(t.name), both, diff(dl), k)
	})
	return c, true
}

func genDateEarliest(g *gen) (Candidate, bool) {
	t, d, ok := g.pickTableCol(func(t *table) bool { return len(t.colsWhere(isCat)) > 0 || len(t.parents) > 0 }, isDate)
	if !ok {
		return Candidate{}, false
	}
	agg, w := "MIN", "earliest"
	if g.rng.IntN(2) == 0 {
		agg, w = "MAX", "latest"
	}
	if l, ok := pickOne(g, t.parents); ok && g.rng.IntN(2) == 0 && l.parent.rows > 0 {
		pr, ok := g.pickRows(l.parent, true, 0)
		if !ok {
			return Candidate{}, false
		}
		return Candidate{
			Question: "What is the " + w + " " + d.words + " among " + t.plural + " " + l.ToParent + " " + pr.phrase + "?",
			SQL:      fmt.Sprintf("SELECT %s(%s) %s WHERE %s", agg, col(d, true), joinSQL(l), pr.where),
		}, true
	}
	c, ok := pickOne(g, t.colsWhere(isCat))
	if !ok {
		return Candidate{}, false
	}
	v, _, _ := g.catValue(c, 0)
	return Candidate{
		Question: "What is the " + w + " " + d.words + " among " + t.plural + " " + g.eq(c, v) + "?",
		SQL:      fmt.Sprintf("SELECT %s(%s) FROM %s WHERE %s = %s", agg, col(d, false), ident(t.name), col(c, false), lit(v)),
	}, true
}

func genDateWeekend(g *gen) (Candidate, bool) {
	t, d, ok := g.pickTableCol(anyTable, isDate)
	if !ok {
		return Candidate{}, false
	}
	y, ok := g.year(d)
	if !ok {
		return Candidate{}, false
	}
	days, set := "on a Saturday or a Sunday", []int{0, 6}
	if g.rng.IntN(2) == 0 {
		days, set = "on a Monday", []int{1}
	}
	c := Candidate{Question: g.howMany(d, "", fmt.Sprintf("in %d %s", y, days))}
	g.forEngines(&c, true, func(dl sqlgym.Dialect) string {
		return fmt.Sprintf("SELECT COUNT(*) FROM %s WHERE %s AND %s", ident(t.name), yearRange(d, y), weekdayIn(dl, col(d, false), set))
	})
	return c, true
}

// Windows.

func genWinTopPerGroup(g *gen) (Candidate, bool) {
	t, n, ok := g.pickTableCol(func(t *table) bool { return hasLabel(t) && (len(t.colsWhere(isCat)) > 0 || len(t.parents) > 0) }, isNum)
	if !ok || !notLabel(t)(n) {
		return Candidate{}, false
	}
	dir, dw := dirWords(g.rng.IntN(2) == 0)
	lw := labelName(t)
	if l, ok := pickOne(g, t.parents); ok && hasLabel(l.parent) && !labelIsKey(l.parent) && l.parent.rows <= 50 && g.rng.IntN(2) == 0 {
		inner := fmt.Sprintf("SELECT %s, %s, %s, RANK() OVER (PARTITION BY %s ORDER BY %s %s) AS rnk FROM %s WHERE %s IS NOT NULL",
			col(l.fk, false), labelSQL(t, false), col(n, false), col(l.fk, false), col(n, false), dir, ident(t.name), col(n, false))
		outer := make([]string, 0)
		for _, c := range l.parent.label {
			outer = append(outer, ident(l.parent.name)+"."+ident(c.name))
		}
		for _, c := range t.label {
			outer = append(outer, "ranked."+ident(c.name))
		}
		outer = append(outer, "ranked."+ident(n.name))
		return Candidate{
			Question: "For each " + l.parent.singular + ", give its " + l.parent.labelWords + " and the " + lw + " and " + n.words + " of its " + t.singular + " with the " + dw + " " + n.words + " (every one of them when several tie).",
			SQL: fmt.Sprintf("SELECT %s FROM (%s) AS ranked JOIN %s ON ranked.%s = %s WHERE ranked.rnk = 1", joinComma(outer), inner,
				ident(l.parent.name), ident(l.fk.name), col(l.pk, true)),
		}, true
	}
	c, ok := pickOne(g, t.colsWhere(func(x *column) bool { return x.cat && x != n }))
	if !ok {
		return Candidate{}, false
	}
	inner := fmt.Sprintf("SELECT %s, %s, %s, RANK() OVER (PARTITION BY %s ORDER BY %s %s) AS rnk FROM %s WHERE %s IS NOT NULL AND %s IS NOT NULL",
		col(c, false), labelSQL(t, false), col(n, false), col(c, false), col(n, false), dir, ident(t.name), col(n, false), col(c, false))
	outer := []string{col(c, false)}
	for _, x := range t.label {
		outer = append(outer, ident(x.name))
	}
	outer = append(outer, col(n, false))
	return Candidate{
		Question: "For each " + c.words + ", give the " + c.words + ", and the " + lw + " and " + n.words + " of the " + t.singular + " with the " + dw + " " + n.words + " (every one of them when several tie).",
		SQL:      fmt.Sprintf("SELECT %s FROM (%s) AS ranked WHERE rnk = 1", joinComma(outer), inner),
	}, true
}

func joinComma(xs []string) string {
	s := ""
	for i, x := range xs {
		if i > 0 {
			s += ", "
		}
		s += x
	}
	return s
}

// smallSubset picks a category value that selects at most max rows of t.
func (g *gen) smallSubset(t *table, max int64, not *column) (string, string, bool) {
	if t.rows <= max && g.rng.IntN(3) == 0 {
		return "", "", true
	}
	c, ok := pickOne(g, t.colsWhere(func(c *column) bool { return c.cat && len(c.freq) > 0 && c != not }))
	if !ok {
		return "", "", false
	}
	v, _, ok := g.catValue(c, max)
	if !ok {
		return "", "", false
	}
	return " " + g.eq(c, v), fmt.Sprintf(" WHERE %s = %s", col(c, false), lit(v)), true
}

func genWinRank(g *gen) (Candidate, bool) {
	t, n, ok := g.pickTableCol(hasLabel, isNum)
	if !ok || !notLabel(t)(n) {
		return Candidate{}, false
	}
	e, w, ok := g.smallSubset(t, 50, n)
	if !ok {
		return Candidate{}, false
	}
	lw := labelName(t)
	fn, how := "RANK", "tied "+plural(n.words)+" share a rank and the next rank skips ahead (1, 2, 2, 4)"
	if g.rng.IntN(2) == 0 {
		fn, how = "DENSE_RANK", "tied "+plural(n.words)+" share a rank and the next rank follows on (1, 2, 2, 3)"
	}
	dir, dw := dirWords(g.rng.IntN(2) == 0)
	if w == "" {
		w = " WHERE " + col(n, false) + " IS NOT NULL"
	} else {
		w += " AND " + col(n, false) + " IS NOT NULL"
	}
	return Candidate{
		Question: "Rank the " + t.plural + e + " by " + n.words + ", " + dw + " first, where " + how + ". Give each one's " + lw + ", " + n.words + " and rank.",
		SQL:      fmt.Sprintf("SELECT %s, %s, %s() OVER (ORDER BY %s %s) AS rnk FROM %s%s", labelSQL(t, false), col(n, false), fn, col(n, false), dir, ident(t.name), w),
	}, true
}

func genWinRunning(g *gen) (Candidate, bool) {
	t, d, ok := g.pickTableCol(func(t *table) bool { return t.pk != nil && len(t.colsWhere(isNum)) > 0 }, isDate)
	if !ok {
		return Candidate{}, false
	}
	n, _ := pickOne(g, t.colsWhere(isNum))
	if !g.p.lex.summable(n) {
		return Candidate{}, false
	}
	e, w, ok := g.smallSubset(t, 50, nil)
	if !ok {
		return Candidate{}, false
	}
	pk := col(t.pk, false)
	if d.nulls > 0 || n.nulls > 0 {
		return Candidate{}, false
	}
	return Candidate{
		Question: "For the " + t.plural + e + ", in order of " + d.words + " and then " + pkWords(t) + ", give each one's " + pkWords(t) + ", " + d.words + ", " + n.words + " and the running total of " + n.words + " up to and including it.",
		SQL: fmt.Sprintf("SELECT %s, %s, %s, SUM(%s) OVER (ORDER BY %s, %s ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS running_total FROM %s%s ORDER BY %s, %s",
			pk, col(d, false), col(n, false), col(n, false), col(d, false), pk, ident(t.name), w, col(d, false), pk),
	}, true
}

func genWinShare(g *gen) (Candidate, bool) {
	t, c, ok := g.pickTableCol(anyTable, isCat)
	if !ok {
		return Candidate{}, false
	}
	w, _ := notNull(c, false)
	of := "all " + t.plural
	if c.nulls > 0 {
		of = "all " + t.plural + " with a known " + c.words
	}
	return Candidate{
		Question: "For each " + c.words + ", give the number of " + t.plural + " and the percentage of " + of + " they make up.",
		SQL:      fmt.Sprintf("SELECT %s, COUNT(*), 100.0 * COUNT(*) / SUM(COUNT(*)) OVER () AS pct FROM %s%s GROUP BY %s", col(c, false), ident(t.name), w, col(c, false)),
	}, true
}

func genWinDiffAvg(g *gen) (Candidate, bool) {
	t, n, ok := g.pickTableCol(hasLabel, isNum)
	if !ok || !notLabel(t)(n) {
		return Candidate{}, false
	}
	e, w, ok := g.smallSubset(t, 50, n)
	if !ok {
		return Candidate{}, false
	}
	lw := labelName(t)
	of := "all " + t.plural
	if e != "" {
		of = "these " + t.plural
	}
	if w == "" {
		w = " WHERE " + col(n, false) + " IS NOT NULL"
	} else {
		w += " AND " + col(n, false) + " IS NOT NULL"
	}
	return Candidate{
		Question: "For each of the " + t.plural + e + ", give its " + lw + ", its " + n.words + " and its " + n.words + " minus the average " + n.words + " of " + of + ".",
		SQL:      fmt.Sprintf("SELECT %s, %s, %s - AVG(%s) OVER () AS diff FROM %s%s", labelSQL(t, false), col(n, false), col(n, false), col(n, false), ident(t.name), w),
	}, true
}

func genWinLag(g *gen) (Candidate, bool) {
	t, d, ok := g.pickTableCol(func(t *table) bool { return t.pk != nil }, isDate)
	if !ok {
		return Candidate{}, false
	}
	e, w, ok := g.smallSubset(t, 50, nil)
	if !ok || e == "" {
		return Candidate{}, false
	}
	pk := col(t.pk, false)
	if d.nulls > 0 {
		w += " AND " + col(d, false) + " IS NOT NULL"
		e += " that have " + article(d.words) + " " + d.words
	}
	return Candidate{
		Question: "For the " + t.plural + e + ", in order of " + d.words + " and then " + pkWords(t) + ", give each one's " + pkWords(t) + ", its " + d.words + " and the " + d.words + " of the one before it (NULL for the first).",
		SQL: fmt.Sprintf("SELECT %s, %s, LAG(%s) OVER (ORDER BY %s, %s) AS previous_%s FROM %s%s ORDER BY %s, %s",
			pk, col(d, false), col(d, false), col(d, false), pk, sanitize(d.name), ident(t.name), w, col(d, false), pk),
	}, true
}
