package screen

import (
	"strconv"
	"strings"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/sqltext"
)

// Kind names a family of mutants.
type Kind string

// The mutant kinds, each a mistake a model plausibly makes.
const (
	DropConjunct   Kind = "drop_conjunct"    // one AND-ed WHERE condition left out (the whole WHERE when it has one)
	FlipComparison Kind = "flip_comparison"  // < and <=, > and >=, = and <>
	FlipOrder      Kind = "flip_order"       // ASC and DESC on one sort key
	DropDistinct   Kind = "drop_distinct"    // SELECT DISTINCT becomes SELECT
	AddDistinct    Kind = "add_distinct"     // the outer SELECT becomes SELECT DISTINCT
	CountDistinct  Kind = "count_distinct"   // COUNT(x) and COUNT(DISTINCT x)
	LimitOffByOne  Kind = "limit_off_by_one" // LIMIT n+1 and LIMIT n-1
	JoinType       Kind = "join_type"        // INNER JOIN and LEFT JOIN
	SwapAggregate  Kind = "swap_aggregate"   // SUM and AVG, MIN and MAX

	// The kinds below are the mistakes models make beyond near misses.
	// Those marked (schema) need MutateSchema.
	WrongColumn      Kind = "wrong_column"       // another column of the same table and type, in SELECT or WHERE (schema)
	WrongJoinKey     Kind = "wrong_join_key"     // another key column of the same type in a join's equality (schema)
	WrongGrain       Kind = "wrong_grain"        // GROUP BY another column of the table: name for id (schema)
	MissingGroupBy   Kind = "missing_group_by"   // one key of a GROUP BY left out
	OffByOneLiteral  Kind = "off_by_one_literal" // a compared number one up or down, a date a day
	OrderWrongColumn Kind = "order_wrong_column" // the first sort key replaced by another select item or column
)

// NearMissKinds are the screen's first nine kinds: small changes of the
// gold's meaning. ModelKinds are the mistakes models make on top.
var (
	NearMissKinds = []Kind{DropConjunct, FlipComparison, FlipOrder, DropDistinct, AddDistinct, CountDistinct,
		LimitOffByOne, JoinType, SwapAggregate}
	ModelKinds = []Kind{WrongColumn, WrongJoinKey, WrongGrain, MissingGroupBy, OffByOneLiteral, OrderWrongColumn}
)

// Kinds lists every kind in report order.
var Kinds = append(append([]Kind(nil), NearMissKinds...), ModelKinds...)

// ParseKind reads a kind name.
func ParseKind(s string) (Kind, bool) {
	for _, k := range Kinds {
		if string(k) == strings.TrimSpace(strings.ToLower(s)) {
			return k, true
		}
	}
	return "", false
}

// Effect says what a mutant can change in the result, so that a mode
// blind to that change by design does not judge it.
type Effect uint8

const (
	// EffectRows: the mutant can change which rows or values come back.
	EffectRows Effect = iota
	// EffectOrder: only the order of the outermost result can change (a
	// sort direction with no LIMIT after it).
	EffectOrder
	// EffectDuplicates: only duplicates of the outermost result can
	// appear or vanish (DISTINCT on the outer SELECT).
	EffectDuplicates
)

// Mutant is a near miss of a gold query.
type Mutant struct {
	Kind Kind   `json:"kind"`
	SQL  string `json:"sql"`
	// Effect is what the mutant can change.
	Effect Effect `json:"-"`
	// Distinct is set when the mutant adds or removes a DISTINCT keyword,
	// which the test-suite mode strips from both queries anyway.
	Distinct bool `json:"-"`
}

// DefaultMaxPerKind bounds the mutants of one kind per gold, so a long
// gold does not dominate the screen's cost.
const DefaultMaxPerKind = 8

