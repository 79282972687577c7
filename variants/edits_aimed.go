package variants

import (
	"fmt"
	"slices"
	"strings"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/screen"
	"github.com/sqlgym/sqlgym/sqltext"
)

// The edits here are planned for one gold at a time (aimed): they change
// what the gold's own conditions see, where plan's edits only add rows
// next to them. They target what plan cannot reach: a group key a CHECK
// bounds (no new group can be inserted, an existing one must be resized),
// a filter every value of a column already passes (a value must be moved
// out of it), a column whose extreme a CHECK refuses (only one column set
// at a time, to its current extreme), and a comparison with a subquery's
// value (a row placed exactly on it).

// aimedFamilies is the groups planned for one gold, by family: plan's
// own, with the aimed ones beside the family they resemble.
// familyOrder is the order the families' groups are applied in a
// variant (groupsOf).
var familyOrder = []int{0, 1, 2, 5, 6, 7, 8, 3, 4, 9}

func (p *planner) aimedFamilies(gold string) [][]group {
	return append([][]group{
		p.relabels(),
		p.boundaries(),
		append(append(p.outsides(), p.extremes()...), p.joinExtremes(gold)...),
		append(append(p.groupSizes(), p.resizes()...), p.leaders(gold)...),
		append(p.subqueryTies(gold), p.dateDiffTies(gold)...),
		p.tableEdits(),
	}, p.joinEdits(gold)...)
}

// resizes brings an existing group of a single-table HAVING COUNT gold to
// exactly the threshold and one either side: grown by copies of one of
// its rows, or shrunk by deleting rows or moving them to the smallest
// other group. The group chosen is the one nearest the size, so the edit
// changes as few rows as it can.
func (p *planner) resizes() []group {
	var gs []group
	for _, th := range p.ths {
		t := p.schema.Table(th.Table)
		if t == nil || th.GroupBy == "" || t.Rows == 0 {
			continue
		}
		col := column(t, th.GroupBy)
		if col == nil || inKey(t, col.Name) {
			continue
		}
		key, tab := quoteIdent(col.Name), quoteIdent(t.Name)
		filter := "1"
		if th.Others != "" {
			filter = "(" + th.Others + ")"
		}
		for _, n := range []int64{th.N, th.N + 1, th.N - 1} {
			if n <= 0 || n > 500 {
				continue
			}
			// The group with fewer than n rows nearest to n, and the one
			// with more.
			below := fmt.Sprintf("(SELECT %s FROM %s WHERE %s AND %s IS NOT NULL GROUP BY %s HAVING COUNT(*) < %d ORDER BY COUNT(*) DESC, %s LIMIT 1)",
				key, tab, filter, key, key, n, key)
			above := fmt.Sprintf("(SELECT %s FROM %s WHERE %s AND %s IS NOT NULL GROUP BY %s HAVING COUNT(*) > %d ORDER BY COUNT(*), %s LIMIT 1)",
				key, tab, filter, key, key, n, key)
			missing := fmt.Sprintf("(%d - (SELECT COUNT(*) FROM %s WHERE %s AND %s = %s))", n, tab, filter, key, below)
			extra := fmt.Sprintf("((SELECT COUNT(*) FROM %s WHERE %s AND %s = %s) - %d)", tab, filter, key, above, n)
			gs = append(gs, group{what: fmt.Sprintf("grow a %s.%s group to %d", t.Name, col.Name, n), rank: n,
				stmts: []string{p.copyCount(t, fmt.Sprintf("%s AND %s = %s", filter, key, below), missing, nil)}})
			surplus := fmt.Sprintf("SELECT %s FROM %s WHERE %s AND %s = %s ORDER BY %s DESC LIMIT %s", p.rowid(), tab, filter, key, above, p.rowid(), extra)
			gs = append(gs, group{what: fmt.Sprintf("shrink a %s.%s group to %d", t.Name, col.Name, n), rank: n,
				stmts: []string{fmt.Sprintf("DELETE FROM %s WHERE %s IN (%s)", tab, p.rowid(), surplus)}})
			smallest := fmt.Sprintf("(SELECT %s FROM %s WHERE %s IS NOT NULL AND %s <> %s GROUP BY %s ORDER BY COUNT(*), %s LIMIT 1)",
				key, tab, key, key, above, key, key)
			gs = append(gs, group{what: fmt.Sprintf("move rows out of a %s.%s group to %d", t.Name, col.Name, n), rank: n,
				stmts: []string{fmt.Sprintf("UPDATE %s SET %s = %s WHERE %s IN (%s)", tab, key, smallest, p.rowid(), surplus)}})
		}
	}
	return gs
}

