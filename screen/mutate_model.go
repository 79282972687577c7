package screen

import (
	"strconv"
	"strings"
	"time"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/sqltext"
)

// The mutants below are the mistakes models make on top of the near
// misses above: the right shape over the wrong column, key or grain. The
// schema-aware ones need the database's schema (MutateSchema) to know which
// other column has the same type; without it they make no mutants.

// wrongColumns replaces a column in a SELECT list or a WHERE with another
// column of the same table and type.
func (q *query) wrongColumns(cols []colRef) []Mutant {
	var out []Mutant
	for _, r := range cols {
		switch q.governing(r.at) {
		case "select", "where":
		default:
			continue
		}
		for _, c := range sameType(r) {
			t := q.toks[r.at]
			out = append(out, Mutant{Kind: WrongColumn, SQL: q.edit(t.Pos, t.End(), quoteLike(t.Text, c.Name))})
		}
	}
	return out
}

// wrongJoinKeys replaces one side of a join's equality with another key
// column of the same table and type (orders.order_id for orders.customer_id).
func (q *query) wrongJoinKeys(cols []colRef) []Mutant {
	var out []Mutant
	for _, r := range cols {
		if q.governing(r.at) != "on" || !(q.isOp(r.at+1, "=") || q.isOp(r.at-1, "=") || q.punct(r.at-1, ".") && q.isOp(r.at-3, "=")) {
			continue
		}
		for _, c := range sameType(r) {
			if !keyLike(r.table, c) {
				continue
			}
			t := q.toks[r.at]
			out = append(out, Mutant{Kind: WrongJoinKey, SQL: q.edit(t.Pos, t.End(), quoteLike(t.Text, c.Name))})
		}
	}
	return out
}

func (q *query) isOp(i int, op string) bool {
	return i >= 0 && i < len(q.toks) && q.toks[i].Kind == sqltext.Operator && (q.toks[i].Text == op || op == "=" && q.toks[i].Text == "==")
}

// wrongGrains groups by another column of the same table than the gold's
// key: the customer's name instead of its id (namesakes merge), preferring
// the columns the SELECT list shows.
func (q *query) wrongGrains(cols []colRef) []Mutant {
	var out []Mutant
	byAt := map[int]colRef{}
	shown := map[*sqlgym.Column]bool{}
	for _, r := range cols {
		byAt[r.at] = r
		if q.governing(r.at) == "select" {
			shown[r.col] = true
		}
	}
	for _, keys := range q.groupBys() {
		for _, key := range keys {
			r, ok := byAt[key[1]-1]
			if !ok || key[1]-key[0] != 1 && !(key[1]-key[0] == 3 && q.punct(key[0]+1, ".")) {
				continue
			}
			var first, rest []string
			for i := range r.table.Columns {
				c := &r.table.Columns[i]
				if c == r.col {
					continue
				}
				if shown[c] {
					first = append(first, c.Name)
				} else if baseType(c) == baseType(r.col) {
					rest = append(rest, c.Name)
				}
			}
			t := q.toks[r.at]
			for _, name := range append(first, rest...) {
				out = append(out, Mutant{Kind: WrongGrain, SQL: q.edit(t.Pos, t.End(), quoteLike(t.Text, name))})
			}
		}
	}
	return out
}

// groupBys returns the keys of each GROUP BY, as token ranges.
func (q *query) groupBys() [][][2]int {
	var out [][][2]int
	for k := range q.toks {
		if q.word(k, "group") && q.word(k+1, "by") {
			end := q.clauseEnd(k+1, "having", "order", "limit", "offset", "window", "qualify", "fetch", "union", "intersect", "except")
			out = append(out, q.split(k+2, end))
		}
	}
	return out
}

// missingGroupBys leaves out one key of a GROUP BY with several.
func (q *query) missingGroupBys() []Mutant {
	var out []Mutant
	for _, keys := range q.groupBys() {
		if len(keys) < 2 {
			continue
		}
		for i := range keys {
			out = append(out, Mutant{Kind: MissingGroupBy, SQL: q.dropGroupKey(keys, i)})
		}
	}
	return out
}

// dropGroupKey is the text with key i of a GROUP BY's keys (len >= 2)
// left out, with its comma.
func (q *query) dropGroupKey(keys [][2]int, i int) string {
	if i+1 < len(keys) {
		return q.edit(q.toks[keys[i][0]].Pos, q.toks[keys[i+1][0]].Pos, "")
	}
	return q.edit(q.toks[keys[i-1][1]-1].End(), q.toks[keys[i][1]-1].End(), "")
}

// offByOneLiterals moves a number or a date compared against, in a WHERE,
// HAVING, ON or CASE, one up and one down (a day for a date).
func (q *query) offByOneLiterals() []Mutant {
	var out []Mutant
	for i, t := range q.toks {
		if t.Kind != sqltext.Number && t.Kind != sqltext.String {
			continue
		}
		switch q.governing(i) {
		case "where", "having", "on", "when":
		default:
			continue
		}
		compared := q.compOp(i-1) || q.compOp(i+1) || q.word(i-1, "between") || q.word(i-1, "and") && q.inBetween(i)
		if !compared {
			continue
		}
		for _, s := range nudge(t.Token) {
			out = append(out, Mutant{Kind: OffByOneLiteral, SQL: q.edit(t.Pos, t.End(), s)})
		}
	}
	return out
}

func (q *query) compOp(i int) bool {
	if i < 0 || i >= len(q.toks) || q.toks[i].Kind != sqltext.Operator {
		return false
	}
	_, ok := flips[q.toks[i].Text]
	return ok
}