// MutateSchema is Mutate knowing the database's schema, which the kinds
// that pick another column of the same type need (nil: they make none).
func MutateSchema(sql string, maxPerKind int, s *sqlgym.Schema) []Mutant {
	if maxPerKind <= 0 {
		maxPerKind = DefaultMaxPerKind
	}
	if sqltext.CountStatements(sql) != 1 {
		return nil
	}
	q := analyse(sql)
	cols := q.columns(s)
	withCols := func(f func([]colRef) []Mutant) func() []Mutant { return func() []Mutant { return f(cols) } }
	seen := map[string]bool{sqltext.Normalize(sql): true}
	var out []Mutant
	for _, gen := range []func() []Mutant{q.dropConjuncts, q.flipComparisons, q.flipOrders, q.dropDistincts,
		q.addDistinct, q.countDistincts, q.limits, q.joinTypes, q.swapAggregates, withCols(q.wrongColumns),
		withCols(q.wrongJoinKeys), withCols(q.wrongGrains), q.missingGroupBys, q.offByOneLiterals,
		withCols(q.orderWrongColumns)} {
		n := 0
		for _, m := range gen() {
			key := sqltext.Normalize(m.SQL)
			if seen[key] || n >= maxPerKind {
				continue
			}
			seen[key] = true
			out = append(out, m)
			n++
		}
	}
	return out
}

// tok is a significant token with its parenthesis depth: an opening
// parenthesis sits at the depth outside it, the tokens after it one
// deeper, and the closing one back outside.
type tok struct {
	sqltext.Token
	depth int
	open  int // index of the parenthesis that opened this depth, -1 at the top
}

type query struct {
	sql  string
	toks []tok
}

func analyse(sql string) *query {
	q := &query{sql: sql}
	var stack []int
	for _, t := range sqltext.Tokens(sql) {
		if !t.Significant() || t.IsPunct(";") {
			continue
		}
		open := -1
		if len(stack) > 0 {
			open = stack[len(stack)-1]
		}
		switch {
		case t.IsPunct("(") || t.IsPunct("["):
			q.toks = append(q.toks, tok{t, len(stack), open})
			stack = append(stack, len(q.toks)-1)
		case (t.IsPunct(")") || t.IsPunct("]")) && len(stack) > 0:
			stack = stack[:len(stack)-1]
			open = -1
			if len(stack) > 0 {
				open = stack[len(stack)-1]
			}
			q.toks = append(q.toks, tok{t, len(stack), open})
		default:
			q.toks = append(q.toks, tok{t, len(stack), open})
		}
	}
	return q
}

// word reports whether token i exists and is one of the words.
func (q *query) word(i int, ws ...string) bool {
	if i < 0 || i >= len(q.toks) {
		return false
	}
	for _, w := range ws {
		if q.toks[i].IsWord(w) {
			return true
		}
	}
	return false
}

func (q *query) punct(i int, p string) bool {
	return i >= 0 && i < len(q.toks) && q.toks[i].IsPunct(p)
}

// edit replaces sql[from:to] with text.
func (q *query) edit(from, to int, text string) string {
	return q.sql[:from] + text + q.sql[to:]
}

// remove cuts tokens i..j (inclusive) and the white space after them.
func (q *query) remove(i, j int) string {
	end := q.toks[j].End()
	if j+1 < len(q.toks) {
		end = q.toks[j+1].Pos
	}
	return q.edit(q.toks[i].Pos, end, "")
}

// topFrom returns the top-level FROM keyword's token and the end of its
// clause, or -1, -1 when the query has none at depth 0.
func (q *query) topFrom() (from, end int) {
	for k := range q.toks {
		if q.toks[k].depth == 0 && q.word(k, "from") {
			return k, q.clauseEnd(k, "where", "group", "having", "order", "limit", "offset", "window", "fetch")
		}
	}
	return -1, -1
}

// clauseEnd returns the index of the first token after start, at start's
// depth, that ends the clause: a parenthesis closing that depth, one of
// the terminating words, or the end.
func (q *query) clauseEnd(start int, terms ...string) int {
	d := q.toks[start].depth
	for k := start + 1; k < len(q.toks); k++ {
		t := q.toks[k]
		if t.depth < d {
			return k
		}
		if t.depth == d && t.Kind == sqltext.Word && q.word(k, terms...) {
			return k
		}
	}
	return len(q.toks)
}

// inSubquery reports whether the depth of token i was opened by a
// parenthesis starting a subquery.
func (q *query) inSubquery(i int) bool {
	o := q.toks[i].open
	return o >= 0 && q.word(o+1, "select", "with")
}

var whereEnds = []string{"group", "having", "order", "limit", "offset", "window", "union", "intersect",
	"except", "fetch", "qualify", "returning"}