// leaders change which group a gold's ORDER BY COUNT(*) ... LIMIT 1
// picks once its filter changes: copies of a row of the runner-up
// (DESC) or of the leader (ASC), enough to pass the other, either on the
// boundary of a compared literal (rows the flipped comparison drops) or
// failing the condition (rows the dropped condition lets in). The counts
// are read when the statement runs, under the gold's own filter.
func (p *planner) leaders(gold string) []group {
	var toks []sqltext.Token
	for _, t := range sqltext.Tokens(gold) {
		if t.Significant() {
			toks = append(toks, t)
		}
	}
	key, desc := "", true
	for i := 0; i+9 < len(toks); i++ {
		if toks[i].IsWord("group") && toks[i+1].IsWord("by") && toks[i+3].IsWord("order") && toks[i+4].IsWord("by") &&
			toks[i+5].IsWord("count") && toks[i+6].IsPunct("(") && toks[i+7].Text == "*" && toks[i+8].IsPunct(")") {
			key = strings.Trim(toks[i+2].Text, "\"`[]")
			k := i + 9
			if toks[k].IsWord("asc") || toks[k].IsWord("desc") {
				desc = toks[k].IsWord("desc")
				k++
			}
			if k+1 >= len(toks) || !toks[k].IsWord("limit") || toks[k+1].Text != "1" {
				key = ""
			}
			break
		}
	}
	if key == "" {
		return nil
	}
	var gs []group
	for _, c := range p.comps {
		t := p.schema.Table(c.Table)
		if t == nil || t.Rows == 0 || c.Cond == "" || c.From != "" {
			continue
		}
		kc, col := column(t, key), column(t, c.Column)
		if kc == nil || col == nil || inKey(t, col.Name) || fkOf(t, col.Name) != nil {
			continue
		}
		tab, k := quoteIdent(t.Name), quoteIdent(kc.Name)
		others := "1"
		if c.Others != "" {
			others = "(" + c.Others + ")"
		}
		filter := "(" + c.Cond + ") AND " + others
		dir := "DESC"
		if !desc {
			dir = "ASC"
		}
		rank := func(n int) string {
			return fmt.Sprintf("(SELECT %s FROM %s WHERE %s GROUP BY %s ORDER BY COUNT(*) %s, %s LIMIT 1 OFFSET %d)", k, tab, filter, k, dir, k, n)
		}
		count := func(v string) string {
			return fmt.Sprintf("(SELECT COUNT(*) FROM %s WHERE %s AND %s = %s)", tab, filter, k, v)
		}
		// The group that gets the rows, and how many it needs to pass
		// the other, capped so a variant stays small.
		to, need := rank(1), fmt.Sprintf("MIN(%s - %s + 1, 200)", count(rank(0)), count(rank(1)))
		if !desc {
			to, need = rank(0), fmt.Sprintf("MIN(%s - %s + 1, 200)", count(rank(1)), count(rank(0)))
		}
		set := map[string]string{}
		if vs := values(c, col); len(vs) > 0 {
			set[strings.ToLower(col.Name)] = vs[0]
			gs = append(gs, group{what: "boundary rows to change the leader of " + t.Name + "." + kc.Name, rank: 1 << 40,
				stmts: []string{p.copyCount(t, fmt.Sprintf("%s AND %s = %s", others, k, to), need, set)}})
		}
		gs = append(gs, group{what: "outside rows to change the leader of " + t.Name + "." + kc.Name, rank: 1 << 40,
			stmts: []string{p.copyCount(t, fmt.Sprintf("NOT (%s) AND %s AND %s = %s", c.Cond, others, k, to), need, nil)}})
	}
	return gs
}

