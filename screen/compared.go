package screen

import (
	"strings"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/sqltext"
)

// Comparison is a literal a gold compares a column against: where a
// database needs rows on and next to it to tell < from <=. The variant
// generator reads them (the paper's fuzzing draws values at random; the
// golds say which values matter).
type Comparison struct {
	Table  string
	Column string
	// Op is the operator as written (<, >=, =, BETWEEN, IN, LIKE), Literal
	// the literal's text as written (quotes kept).
	Op      string
	Literal string
	Kind    sqltext.Kind // sqltext.Number or sqltext.String
	// Others is the rest of the gold's WHERE without this condition, when
	// the gold reads one table and the condition is one of its top-level
	// AND-ed conditions: rows that meet it are the ones whose value on the
	// boundary changes the gold's result. Empty otherwise.
	Others string
	// Cond is this condition's own text, when Others is set.
	Cond string
	// From and Alias, set when the condition is one of the top-level
	// WHERE's AND-ed conditions of a query with joins, are the gold's FROM
	// clause and the name it gives the column's table: the rows that meet
	// Others are then SELECT Alias.* FROM From WHERE Others.
	From, Alias string
}

// Threshold is a HAVING COUNT(...) bound: groups of exactly that size
// tell > from >=.
type Threshold struct {
	// Table is the gold's single table and GroupBy its single group key,
	// when it has them; empty otherwise.
	Table, GroupBy string
	N              int64
	Others         string // the single-table gold's WHERE, if any
}

// Compared returns the comparisons of sql against literals whose column
// the schema resolves, and its HAVING COUNT thresholds.
func Compared(sql string, s *sqlgym.Schema) ([]Comparison, []Threshold) {
	if sqltext.CountStatements(sql) != 1 || s == nil {
		return nil, nil
	}
	q := analyse(sql)
	cols := q.columns(s)
	single := q.singleTable(s)
	var out []Comparison
	for _, r := range cols {
		lit, op := -1, ""
		i := r.at
		switch {
		case q.compOp(i+1) && i+2 < len(q.toks) && literal(q.toks[i+2]):
			lit, op = i+2, q.toks[i+1].Text
		case q.word(i+1, "like") && i+2 < len(q.toks) && q.toks[i+2].Kind == sqltext.String:
			lit, op = i+2, "LIKE"
		case q.word(i+1, "between") && i+2 < len(q.toks) && literal(q.toks[i+2]):
			lit, op = i+2, "BETWEEN"
			if i+4 < len(q.toks) && literal(q.toks[i+4]) {
				out = append(out, q.comparison(r, i+4, "BETWEEN", single))
			}
		case q.word(i+1, "in") && q.punct(i+2, "("):
			for k := i + 3; k < len(q.toks) && literal(q.toks[k]); k += 2 {
				out = append(out, q.comparison(r, k, "IN", single))
				if !q.punct(k+1, ",") {
					break
				}
			}
			continue
		default:
			// literal op column
			if j := i - 1; q.punct(j, ".") {
				i -= 2
			}
			if q.compOp(i-1) && i-2 >= 0 && literal(q.toks[i-2]) {
				lit, op = i-2, q.toks[i-1].Text
			}
		}
		if lit >= 0 {
			out = append(out, q.comparison(r, lit, op, single))
		}
	}
	var th []Threshold
	for k := range q.toks {
		if !q.word(k, "having") {
			continue
		}
		end := q.clauseEnd(k, "order", "limit", "union", "intersect", "except", "window")
		for j := k + 1; j+1 < end; j++ {
			if !q.word(j, "count") || !q.punct(j+1, "(") {
				continue
			}
			c := q.closing(j + 1)
			if c+2 < end && q.compOp(c+1) && q.toks[c+2].Kind == sqltext.Number {
				if n, ok := parseInt(q.toks[c+2].Text); ok {
					t := Threshold{N: n}
					if single != nil {
						t.Table = single.Name
						t.GroupBy = q.groupKey(cols)
						t.Others = q.whereText(k)
					}
					th = append(th, t)
				}
			}
		}
	}
	return out, th
}

func literal(t tok) bool { return t.Kind == sqltext.Number || t.Kind == sqltext.String }

func parseInt(s string) (int64, bool) {
	var n int64
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, s != ""
}