// dropConjuncts drops each AND-ed condition of each WHERE clause. A WHERE
// whose top level holds an OR is one condition, dropped whole.
func (q *query) dropConjuncts() []Mutant {
	var out []Mutant
	for w := range q.toks {
		if !q.word(w, "where") {
			continue
		}
		end := q.clauseEnd(w, whereEnds...)
		if end == w+1 {
			continue
		}
		starts, or := q.conjuncts(w, end)
		if or || len(starts) == 1 {
			if !or && q.nullGuard(w+1, end) {
				continue
			}
			// The whole clause goes, with the white space before WHERE.
			from := q.toks[w].Pos
			if w > 0 {
				from = q.toks[w-1].End()
			}
			out = append(out, Mutant{Kind: DropConjunct, SQL: q.edit(from, q.toks[end-1].End(), "")})
			continue
		}
		for i, s := range starts {
			e := end
			if i+1 < len(starts) {
				e = starts[i+1] - 1
			}
			if q.nullGuard(s, e) {
				continue
			}
			var m string
			if i+1 < len(starts) {
				// "a AND b": cut from a up to b.
				m = q.edit(q.toks[s].Pos, q.toks[starts[i+1]].Pos, "")
			} else {
				// The last one: cut from the end of the previous conjunct.
				m = q.edit(q.toks[s-2].End(), q.toks[end-1].End(), "")
			}
			out = append(out, Mutant{Kind: DropConjunct, SQL: m})
		}
	}
	return out
}

// nullGuard reports whether tokens [a, b) are "column IS NOT NULL": such a
// condition only removes NULLs, and whether a column holds any is a fact
// of the schema and data, not a step of the question's logic.
func (q *query) nullGuard(a, b int) bool {
	n := b - a
	if n == 6 && q.punct(a+1, ".") {
		a, n = a+2, 4
	}
	return n == 4 && (q.toks[a].Kind == sqltext.Word || q.toks[a].Kind == sqltext.QuotedIdent) &&
		q.word(a+1, "is") && q.word(a+2, "not") && q.word(a+3, "null")
}

// conjuncts splits the WHERE clause of tokens (w, end) at its top-level
// ANDs (not BETWEEN's, not inside CASE) and returns the first token of
// each conjunct, and whether an OR joins conditions at the top.
func (q *query) conjuncts(w, end int) (starts []int, or bool) {
	d := q.toks[w].depth
	starts = []int{w + 1}
	cases, between := 0, 0
	for k := w + 1; k < end; k++ {
		if q.toks[k].depth != d {
			continue
		}
		switch {
		case q.word(k, "case"):
			cases++
		case q.word(k, "end") && cases > 0:
			cases--
		case cases > 0:
		case q.word(k, "between"):
			between++
		case q.word(k, "or"):
			or = true
		case q.word(k, "and") && between > 0:
			between--
		case q.word(k, "and"):
			starts = append(starts, k+1)
		}
	}
	return starts, or
}

var flips = map[string]string{"<": "<=", "<=": "<", ">": ">=", ">=": ">", "=": "<>", "==": "<>", "<>": "=", "!=": "="}

// governing returns the clause word (lower-cased) that the expression at
// token i belongs to, walking back at i's depth and out of parentheses
// that open no subquery.
func (q *query) governing(i int) string {
	d := q.toks[i].depth
	for j := i - 1; j >= 0; j-- {
		t := q.toks[j]
		if t.depth > d {
			continue
		}
		if t.depth < d { // the parenthesis that opened our depth
			d = t.depth
			continue
		}
		if q.word(j, "where", "on", "having", "select", "when", "then", "else", "from", "join", "group", "order", "limit", "set", "using") {
			return strings.ToLower(t.Text)
		}
	}
	return ""
}

// flipComparisons flips each comparison operator, except equality in a
// join's ON: a join on <> is no near miss but a cross product.
func (q *query) flipComparisons() []Mutant {
	var out []Mutant
	for i, t := range q.toks {
		if t.Kind != sqltext.Operator {
			continue
		}
		to, ok := flips[t.Text]
		if !ok {
			continue
		}
		if (to == "<>" || to == "=") && q.governing(i) == "on" {
			continue
		}
		out = append(out, Mutant{Kind: FlipComparison, SQL: q.edit(t.Pos, t.End(), to)})
	}
	return out
}