// copyCount is copyRows with the number of copies an expression computed
// when the statement runs; where picks the first row in key order.
func (p *planner) copyCount(t *sqlgym.Table, where, count string, set map[string]string) string {
	s := p.copyRows(t, where, 0, 1, set)
	// copyRows writes "... WHERE i < 1)": the bound becomes the count.
	return strings.Replace(s, "WHERE i < 1)", "WHERE i < "+count+")", 1)
}

// relabels move a value of a column out of a gold's filter: the rows that
// meet the condition and hold the k-th value among them get the
// condition's column set to a value from a row that fails it, so the
// value stays in the table and leaves the filtered rows (what tells
// COUNT(DISTINCT x) ... WHERE c from the query without c when every x
// passes c). One row moved out is planned too, for aggregates.
func (p *planner) relabels() []group {
	var gs []group
	for _, c := range p.comps {
		t := p.schema.Table(c.Table)
		if t == nil || t.Rows == 0 || c.Cond == "" || c.From != "" {
			continue
		}
		cc := column(t, c.Column)
		if cc == nil || inKey(t, cc.Name) || fkOf(t, cc.Name) != nil {
			continue
		}
		tab, target := quoteIdent(t.Name), quoteIdent(cc.Name)
		within := "(" + c.Cond + ")"
		if c.Others != "" {
			within += " AND (" + c.Others + ")"
		}
		outside := fmt.Sprintf("(SELECT %s FROM %s WHERE NOT (%s) AND %s IS NOT NULL ORDER BY %s LIMIT 1 OFFSET %d)",
			target, tab, c.Cond, target, p.order(t), p.rng.IntN(3))
		for ci := range t.Columns {
			col := &t.Columns[ci]
			if strings.EqualFold(col.Name, cc.Name) || inKey(t, col.Name) || p.identifying(t, col) {
				continue
			}
			name := quoteIdent(col.Name)
			v := fmt.Sprintf("(SELECT %s FROM %s WHERE %s GROUP BY %s ORDER BY COUNT(*), %s LIMIT 1)", name, tab, within, name, name)
			gs = append(gs, group{what: "relabel " + t.Name + "." + col.Name + " out of " + c.Cond,
				stmts: []string{fmt.Sprintf("UPDATE %s SET %s = %s WHERE %s AND %s = %s", tab, target, outside, within, name, v)}})
		}
		gs = append(gs, group{what: "move a row out of " + c.Cond,
			stmts: []string{fmt.Sprintf("UPDATE %s SET %s = %s WHERE %s = (SELECT %s FROM %s WHERE %s ORDER BY %s LIMIT 1 OFFSET %d)",
				tab, target, outside, p.rowid(), p.rowid(), tab, within, p.order(t), p.rng.IntN(3))}})
	}
	return gs
}

// extremes copy a row that fails one condition of a gold and meets its
// others with one numeric column at the table's extreme, past it and on
// it: plan sets every column at once, which a single CHECK refuses.
func (p *planner) extremes() []group {
	var gs []group
	for _, c := range p.comps {
		t := p.schema.Table(c.Table)
		if t == nil || t.Rows == 0 || c.Cond == "" {
			continue
		}
		where := "NOT (" + c.Cond + ")"
		if c.Others != "" {
			where += " AND " + c.Others
		}
		for ci := range t.Columns {
			col := &t.Columns[ci]
			if inKey(t, col.Name) || fkOf(t, col.Name) != nil || isText(col) || p.identifying(t, col) || strings.EqualFold(col.Name, c.Column) {
				continue
			}
			// Past the extreme by the engine's step (a day for a
			// timestamp; none for a boolean), and on it.
			var es []string
			for _, dir := range []string{"MAX", "MIN"} {
				ext := fmt.Sprintf("(SELECT %s(%s) FROM %s)", dir, quoteIdent(col.Name), quoteIdent(t.Name))
				if v, ok := p.past(t, col, ext, dir == "MAX"); ok {
					es = append(es, v)
				}
				es = append(es, ext)
			}
			for _, v := range es {
				gs = append(gs, group{what: "extreme " + t.Name + "." + col.Name + " outside " + c.Cond,
					stmts: []string{p.copyFrom(t, c.From, c.Alias, where, p.rng.IntN(3), 1, map[string]string{strings.ToLower(col.Name): v})}})
			}
		}
	}
	return gs
}

