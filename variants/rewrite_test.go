package variants

import (
	"fmt"
	"strings"

	"github.com/sqlgym/sqlgym/sqltext"
)

// rewrites returns texts that mean the same as gold on any data (when
// they apply): column aliases, the two sides of a single inner join
// swapped, IN (subquery) as EXISTS, BETWEEN as two comparisons, and the
// query as a CTE and as a subquery. They are what a right answer that is
// not the gold's text looks like; the variants must not turn one wrong.
func rewrites(gold string) map[string]string {
	out := map[string]string{}
	toks := significantTokens(gold)
	if len(toks) == 0 || sqltext.CountStatements(gold) != 1 {
		return out
	}
	body := strings.TrimRight(strings.TrimSpace(gold), ";")
	ordered := sqltext.HasTopLevelOrderBy(gold)
	if !ordered && !hasWord(toks, "with") {
		out["cte"] = "WITH sg_q AS (" + body + ") SELECT * FROM sg_q"
		out["subquery"] = "SELECT * FROM (" + body + ") AS sg_q"
	}
	if s, ok := aliasColumns(body); ok {
		out["aliases"] = s
	}
	if s, ok := betweenToComparisons(body); ok {
		out["between"] = s
	}
	if s, ok := inToExists(body); ok {
		out["exists"] = s
	}
	if s, ok := swapJoin(body); ok {
		out["join_order"] = s
	}
	return out
}

type ptok struct {
	sqltext.Token
	depth int
}

func significantTokens(sql string) []ptok {
	var out []ptok
	d := 0
	for _, t := range sqltext.Tokens(sql) {
		if !t.Significant() || t.IsPunct(";") {
			continue
		}
		if t.IsPunct(")") {
			d--
		}
		out = append(out, ptok{t, d})
		if t.IsPunct("(") {
			d++
		}
	}
	return out
}

func hasWord(ts []ptok, w string) bool {
	for _, t := range ts {
		if t.IsWord(w) {
			return true
		}
	}
	return false
}

// aliasColumns names every top-level select item that has no alias.
func aliasColumns(sql string) (string, bool) {
	ts := significantTokens(sql)
	if len(ts) < 2 || !ts[0].IsWord("select") || hasWord(ts, "union") || hasWord(ts, "intersect") || hasWord(ts, "except") {
		return "", false
	}
	from := -1
	for i, t := range ts {
		if t.depth == 0 && t.IsWord("from") {
			from = i
			break
		}
	}
	if from < 0 {
		return "", false
	}
	start := 1
	if ts[1].IsWord("distinct") {
		start = 2
	}
	var items [][2]int
	a := start
	for i := start; i <= from; i++ {
		if i == from || ts[i].depth == 0 && ts[i].IsPunct(",") {
			items = append(items, [2]int{a, i})
			a = i + 1
		}
	}
	var b strings.Builder
	last := 0
	n := 0
	for k, it := range items {
		if it[1] <= it[0] {
			return "", false
		}
		hasAlias := false
		for j := it[0]; j < it[1]; j++ {
			if ts[j].depth == 0 && ts[j].IsWord("as") || ts[j].Text == "*" {
				hasAlias = true
			}
		}
		if hasAlias || it[1]-it[0] >= 2 && ts[it[1]-1].Kind == sqltext.Word && ts[it[1]-2].Kind != sqltext.Punct && ts[it[1]-2].Kind != sqltext.Operator {
			continue // already named, or a star
		}
		end := ts[it[1]-1].End()
		b.WriteString(sql[last:end])
		fmt.Fprintf(&b, " AS sg_c%d", k)
		last = end
		n++
	}
	if n == 0 {
		return "", false
	}
	b.WriteString(sql[last:])
	return b.String(), true
}

// betweenToComparisons writes the first "col BETWEEN a AND b" (col a name
// or a qualified name, a and b single tokens) as (col >= a AND col <= b).
func betweenToComparisons(sql string) (string, bool) {
	ts := significantTokens(sql)
	for i, t := range ts {
		if !t.IsWord("between") || i+3 >= len(ts) || !ts[i+2].IsWord("and") || i >= 1 && ts[i-1].IsWord("not") {
			continue
		}
		a := i - 1
		if a >= 2 && ts[a-1].IsPunct(".") {
			a -= 2
		}
		if a < 0 || ts[a].Kind != sqltext.Word && ts[a].Kind != sqltext.QuotedIdent || a >= 1 && ts[a-1].IsWord("not") {
			continue
		}
		col := sql[ts[a].Pos:ts[i-1].End()]
		lo, hi := ts[i+1].Text, ts[i+3].Text
		repl := fmt.Sprintf("(%s >= %s AND %s <= %s)", col, lo, col, hi)
		return sql[:ts[a].Pos] + repl + sql[ts[i+3].End():], true
	}
	return "", false
}