func (q *query) comparison(r colRef, lit int, op string, single *sqlgym.Table) Comparison {
	c := Comparison{Table: r.table.Name, Column: r.col.Name, Op: op, Literal: q.toks[lit].Text, Kind: q.toks[lit].Kind}
	if q.toks[r.at].depth != 0 {
		return c
	}
	if single != nil {
		c.Others, c.Cond = q.othersOf(r.at)
		return c
	}
	// A join: the rows that matter are those of the gold's own FROM.
	if !q.punct(r.at-1, ".") || q.setOp() {
		return c
	}
	from, where := -1, -1
	for k := range q.toks {
		if q.toks[k].depth == 0 && q.word(k, "from") && from < 0 {
			from = k
		}
		if q.toks[k].depth == 0 && q.word(k, "where") {
			where = k
		}
	}
	if from < 0 || where < 0 || where < from || r.at < where {
		return c
	}
	others, own := q.othersOf(r.at)
	if own == "" {
		return c
	}
	c.Others, c.Cond = others, own
	c.From = q.sql[q.toks[from+1].Pos:q.toks[where-1].End()]
	c.Alias = q.toks[r.at-2].Text
	return c
}

func (q *query) setOp() bool {
	for k := range q.toks {
		if q.toks[k].depth == 0 && q.word(k, "union", "intersect", "except") {
			return true
		}
	}
	return false
}

// singleTable returns the table when the query reads exactly one, with no
// join, subquery or set operation; nil otherwise.
func (q *query) singleTable(s *sqlgym.Schema) *sqlgym.Table {
	var tb *sqlgym.Table
	for i, t := range q.toks {
		switch {
		case q.word(i, "join", "union", "intersect", "except", "with"), t.depth > 0 && q.word(i, "select"):
			return nil
		case q.word(i-1, "from"):
			if tb != nil {
				return nil
			}
			// "FROM t AS a, u" is a join too, not only "FROM t, u".
			end := q.clauseEnd(i-1, "where", "group", "having", "order", "limit", "offset", "window", "union", "intersect", "except")
			for k := i; k < end; k++ {
				if q.toks[k].depth == t.depth && q.punct(k, ",") {
					return nil
				}
			}
			tb = s.Table(unquote(t.Text))
		}
	}
	return tb
}

// othersOf returns the top-level WHERE's conditions other than the one
// holding token at, joined by AND; "" when there are none or the WHERE
// has a top-level OR (a condition is then not needed on its own).
func (q *query) othersOf(at int) (others, own string) {
	w := -1
	for k := range q.toks {
		if q.toks[k].depth == 0 && q.word(k, "where") {
			w = k
		}
	}
	if w < 0 || at < w {
		return "", ""
	}
	end := q.clauseEnd(w, whereEnds...)
	if at >= end {
		return "", ""
	}
	starts, or := q.conjuncts(w, end)
	if or {
		return "", ""
	}
	var keep []string
	for i, s := range starts {
		e := end
		if i+1 < len(starts) {
			e = starts[i+1] - 1
		}
		text := "(" + q.sql[q.toks[s].Pos:q.toks[e-1].End()] + ")"
		if at >= s && at < e {
			own = text
			continue
		}
		keep = append(keep, text)
	}
	return strings.Join(keep, " AND "), own
}

// whereText is the top-level WHERE's condition before token k, or "".
func (q *query) whereText(k int) string {
	for w := 0; w < k; w++ {
		if q.toks[w].depth == 0 && q.word(w, "where") {
			end := q.clauseEnd(w, whereEnds...)
			if end > w+1 {
				return "(" + q.sql[q.toks[w+1].Pos:q.toks[end-1].End()] + ")"
			}
		}
	}
	return ""
}

// groupKey returns the single top-level GROUP BY key's column name, or "".
func (q *query) groupKey(cols []colRef) string {
	for k := range q.toks {
		if q.toks[k].depth != 0 || !q.word(k, "group") || !q.word(k+1, "by") {
			continue
		}
		end := q.clauseEnd(k+1, "having", "order", "limit", "offset", "window")
		keys := q.split(k+2, end)
		if len(keys) != 1 {
			return ""
		}
		for _, r := range cols {
			if r.at == keys[0][1]-1 {
				return r.col.Name
			}
		}
	}
	return ""
}