// joinExtremes copy a row of another table of a joining gold, joined as
// the gold joins it, with one numeric column past the table's extreme:
// joined to rows that fail the condition (a dropped orders.status =
// 'delivered' changes MAX(order_items.quantity)) and to rows that meet it
// (MIN and MAX of the filtered rows then differ). The gold must name the
// table by its own name, as the copy's source is the gold's FROM.
func (p *planner) joinExtremes(gold string) []group {
	var toks []sqltext.Token
	for _, t := range sqltext.Tokens(gold) {
		if t.Significant() {
			toks = append(toks, t)
		}
	}
	var gs []group
	for _, c := range p.comps {
		if c.From == "" || c.Cond == "" {
			continue
		}
		for ui := range p.schema.Tables {
			u := &p.schema.Tables[ui]
			if strings.EqualFold(u.Name, c.Table) || u.Rows == 0 || !qualifies(toks, u.Name) {
				continue
			}
			for _, where := range []string{"NOT (" + c.Cond + ")", "(" + c.Cond + ")"} {
				if c.Others != "" {
					where += " AND " + c.Others
				}
				for ci := range u.Columns {
					col := &u.Columns[ci]
					if inKey(u, col.Name) || fkOf(u, col.Name) != nil || isText(col) || p.identifying(u, col) {
						continue
					}
					for _, dir := range []string{"MAX", "MIN"} {
						// One step past the extreme, in the column's
						// type and form (a date a day on, never an
						// integer).
						v, ok := p.past(u, col, fmt.Sprintf("(SELECT %s(%s) FROM %s)", dir, quoteIdent(col.Name), quoteIdent(u.Name)), dir == "MAX")
						if !ok {
							continue
						}
						gs = append(gs, group{what: "joined extreme " + u.Name + "." + col.Name + " by " + c.Cond,
							stmts: []string{p.copyFrom(u, c.From, u.Name, where, p.rng.IntN(3), 1, map[string]string{strings.ToLower(col.Name): v})}})
					}
				}
			}
		}
	}
	return gs
}

// qualifies reports whether the tokens name a column as table.column.
func qualifies(toks []sqltext.Token, table string) bool {
	for i := 0; i+1 < len(toks); i++ {
		if (toks[i].Kind == sqltext.Word || toks[i].Kind == sqltext.QuotedIdent) && strings.EqualFold(strings.Trim(toks[i].Text, "\"`[]"), table) && toks[i+1].IsPunct(".") {
			return true
		}
	}
	return false
}

