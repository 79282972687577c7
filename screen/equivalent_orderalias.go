package screen

import "strings"

// orderAliasSame proves an OrderWrongColumn mutant equivalent when the
// gold sorts by a select item's alias and the mutant by that same item's
// expression (ORDER BY month against ORDER BY strftime('%m', order_date)
// where the list says strftime('%m', order_date) AS month): an ORDER BY
// name that is an output column's alias sorts by that column, so both
// sort by one value.
func orderAliasSame(gold string, m Mutant) (bool, string) {
	q := analyse(gold)
	for k := range q.toks {
		if !q.word(k, "order") || !q.word(k+1, "by") || q.word(k-1, "within") {
			continue
		}
		end := q.clauseEnd(k+1, "limit", "offset", "fetch", "union", "intersect", "except")
		keys := q.split(k+2, end)
		if len(keys) == 0 {
			continue
		}
		a, b := keys[0][0], keys[0][1]
		for b-1 > a && q.word(b-1, "asc", "desc", "last", "first", "nulls") {
			b--
		}
		if b-a != 1 {
			continue
		}
		name := strings.ToLower(unquote(q.toks[a].Text))
		for _, item := range q.aliasedItems(k) {
			if item.alias != name {
				continue
			}
			expr := q.sql[q.toks[item.expr[0]].Pos:q.toks[item.expr[1]-1].End()]
			if q.edit(q.toks[a].Pos, q.toks[a].End(), expr) == m.SQL {
				return true, "the sort key " + name + " is the alias of the expression the mutant sorts by"
			}
		}
	}
	return false, ""
}

type aliasedItem struct {
	expr  [2]int
	alias string
}

// aliasedItems is the items "expr AS alias" of the SELECT list the
// clause at k belongs to.
func (q *query) aliasedItems(k int) []aliasedItem {
	sel, a, ok := q.selectListAt(k)
	if !ok {
		return nil
	}
	var out []aliasedItem
	for _, r := range q.split(a, q.clauseEnd(sel, "from")) {
		for j := r[0] + 1; j+1 < r[1]; j++ {
			if q.toks[j].depth == q.toks[k].depth && q.word(j, "as") && j+2 == r[1] {
				out = append(out, aliasedItem{expr: [2]int{r[0], j}, alias: strings.ToLower(unquote(q.toks[j+1].Text))})
			}
		}
	}
	return out
}