// flipOrders reverses the direction of each sort's first key. A sort with no
// LIMIT after it only orders rows: at the top it is an order-only mutant;
// in a subquery it means nothing and is skipped. In a window or an
// aggregate's argument list it changes values.
func (q *query) flipOrders() []Mutant {
	var out []Mutant
	for k := range q.toks {
		if !q.word(k, "order") || !q.word(k+1, "by") {
			continue
		}
		end, effect, skip := q.sortEffect(k)
		if skip {
			continue
		}
		// Only the first key: the plausible mistake is the direction of
		// the sort itself; a later key only breaks ties.
		if keys := q.split(k+2, end); len(keys) > 0 {
			if m, ok := q.flipKey(keys[0][0], keys[0][1]); ok {
				out = append(out, Mutant{Kind: FlipOrder, SQL: m, Effect: effect})
			}
		}
	}
	return out
}

// sortEffect returns the end of the ORDER BY at token k and what changing
// its keys can change: with no LIMIT after it, only row order at the top,
// and nothing in a subquery (skip).
func (q *query) sortEffect(k int) (end int, effect Effect, skip bool) {
	end = q.clauseEnd(k+1, "limit", "offset", "fetch", "union", "intersect", "except", "rows", "range", "groups", "window")
	limited := q.word(end, "limit", "offset", "fetch")
	switch {
	case q.toks[k].depth == 0 && !limited:
		return end, EffectOrder, false
	case q.toks[k].depth > 0 && q.inSubquery(k) && !limited:
		return end, EffectRows, true
	}
	return end, EffectRows, false
}

// flipKey reverses the sort key in tokens [a, b).
func (q *query) flipKey(a, b int) (string, bool) {
	last := b - 1
	if last-1 >= a && q.word(last-1, "nulls") {
		last -= 2
	}
	if last < a {
		return "", false
	}
	t := q.toks[last]
	switch {
	case q.word(last, "asc"):
		return q.edit(t.Pos, t.End(), "DESC"), true
	case q.word(last, "desc"):
		return q.edit(t.Pos, t.End(), "ASC"), true
	}
	return q.edit(t.End(), t.End(), " DESC"), true
}

// dropDistincts removes each SELECT DISTINCT's DISTINCT, except in a
// subquery read by IN, EXISTS, ANY or ALL, where it cannot matter.
func (q *query) dropDistincts() []Mutant {
	var out []Mutant
	for k := range q.toks {
		if !q.word(k, "select") || !q.word(k+1, "distinct") || q.word(k+2, "on") {
			continue
		}
		effect := EffectRows
		if q.toks[k].depth == 0 {
			effect = EffectDuplicates
		} else if o := q.toks[k].open; o > 0 && q.word(o-1, "in", "exists", "any", "all", "some") {
			continue
		}
		out = append(out, Mutant{Kind: DropDistinct, SQL: q.remove(k+1, k+1), Effect: effect, Distinct: true})
	}
	return out
}

// addDistinct makes a grouped outer SELECT a SELECT DISTINCT when its
// select list leaves out a group key: rows of different groups can then
// repeat (two customers with the same order count), and DISTINCT would
// wrongly merge them. Other queries are left alone: whether a plain list
// may repeat is a matter of the question's wording, and a list of rows
// that happen to be unique is no weakness of the task.
func (q *query) addDistinct() []Mutant {
	sel, group := -1, -1
	for k, t := range q.toks {
		if t.depth != 0 {
			continue
		}
		switch {
		case q.word(k, "select"):
			if sel >= 0 {
				return nil // a set operation: several outer SELECTs
			}
			sel = k
		case q.word(k, "group") && q.word(k+1, "by"):
			group = k
		}
	}
	if sel < 0 || group < 0 || q.word(sel+1, "distinct", "all") {
		return nil
	}
	from := q.clauseEnd(sel, "from")
	selected := map[string]bool{}
	for _, r := range q.split(sel+1, from) {
		expr := r
		for k := r[0]; k < r[1]; k++ {
			if q.toks[k].depth == 0 && q.word(k, "as") {
				expr = [2]int{r[0], k}
				selected[q.text(k+1, r[1])] = true
			}
		}
		selected[q.text(expr[0], expr[1])] = true
	}
	end := q.clauseEnd(group+1, "having", "order", "limit", "offset", "window", "qualify", "fetch")
	for _, r := range q.split(group+2, end) {
		if r[1]-r[0] == 1 && q.toks[r[0]].Kind == sqltext.Number {
			continue // a position in the select list
		}
		if !selected[q.text(r[0], r[1])] {
			t := q.toks[sel]
			return []Mutant{{Kind: AddDistinct, SQL: q.edit(t.End(), t.End(), " DISTINCT"), Effect: EffectDuplicates, Distinct: true}}
		}
	}
	return nil
}