// subqueryTies copy a row with a column set exactly to the value of the
// scalar subquery the gold compares it with (col > (SELECT AVG(col) ...)):
// the row tells > from >=. A copy equal to a mean leaves the mean as it
// was, up to rounding, which the kill check judges. The copy meets the
// gold's other literal conditions on the table, when there are some.
func (p *planner) subqueryTies(gold string) []group {
	var toks []sqltext.Token
	for _, t := range sqltext.Tokens(gold) {
		if t.Significant() {
			toks = append(toks, t)
		}
	}
	var gs []group
	for i := 0; i+3 < len(toks); i++ {
		op := toks[i+1]
		if op.Kind != sqltext.Operator || !strings.Contains("<<=>>=", op.Text) || !toks[i+2].IsPunct("(") || !toks[i+3].IsWord("select") {
			continue
		}
		name := strings.Trim(toks[i].Text, "\"`[]")
		end := sqltext.ClosingParen(toks, i+2)
		if end < 0 {
			continue
		}
		sub := gold[toks[i+2].Pos:toks[end].End()]
		for ti := range p.schema.Tables {
			t := &p.schema.Tables[ti]
			col := column(t, name)
			if col == nil || t.Rows == 0 || !mentions(toks, t.Name) || inKey(t, col.Name) || fkOf(t, col.Name) != nil {
				continue
			}
			var conds []string
			for _, c := range p.comps {
				if !strings.EqualFold(c.Table, t.Name) {
					continue
				}
				switch {
				case c.Cond != "" && c.From == "" && !strings.Contains(strings.ToLower(c.Cond), "select"):
					conds = append(conds, "("+c.Cond+")")
				case slices.Contains([]string{"=", "<", ">", "<=", ">=", "<>"}, c.Op):
					// A condition of a gold whose FROM holds a subquery
					// has no Cond: rebuilt from its parts.
					conds = append(conds, "("+quoteIdent(c.Column)+" "+c.Op+" "+c.Literal+")")
				}
			}
			where := strings.Join(dedup(conds), " AND ")
			// The copy moves a mean it is part of by a rounding error:
			// set to the subquery's value again, twice, it settles on
			// it (the subquery is read before the row changes).
			again := fmt.Sprintf("UPDATE %s SET %s = %s WHERE %s = (SELECT MAX(%s) FROM %s)", quoteIdent(t.Name), quoteIdent(col.Name), sub, p.rowid(), p.rowid(), quoteIdent(t.Name))
			for k := range 2 {
				gs = append(gs, group{what: "tie " + t.Name + "." + col.Name + " with " + sub,
					stmts: []string{p.copyRow(t, where, k, map[string]string{strings.ToLower(col.Name): sub}), again, again}})
			}
		}
	}
	return gs
}

// dateDiffTies copy a row with the two dates a gold subtracts
// (julianday(a) - julianday(b) > N) exactly N days apart, at midnight, so
// the difference is N to the last bit: the row tells > from >=.
func (p *planner) dateDiffTies(gold string) []group {
	var toks []sqltext.Token
	for _, t := range sqltext.Tokens(gold) {
		if t.Significant() {
			toks = append(toks, t)
		}
	}
	var gs []group
	for i := 0; i+10 < len(toks); i++ {
		if !toks[i].IsWord("julianday") || !toks[i+1].IsPunct("(") || !toks[i+3].IsPunct(")") || toks[i+4].Text != "-" ||
			!toks[i+5].IsWord("julianday") || !toks[i+6].IsPunct("(") || !toks[i+8].IsPunct(")") ||
			toks[i+9].Kind != sqltext.Operator || toks[i+10].Kind != sqltext.Number {
			continue
		}
		a, b := strings.Trim(toks[i+2].Text, "\"`[]"), strings.Trim(toks[i+7].Text, "\"`[]")
		n := toks[i+10].Text
		for ti := range p.schema.Tables {
			t := &p.schema.Tables[ti]
			ca, cb := column(t, a), column(t, b)
			if ca == nil || cb == nil || t.Rows == 0 || !mentions(toks, t.Name) {
				continue
			}
			qa, qb := quoteIdent(ca.Name), quoteIdent(cb.Name)
			where := qa + " IS NOT NULL AND " + qb + " IS NOT NULL"
			for k := range 2 {
				gs = append(gs, group{what: "dates " + n + " days apart in " + t.Name,
					stmts: []string{p.copyRow(t, where, k, map[string]string{
						strings.ToLower(ca.Name): fmt.Sprintf("date(src.%s, '+%s days')", qb, n),
						strings.ToLower(cb.Name): fmt.Sprintf("date(src.%s)", qb),
					})}})
			}
		}
	}
	return gs
}

func mentions(toks []sqltext.Token, table string) bool {
	for _, t := range toks {
		if (t.Kind == sqltext.Word || t.Kind == sqltext.QuotedIdent) && strings.EqualFold(strings.Trim(t.Text, "\"`[]"), table) {
			return true
		}
	}
	return false
}

// compsOf is the comparisons and thresholds of one task's golds.
func compsOf(golds []string, s *sqlgym.Schema) ([]screen.Comparison, []screen.Threshold) {
	var comps []screen.Comparison
	var ths []screen.Threshold
	for _, g := range golds {
		c, th := screen.Compared(g, s)
		comps = append(comps, c...)
		ths = append(ths, th...)
	}
	return dedup(comps), dedup(ths)
}
