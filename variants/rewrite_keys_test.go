package variants

import (
	"strings"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/constraints"
	"github.com/sqlgym/sqlgym/sqltext"
)

// keyRewrites returns texts that mean the same as gold on every database
// that keeps the schema's keys (declared or implied) and the column facts
// the variants keep: COUNT(*) as COUNT of the table's key, a join to a
// parent skipped through a foreign key that is never NULL when nothing
// but the parent's key is read, and GROUP BY a name that never repeats
// as GROUP BY the key. They are the right answers issue 24 found marked
// wrong on variants holding orphans, NULL keys and duplicated names.
func keyRewrites(gold string, s *sqlgym.Schema, cons *constraints.Set) map[string]string {
	out := map[string]string{}
	if s == nil {
		return out
	}
	body := strings.TrimRight(strings.TrimSpace(gold), ";")
	ts := significantTokens(body)
	if len(ts) == 0 || !ts[0].IsWord("select") {
		return out
	}
	from, tables := fromTables(ts)
	if from < 0 {
		return out
	}
	if r, ok := countKey(body, ts, tables, s); ok {
		out["count_key"] = r
	}
	if r, ok := skipJoin(body, ts, from, tables, s, cons); ok {
		out["skip_join"] = r
	}
	if r, ok := groupByKey(body, ts, tables, s, cons); ok {
		out["group_by_key"] = r
	}
	return out
}

// fromRef is one table of a top-level FROM: its name, the name it is
// read by (its alias, else its name), and where it starts and ends.
type fromRef struct {
	table, ref string
	start, end int // token range, end exclusive
}

// fromTables reads a top-level FROM of plain tables and INNER JOINs with
// ON conditions; any other FROM (a subquery, a comma join, an outer
// join) gives -1.
func fromTables(ts []ptok) (int, []fromRef) {
	from := -1
	for i, t := range ts {
		if t.depth == 0 && t.IsWord("from") {
			from = i
			break
		}
	}
	if from < 0 {
		return -1, nil
	}
	var out []fromRef
	i := from + 1
	for i < len(ts) {
		if ts[i].depth != 0 || ts[i].IsPunct("(") {
			return -1, nil
		}
		r := fromRef{table: unquoteIdent(ts[i].Text), start: i}
		r.ref = r.table
		i++
		if i < len(ts) && ts[i].IsWord("as") {
			i++
		}
		if i < len(ts) && isIdent(ts[i]) && !isClause(ts[i]) && !isWord(ts[i], "join", "inner", "on") {
			r.ref = unquoteIdent(ts[i].Text)
			i++
		}
		r.end = i
		out = append(out, r)
		if i < len(ts) && ts[i].IsWord("on") {
			for i < len(ts) && !(ts[i].depth == 0 && (isClause(ts[i]) || isWord(ts[i], "join", "inner"))) {
				i++
			}
		}
		switch {
		case i >= len(ts) || isClause(ts[i]):
			return from, out
		case ts[i].IsWord("inner") && i+1 < len(ts) && ts[i+1].IsWord("join"):
			i += 2
		case ts[i].IsWord("join"):
			i++
		default:
			return -1, nil
		}
	}
	return from, out
}

func isIdent(t ptok) bool { return t.Kind == sqltext.Word || t.Kind == sqltext.QuotedIdent }

func isClause(t ptok) bool {
	return isWord(t, "where", "group", "order", "having", "limit", "union", "intersect", "except")
}

func isWord(t ptok, ws ...string) bool {
	for _, w := range ws {
		if t.IsWord(w) {
			return true
		}
	}
	return false
}

func unquoteIdent(s string) string {
	if len(s) >= 2 && (s[0] == '"' || s[0] == '`' || s[0] == '[') {
		return s[1 : len(s)-1]
	}
	return s
}

// singleKey is t's one-column key, or "".
func singleKey(s *sqlgym.Schema, table string) string {
	t := s.Table(table)
	if t == nil || len(t.PrimaryKey) != 1 {
		return ""
	}
	return t.PrimaryKey[0]
}

// countKey writes COUNT(*) at the top level as COUNT of the first
// table's key, which is never NULL.
func countKey(body string, ts []ptok, tables []fromRef, s *sqlgym.Schema) (string, bool) {
	k := singleKey(s, tables[0].table)
	if k == "" {
		return "", false
	}
	for i := 0; i+3 < len(ts); i++ {
		if ts[i].depth == 0 && ts[i].IsWord("count") && ts[i+1].IsPunct("(") && ts[i+2].Text == "*" && ts[i+3].IsPunct(")") {
			return body[:ts[i+2].Pos] + tables[0].ref + "." + quoteIdent(k) + body[ts[i+2].End():], true
		}
	}
	return "", false
}

// skipJoin drops the join of a two-table FROM to the parent of a foreign
// key whose child column the data never leaves NULL, when the query
// reads nothing of the parent but its key: the key is the child's column.
func skipJoin(body string, ts []ptok, from int, tables []fromRef, s *sqlgym.Schema, cons *constraints.Set) (string, bool) {
	if len(tables) != 2 {
		return "", false
	}
	for ci, pi := range []int{1, 0} {
		child, parent := tables[ci], tables[pi]
		ct := s.Table(child.table)
		if ct == nil {
			continue
		}
		for _, fk := range ct.ForeignKeys {
			if len(fk.Columns) != 1 || !strings.EqualFold(fk.RefTable, parent.table) || singleKey(s, parent.table) == "" ||
				!strings.EqualFold(fk.RefColumns[0], singleKey(s, parent.table)) {
				continue
			}
			col := ct.Column(fk.Columns[0])
			// A NULL in the child's column drops its row from the join:
			// skipped only where no variant holds one (never NULL in the
			// data, and not a declared foreign key that may be NULL).
			if col == nil || !col.NotNull && (cons.Facts(child.table, col.Name).Nulls || cons.OptionalReference(child.table, col)) {
				continue
			}
			if r, ok := dropParent(body, ts, from, child, parent, fk.Columns[0], fk.RefColumns[0]); ok {
				return r, true
			}
		}
	}
	return "", false
}

