package screen

import (
	"strings"

	"github.com/sqlgym/sqlgym/sqltext"
)

// unreadItemChanged proves a mutant equivalent when all it changes is one
// select item of a subquery whose columns nothing reads by that item's
// name: the subquery of an EXISTS (which reads whether rows exist, not
// their values), or a derived table in a FROM whose outer query names
// neither the item's old nor its new output name anywhere, selects no *,
// and joins with no NATURAL or USING. The subquery's SELECT must not be
// DISTINCT nor a compound (both compare whole rows), the changed item must
// hold no aggregate or window (which would change how many rows there
// are), and the subquery must not sort or group by position. Its rows
// are then the same rows with one value no one reads changed.
func unreadItemChanged(gold string, m Mutant) (bool, string) {
	g, mt := sigTokens(gold), sigTokens(m.SQL)
	p := 0
	for p < len(g) && p < len(mt) && strings.EqualFold(g[p].Text, mt[p].Text) {
		p++
	}
	if p == len(g) && p == len(mt) {
		return false, ""
	}
	sfx := 0
	for sfx < len(g)-p && sfx < len(mt)-p && strings.EqualFold(g[len(g)-1-sfx].Text, mt[len(mt)-1-sfx].Text) {
		sfx++
	}
	gd := depths(g)
	// The changed tokens [p, len-sfx) of each, inside one select item.
	if p >= len(g) || gd[p] < 1 {
		return false, ""
	}
	d := gd[p]
	open := -1
	for k := p - 1; k >= 0; k-- {
		if gd[k] < d {
			open = k
			break
		}
	}
	if open < 0 || !g[open].IsPunct("(") || open+1 >= len(g) || !g[open+1].IsWord("select") {
		return false, ""
	}
	close := len(g)
	for k := open + 1; k < len(g); k++ {
		if gd[k] < d {
			close = k
			break
		}
	}
	from := close
	for k := open + 2; k < close; k++ {
		if gd[k] != d {
			continue
		}
		if g[k].IsWord("from") && from == close {
			from = k
		}
		if g[k].IsWord("union") || g[k].IsWord("intersect") || g[k].IsWord("except") {
			return false, ""
		}
		if g[k].IsWord("by") && k+1 < close && g[k+1].Kind == sqltext.Number {
			return false, "" // a position in the select list
		}
	}
	if g[open+2].IsWord("distinct") {
		return false, ""
	}
	gEnd, mEnd := len(g)-sfx, len(mt)-sfx
	if p <= open+1 || gEnd > from || mEnd > from+(len(mt)-len(g)) {
		return false, ""
	}
	md := depths(mt)
	for _, r := range []struct {
		toks []sqltext.Token
		dep  []int
		a, b int
	}{{g, gd, p, gEnd}, {mt, md, p, mEnd}} {
		for k := r.a; k < r.b; k++ {
			t := r.toks[k]
			if r.dep[k] < d || r.dep[k] == d && (t.IsPunct(",") || t.IsWord("distinct") || t.IsWord("from")) {
				return false, ""
			}
			if t.Kind == sqltext.Word && (aggregateWords[strings.ToLower(t.Text)] || t.IsWord("over")) {
				return false, ""
			}
		}
	}
	if open > 0 && g[open-1].IsWord("exists") {
		return true, "a select item of an EXISTS subquery: only whether rows exist is read"
	}
	// A derived table: the item's output names, before and after.
	item := func(toks []sqltext.Token, dep []int, at int) (int, int) {
		a, b := at, at
		for a > open+1 && !(dep[a-1] == d && toks[a-1].IsPunct(",")) && !toks[a-1].IsWord("select") {
			a--
		}
		for b < len(toks) && !(dep[b] == d && (toks[b].IsPunct(",") || toks[b].IsWord("from"))) && dep[b] >= d {
			b++
		}
		return a, b
	}
	ga, gb := item(g, gd, p)
	ma, mb := item(mt, md, p)
	name := func(toks []sqltext.Token, b int) string {
		t := toks[b-1]
		if t.Kind == sqltext.Word || t.Kind == sqltext.QuotedIdent {
			return strings.ToLower(unquote(t.Text))
		}
		return ""
	}
	oldName, newName := name(g, gb), name(mt, mb)
	if oldName == "" || newName == "" || !inFrom(g, gd, open, d) {
		return false, ""
	}
	for _, r := range []struct {
		toks []sqltext.Token
		a, b int
	}{{g, ga, gb}, {mt, ma, mb}} {
		for k, t := range r.toks {
			if k >= r.a && k < r.b {
				continue
			}
			if t.Text == "*" || t.IsWord("natural") || t.IsWord("using") {
				return false, ""
			}
			if (t.Kind == sqltext.Word || t.Kind == sqltext.QuotedIdent) && (strings.EqualFold(unquote(t.Text), oldName) || strings.EqualFold(unquote(t.Text), newName)) {
				return false, ""
			}
		}
	}
	return true, "a select item of a derived table that nothing reads by name"
}

// aggregateWords are the functions that fold rows.
var aggregateWords = map[string]bool{"count": true, "sum": true, "avg": true, "min": true, "max": true, "total": true,
	"group_concat": true, "string_agg": true, "array_agg": true, "median": true, "any_value": true}

// inFrom reports whether the parenthesis at open is an item of a FROM
// clause: walking back at its depth, the nearest clause word is FROM.
func inFrom(toks []sqltext.Token, dep []int, open, d int) bool {
	for k := open - 1; k >= 0; k-- {
		if dep[k] != d-1 || toks[k].Kind != sqltext.Word {
			continue
		}
		switch strings.ToLower(toks[k].Text) {
		case "from":
			return true
		case "select", "where", "on", "group", "having", "order", "limit", "in", "exists", "union", "intersect", "except":
			return false
		}
	}
	return false
}

func sigTokens(sql string) []sqltext.Token {
	var out []sqltext.Token
	for _, t := range sqltext.Tokens(sql) {
		if t.Significant() {
			out = append(out, t)
		}
	}
	return out
}

// depths is each token's parenthesis depth, a parenthesis at the depth
// outside it.
func depths(toks []sqltext.Token) []int {
	out := make([]int, len(toks))
	d := 0
	for i, t := range toks {
		if t.IsPunct(")") {
			d--
		}
		out[i] = d
		if t.IsPunct("(") {
			d++
		}
	}
	return out
}