// inToExists writes the first "x.c IN (SELECT y FROM t WHERE w)" (x
// qualified, t a plain table other than x, no GROUP BY, LIMIT or set
// operation in the subquery) as EXISTS (SELECT 1 FROM t WHERE t.y = x.c
// AND (w)).
func inToExists(sql string) (string, bool) {
	ts := significantTokens(sql)
	for i, t := range ts {
		if !t.IsWord("in") || i < 1 || i+5 >= len(ts) || !ts[i+1].IsPunct("(") || !ts[i+2].IsWord("select") || ts[i-1].IsWord("not") {
			continue
		}
		outer, outerTable, start := "", "", i-1
		switch {
		case i >= 3 && ts[i-2].IsPunct("."):
			if i >= 4 && ts[i-4].IsWord("not") {
				continue
			}
			outer, outerTable, start = sql[ts[i-3].Pos:ts[i-1].End()], ts[i-3].Text, i-3
		case ts[i-1].Kind == sqltext.Word && t.depth == 0:
			// A bare outer column: qualified with the outer query's one
			// table, so that it cannot resolve inside the EXISTS.
			if i >= 2 && ts[i-2].IsWord("not") {
				continue
			}
			for k, o := range ts {
				if o.depth == 0 && o.IsWord("from") && k+1 < len(ts) && ts[k+1].Kind == sqltext.Word {
					outerTable = ts[k+1].Text
					if k+2 < len(ts) && (ts[k+2].IsWord("as") || ts[k+2].Kind == sqltext.Word && !ts[k+2].IsWord("where")) {
						outerTable = "" // an alias: left alone
					}
					break
				}
			}
			if outerTable == "" || hasWord(ts, "join") {
				continue
			}
			outer = outerTable + "." + ts[i-1].Text
		default:
			continue
		}
		close := -1
		for k := i + 2; k < len(ts); k++ {
			if ts[k].depth == ts[i+1].depth && ts[k].IsPunct(")") {
				close = k
				break
			}
		}
		if close < 0 {
			return "", false
		}
		sub := ts[i+2 : close]
		// SELECT y FROM t [WHERE ...]
		if len(sub) < 4 || !sub[2].IsWord("from") || sub[1].Kind != sqltext.Word {
			continue
		}
		table := sub[3].Text
		if strings.EqualFold(table, outerTable) || len(sub) > 4 && !sub[4].IsWord("where") {
			continue
		}
		rest := ""
		if len(sub) > 4 {
			if !sub[4].IsWord("where") {
				continue
			}
			for _, s := range sub[5:] {
				if s.depth == sub[0].depth && (s.IsWord("group") || s.IsWord("limit") || s.IsWord("union") || s.IsWord("order") ||
					s.IsWord("intersect") || s.IsWord("except")) {
					return "", false
				}
			}
			rest = " AND (" + sql[sub[5].Pos:sub[len(sub)-1].End()] + ")"
		}
		repl := fmt.Sprintf("EXISTS (SELECT 1 FROM %s WHERE %s.%s = %s%s)", table, table, sub[1].Text, outer, rest)
		return sql[:ts[start].Pos] + repl + sql[ts[close].End():], true
	}
	return "", false
}

// swapJoin turns "FROM a [x] JOIN b [y] ON c" into "FROM b [y] JOIN a [x]
// ON c" when it is the query's only join, inner, with plain tables, and
// the SELECT list names its columns (no star, whose order would change).
func swapJoin(sql string) (string, bool) {
	ts := significantTokens(sql)
	var joins []int
	from := -1
	for i, t := range ts {
		if t.IsWord("join") {
			joins = append(joins, i)
		}
		if t.depth == 0 && t.IsWord("from") && from < 0 {
			from = i
		}
		if t.Text == "*" && i+1 < len(ts) && !ts[i-1].IsPunct("(") {
			return "", false
		}
		if t.IsWord("select") && i > 0 {
			return "", false // subqueries: left alone
		}
	}
	if len(joins) != 1 || from < 0 {
		return "", false
	}
	j := joins[0]
	left := j
	if ts[j-1].IsWord("inner") {
		left = j - 1
	} else if ts[j-1].IsWord("left") || ts[j-1].IsWord("outer") || ts[j-1].IsWord("cross") || ts[j-1].IsWord("natural") ||
		ts[j-1].IsWord("right") || ts[j-1].IsWord("full") {
		return "", false
	}
	on := -1
	for k := j + 1; k < len(ts); k++ {
		if ts[k].IsWord("on") {
			on = k
			break
		}
	}
	if on < 0 || from+1 >= left {
		return "", false
	}
	a := sql[ts[from+1].Pos:ts[left-1].End()]
	b := sql[ts[j+1].Pos:ts[on-1].End()]
	return sql[:ts[from+1].Pos] + b + " JOIN " + a + " " + sql[ts[on].Pos:], true
}