// split cuts tokens [a, b) at the commas at a's depth.
func (q *query) split(a, b int) [][2]int {
	if a >= b {
		return nil
	}
	d := q.toks[a].depth
	var out [][2]int
	start := a
	for k := a; k < b; k++ {
		if q.toks[k].depth == d && q.punct(k, ",") {
			out = append(out, [2]int{start, k})
			start = k + 1
		}
	}
	return append(out, [2]int{start, b})
}

// text is the normalised text of tokens [a, b), a qualifier dropped from
// a lone qualified column (c.name and name are the same key).
func (q *query) text(a, b int) string {
	if b-a == 3 && q.punct(a+1, ".") {
		a += 2
	}
	var parts []string
	for k := a; k < b; k++ {
		parts = append(parts, sqltext.Normalize(q.toks[k].Text))
	}
	return strings.Join(parts, " ")
}

// closing returns the index of the parenthesis closing the one at i.
func (q *query) closing(i int) int {
	d := q.toks[i].depth
	for k := i + 1; k < len(q.toks); k++ {
		if q.toks[k].depth == d && (q.punct(k, ")") || q.punct(k, "]")) {
			return k
		}
	}
	return len(q.toks)
}

// countDistincts turns COUNT(x) into COUNT(DISTINCT x) and back.
func (q *query) countDistincts() []Mutant {
	var out []Mutant
	for k := range q.toks {
		if !q.word(k, "count") || !q.punct(k+1, "(") {
			continue
		}
		a := k + 2
		switch {
		case a >= len(q.toks) || q.punct(a, ")") || q.toks[a].Text == "*":
			continue
		case q.word(a, "distinct"):
			out = append(out, Mutant{Kind: CountDistinct, SQL: q.remove(a, a), Distinct: true})
		case q.word(a, "all"):
			continue
		default:
			out = append(out, Mutant{Kind: CountDistinct, SQL: q.edit(q.toks[a].Pos, q.toks[a].Pos, "DISTINCT "), Distinct: true})
		}
	}
	return out
}

// limits moves each literal LIMIT one up and one down (never to 0).
func (q *query) limits() []Mutant {
	var out []Mutant
	for k := range q.toks {
		if !q.word(k, "limit") || k+1 >= len(q.toks) || q.toks[k+1].Kind != sqltext.Number {
			continue
		}
		t := q.toks[k+1]
		n, err := strconv.Atoi(t.Text)
		if err != nil {
			continue
		}
		out = append(out, Mutant{Kind: LimitOffByOne, SQL: q.edit(t.Pos, t.End(), strconv.Itoa(n+1))})
		if n >= 2 {
			out = append(out, Mutant{Kind: LimitOffByOne, SQL: q.edit(t.Pos, t.End(), strconv.Itoa(n-1))})
		}
	}
	return out
}

// joinTypes turns an inner join into a LEFT JOIN and a LEFT [OUTER] JOIN
// into an inner one. RIGHT, FULL, CROSS and NATURAL joins are left alone.
func (q *query) joinTypes() []Mutant {
	var out []Mutant
	for k, t := range q.toks {
		if !q.word(k, "join") {
			continue
		}
		toLeft := !q.word(k-1, "left", "outer", "right", "full", "cross", "natural", "lateral")
		if toLeft && q.rejectsNulls(k) {
			continue
		}
		switch {
		case q.word(k-1, "inner"):
			p := q.toks[k-1]
			out = append(out, Mutant{Kind: JoinType, SQL: q.edit(p.Pos, p.End(), "LEFT")})
		case q.word(k-1, "outer") && q.word(k-2, "left") && !q.word(k-3, "natural"):
			out = append(out, Mutant{Kind: JoinType, SQL: q.remove(k-2, k-1)})
		case q.word(k-1, "left") && !q.word(k-2, "natural"):
			out = append(out, Mutant{Kind: JoinType, SQL: q.remove(k-1, k-1)})
		case q.word(k-1, "right", "full", "cross", "natural", "outer", "lateral"):
		default:
			out = append(out, Mutant{Kind: JoinType, SQL: q.edit(t.Pos, t.Pos, "LEFT ")})
		}
	}
	return out
}