// inBetween reports whether the AND at i-1 is a BETWEEN's.
func (q *query) inBetween(i int) bool {
	return i >= 3 && q.word(i-3, "between")
}

// nudge returns a literal one step up and one down: integers by one,
// decimals by one unit of their last digit, ISO dates by a day. Other
// literals get none.
func nudge(t sqltext.Token) []string {
	if t.Kind == sqltext.Number {
		if n, err := strconv.ParseInt(t.Text, 10, 64); err == nil {
			return []string{strconv.FormatInt(n+1, 10), strconv.FormatInt(n-1, 10)}
		}
		if dot := strings.IndexByte(t.Text, '.'); dot >= 0 && !strings.ContainsAny(t.Text, "eExX") {
			digits := len(t.Text) - dot - 1
			f, err := strconv.ParseFloat(t.Text, 64)
			if err != nil || digits == 0 {
				return nil
			}
			step := 1.0
			for range digits {
				step /= 10
			}
			return []string{strconv.FormatFloat(f+step, 'f', digits, 64), strconv.FormatFloat(f-step, 'f', digits, 64)}
		}
		return nil
	}
	s := t.Text
	if len(s) < 12 || s[0] != '\'' || s[len(s)-1] != '\'' {
		return nil
	}
	body := s[1 : len(s)-1]
	d, err := time.Parse("2006-01-02", body[:min(10, len(body))])
	if err != nil {
		return nil
	}
	rest := body[10:]
	return []string{"'" + d.AddDate(0, 0, 1).Format("2006-01-02") + rest + "'", "'" + d.AddDate(0, 0, -1).Format("2006-01-02") + rest + "'"}
}

// orderWrongColumns sorts by another expression than the gold's first sort
// key: another item of the same SELECT list, or another column of the same
// table and type. As with flipOrders, an unlimited sort only orders rows.
func (q *query) orderWrongColumns(cols []colRef) []Mutant {
	byAt := map[int]colRef{}
	for _, r := range cols {
		byAt[r.at] = r
	}
	var out []Mutant
	for k := range q.toks {
		if !q.word(k, "order") || !q.word(k+1, "by") || q.word(k-1, "within") {
			continue
		}
		if q.toks[k].depth > 0 && !q.inSubquery(k) {
			continue // a window's or an aggregate's order: left to flip_order
		}
		end, effect, skip := q.sortEffect(k)
		if skip {
			continue
		}
		keys := q.split(k+2, end)
		if len(keys) == 0 {
			continue
		}
		a, b := keys[0][0], keys[0][1]
		for b-1 > a && q.word(b-1, "asc", "desc", "last", "first", "nulls") {
			b--
		}
		key := q.text(a, b)
		from, to := q.toks[a].Pos, q.toks[b-1].End()
		for _, item := range q.selectItems(k) {
			if q.text(item[0], item[1]) == key || q.hasAggregate(item[0], item[1]) != q.hasAggregate(a, b) {
				continue
			}
			out = append(out, Mutant{Kind: OrderWrongColumn, SQL: q.edit(from, to, q.sql[q.toks[item[0]].Pos:q.toks[item[1]-1].End()]), Effect: effect})
		}
		if r, ok := byAt[b-1]; ok && (b-a == 1 || b-a == 3 && q.punct(a+1, ".")) {
			t := q.toks[r.at]
			for _, c := range sameType(r) {
				out = append(out, Mutant{Kind: OrderWrongColumn, SQL: q.edit(t.Pos, t.End(), quoteLike(t.Text, c.Name)), Effect: effect})
			}
		}
	}
	return out
}

// selectListAt finds the SELECT whose list the clause at k belongs to:
// the SELECT keyword's index and where its list starts (past DISTINCT or
// ALL); not ok for a set operation's clause, which sorts no one list.
func (q *query) selectListAt(k int) (sel, start int, ok bool) {
	d := q.toks[k].depth
	sel = -1
	for j := k - 1; j >= 0; j-- {
		if q.toks[j].depth < d {
			break
		}
		if q.toks[j].depth == d && q.word(j, "union", "intersect", "except") {
			return 0, 0, false
		}
		if q.toks[j].depth == d && q.word(j, "select") {
			sel = j
		}
	}
	if sel < 0 {
		return 0, 0, false
	}
	start = sel + 1
	if q.word(start, "distinct", "all") {
		start++
	}
	return sel, start, true
}

// selectItems returns the expressions (aliases cut off) of the SELECT list
// that the ORDER BY at k sorts; none for a set operation's.
func (q *query) selectItems(k int) [][2]int {
	sel, a, ok := q.selectListAt(k)
	if !ok {
		return nil
	}
	var out [][2]int
	for _, r := range q.split(a, q.clauseEnd(sel, "from")) {
		e := r
		for j := r[0]; j < r[1]; j++ {
			if q.toks[j].depth == q.toks[k].depth && q.word(j, "as") {
				e = [2]int{r[0], j}
			}
		}
		if e[1] > e[0] && q.toks[e[0]].Text != "*" {
			out = append(out, e)
		}
	}
	return out
}

func (q *query) hasAggregate(a, b int) bool {
	for j := a; j < b; j++ {
		if q.punct(j+1, "(") && q.word(j, "count", "sum", "avg", "min", "max", "total", "group_concat", "string_agg") {
			return true
		}
	}
	return false
}

// quoteLike writes name the way the replaced identifier was written:
// quoted when it was.
func quoteLike(orig, name string) string {
	if len(orig) >= 2 {
		switch orig[0] {
		case '"':
			return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
		case '`':
			return "`" + name + "`"
		case '[':
			return "[" + name + "]"
		}
	}
	return name
}