// dropParent rewrites the query without the parent: every parent.key
// becomes child.col; any other mention of the parent refuses.
func dropParent(body string, ts []ptok, from int, child, parent fromRef, col, key string) (string, bool) {
	if strings.EqualFold(child.ref, parent.ref) {
		return "", false
	}
	// The FROM clause ends at the first clause after it.
	end := len(ts)
	for i := from + 1; i < len(ts); i++ {
		if ts[i].depth == 0 && isClause(ts[i]) {
			end = i
			break
		}
	}
	if !joinsOnKey(ts[from+1:end], child, parent, col, key) {
		return "", false
	}
	for i := range ts {
		if i > from && i < end {
			continue
		}
		if i+2 < len(ts) && ts[i+1].IsPunct(".") && strings.EqualFold(unquoteIdent(ts[i].Text), parent.ref) &&
			!strings.EqualFold(unquoteIdent(ts[i+2].Text), key) {
			return "", false
		}
		if isIdent(ts[i]) && strings.EqualFold(unquoteIdent(ts[i].Text), key) && !(i > 0 && ts[i-1].IsPunct(".")) {
			return "", false // a bare key could be either table's
		}
		if ts[i].Text == "*" && !(i > 0 && ts[i-1].IsPunct("(")) {
			return "", false
		}
	}
	endPos := len(body)
	if end < len(ts) {
		endPos = ts[end].Pos
	}
	fromText := body[ts[child.start].Pos:ts[child.end-1].End()]
	return rewriteRefs(body[:ts[from].Pos], parent.ref, key, child.ref, col) + "FROM " + fromText + " " +
		rewriteRefs(body[endPos:], parent.ref, key, child.ref, col), true
}

// rewriteRefs replaces ref.key by to.col in a piece of SQL.
func rewriteRefs(sql, ref, key, to, col string) string {
	ts := significantTokens(sql)
	var b strings.Builder
	last := 0
	for i := 0; i+2 < len(ts); i++ {
		if ts[i+1].IsPunct(".") && strings.EqualFold(unquoteIdent(ts[i].Text), ref) && strings.EqualFold(unquoteIdent(ts[i+2].Text), key) {
			b.WriteString(sql[last:ts[i].Pos] + to + "." + quoteIdent(col))
			last = ts[i+2].End()
			i += 2
		}
	}
	return b.String() + sql[last:]
}

// groupByKey writes GROUP BY ref.name, for a text column whose data
// never repeats or leaves out a value, as GROUP BY the table's key.
func groupByKey(body string, ts []ptok, tables []fromRef, s *sqlgym.Schema, cons *constraints.Set) (string, bool) {
	for i := 0; i+2 < len(ts); i++ {
		if ts[i].depth != 0 || !ts[i].IsWord("group") || !ts[i+1].IsWord("by") {
			continue
		}
		j := i + 2
		ref, name := "", unquoteIdent(ts[j].Text)
		end := j + 1
		if j+2 < len(ts) && ts[j+1].IsPunct(".") {
			ref, name, end = unquoteIdent(ts[j].Text), unquoteIdent(ts[j+2].Text), j+3
		}
		if end < len(ts) && !(ts[end].depth == 0 && isClause(ts[end])) {
			return "", false // several keys, or an expression
		}
		for _, tb := range tables {
			if ref != "" && !strings.EqualFold(ref, tb.ref) || ref == "" && len(tables) != 1 {
				continue
			}
			t := s.Table(tb.table)
			k := singleKey(s, tb.table)
			c := t.Column(name)
			if c == nil || k == "" || strings.EqualFold(k, name) || !isText(c) {
				continue
			}
			if f := cons.Facts(tb.table, name); f.Nulls || f.Duplicates || f.Distinct < 2 {
				continue
			}
			q := quoteIdent(k)
			if ref != "" {
				q = ref + "." + q
			}
			return body[:ts[j].Pos] + q + body[ts[end-1].End():], true
		}
	}
	return "", false
}

// joinsOnKey reports whether the FROM clause's one ON condition is
// exactly parent.key = child.col (either way round). Any other condition
// (an OR with another column, a second conjunct) makes the join more
// than the foreign key, and skipping it would change the answer: Spider's
// flight_2 joins airports ON code = DestAirport OR code = SourceAirport.
func joinsOnKey(from []ptok, child, parent fromRef, col, key string) bool {
	on := -1
	for i, t := range from {
		if t.IsWord("on") {
			on = i
			break
		}
	}
	if on < 0 || len(from)-on-1 != 7 {
		return false
	}
	c := from[on+1:]
	side := func(ts []ptok) (ref, name string, ok bool) {
		if !ts[1].IsPunct(".") {
			return "", "", false
		}
		return unquoteIdent(ts[0].Text), unquoteIdent(ts[2].Text), true
	}
	lr, ln, lok := side(c[0:3])
	rr, rn, rok := side(c[4:7])
	if !lok || !rok || c[3].Kind != sqltext.Operator || c[3].Text != "=" {
		return false
	}
	is := func(ref, name string, t fromRef, want string) bool {
		return strings.EqualFold(ref, t.ref) && strings.EqualFold(name, want)
	}
	return is(lr, ln, parent, key) && is(rr, rn, child, col) || is(lr, ln, child, col) && is(rr, rn, parent, key)
}