// rejectsNulls reports whether the WHERE of the query holding the JOIN at
// token j has a top-level condition on a column of the joined table that
// no NULL satisfies (t.c = 1, t.c LIKE 'x', t.c IS NOT NULL): the rows a
// LEFT JOIN would add are then filtered out again, so LEFT and INNER are
// the same query on any data, and the mutant no near miss. A later inner
// join whose ON names a column of the joined table does the same.
func (q *query) rejectsNulls(j int) bool {
	refs := map[string]bool{}
	k := j + 1
	if k >= len(q.toks) {
		return false
	}
	refs[sqltext.Normalize(q.toks[k].Text)] = true
	for q.punct(k+1, ".") && k+2 < len(q.toks) { // schema.table
		k += 2
		refs[sqltext.Normalize(q.toks[k].Text)] = true
	}
	if q.word(k+1, "as") {
		k++
	}
	if a := k + 1; a < len(q.toks) && (q.toks[a].Kind == sqltext.QuotedIdent ||
		q.toks[a].Kind == sqltext.Word && !q.word(a, "on", "using", "join", "inner", "left", "right", "full", "cross",
			"natural", "where", "group", "order", "limit", "union", "intersect", "except", "window")) {
		refs = map[string]bool{sqltext.Normalize(q.toks[a].Text): true} // an alias hides the name
	}
	d := q.toks[j].depth
	w := -1
	on := false // inside the ON of a later inner join
	for i := j + 1; i < len(q.toks) && q.toks[i].depth >= d; i++ {
		if q.toks[i].depth == d {
			switch {
			case q.word(i, "where"):
				w = i
			case q.word(i, "join"):
				on = !q.word(i-1, "left", "outer", "right", "full", "cross", "natural")
			case q.word(i, "group", "order", "limit", "union", "intersect", "except", "window"):
				on = false
			}
		}
		if w >= 0 {
			break
		}
		// A later inner join on a column of this table drops the rows
		// LEFT JOIN would add (their columns are NULL).
		if on && refs[sqltext.Normalize(q.toks[i].Text)] && q.punct(i+1, ".") && !q.punct(i-1, ".") {
			return true
		}
	}
	if w < 0 {
		return false
	}
	end := q.clauseEnd(w, whereEnds...)
	starts, or := q.conjuncts(w, end)
	if or {
		return false
	}
	for _, a := range starts {
		if !refs[sqltext.Normalize(q.toks[a].Text)] || !q.punct(a+1, ".") || a+3 >= end {
			continue
		}
		next := q.toks[a+3]
		switch {
		case next.Kind == sqltext.Operator && flips[next.Text] != "":
			return true
		case q.word(a+3, "like", "ilike", "glob", "in", "between"):
			return true
		case q.word(a+3, "is") && q.word(a+4, "not") && q.word(a+5, "null"):
			return true
		}
	}
	return false
}

var aggSwaps = map[string]string{"sum": "AVG", "avg": "SUM", "min": "MAX", "max": "MIN"}

// swapAggregates swaps SUM with AVG and MIN with MAX in calls.
func (q *query) swapAggregates() []Mutant {
	var out []Mutant
	for k, t := range q.toks {
		if t.Kind != sqltext.Word || !q.punct(k+1, "(") || q.punct(k-1, ".") {
			continue
		}
		to, ok := aggSwaps[strings.ToLower(t.Text)]
		if !ok {
			continue
		}
		if t.Text == strings.ToLower(t.Text) {
			to = strings.ToLower(to)
		}
		out = append(out, Mutant{Kind: SwapAggregate, SQL: q.edit(t.Pos, t.End(), to)})
	}
	return out
}
