package screen

import (
	"strings"

	"github.com/sqlgym/sqlgym"
)

// Equivalent reports whether mutant m of gold returns the gold's rows on
// every database that meets the schema's declared constraints, and why: no
// data can then tell them apart, so a surviving m is no weakness of the
// task. It knows these cases, each a proof from the constraints, not a
// guess from data:
//
//   - DISTINCT added to or dropped from an outer SELECT whose LIMIT is 1:
//     one row has no duplicates.
//   - COUNT(x) against COUNT(DISTINCT x) in a query of one table whose
//     primary key is the column x: key values are unique and not NULL;
//     or over inner joins whose every table's key is fixed by x, the
//     group keys, literals and the equalities between them
//     (countOnceProved).
//   - INNER against LEFT JOIN of a table whose columns the query reads
//     only through NULL-skipping aggregates, grouped by other tables'
//     columns, with a HAVING that drops a group of only NULLs
//     (nullRowsDropped).
//   - INNER against LEFT JOIN in a query of one join grouped by the FROM
//     table's primary key with only HAVING COUNT(*) > n (n >= 1) or >= n
//     (n >= 2), alone or AND-ed with other conditions: a row the LEFT
//     JOIN adds is a group of its own, of one row, which the threshold
//     drops.
//   - INNER against LEFT JOIN of a table T on T's primary key equal to a
//     NOT NULL column of an inner-joined table that is a declared foreign
//     key to T, or of a subquery passing such a column through
//     (derived): every row finds exactly one partner either way.
//   - A bound flipped (< and <=, > and >=) in the top-level WHERE's AND
//     chain, when another condition of the chain is false or NULL on the
//     boundary row, judged by SQLite itself (boundFlipEquivalent; SQLite
//     schemas only).
//   - A GROUP BY key left out that the remaining keys determine: a column
//     of a table whose NOT NULL primary key stays (groupKeyDetermined);
//     likewise a key replaced by another column of that table
//     (grainKeyDetermined).
//   - SUM against AVG, MIN against MAX, when each group is at most one
//     row of every table (oneRowGroupsProved).
//   - A sort by an output alias against a sort by the expression it names
//     (orderAliasSame).
//   - DISTINCT added to or dropped from an outer SELECT whose rows are
//     each one row of a table, told apart by its key or a NOT NULL UNIQUE
//     column it selects (distinctRowsProved).
//   - Any change confined to one select item of a subquery nothing reads
//     the item of: an EXISTS, or a derived table whose item's name no
//     other part of the query names (unreadItemChanged).
//
// Anything else is false: a mutant no variant kills but that is not proved
// equivalent stays a weakness. The flipped-bound proof asks SQLite: it
// builds a one-row file in the temporary folder, once per distinct
// question in the process (a few milliseconds); when that fails, the
// answer is false.
func Equivalent(gold string, m Mutant, s *sqlgym.Schema) (bool, string) {
	if ok, why := unreadItemChanged(gold, m); ok {
		return true, why
	}
	q := analyse(gold)
	switch m.Kind {
	case AddDistinct, DropDistinct:
		if m.Effect == EffectDuplicates && q.outerLimitOne() {
			return true, "the outer SELECT returns at most one row (LIMIT 1)"
		}
		return distinctRowsProved(gold, m, s)
	case FlipComparison:
		return boundFlipEquivalent(gold, m, s)
	case MissingGroupBy:
		return groupKeyDetermined(gold, m, s)
	case WrongGrain:
		return grainKeyDetermined(gold, m, s)
	case OrderWrongColumn:
		return orderAliasSame(gold, m)
	case SwapAggregate:
		return oneRowGroupsProved(gold, m, s)
	case CountDistinct:
		if ok, why := q.countOverOnlyKey(s); ok {
			return true, why
		}
		return countOnceProved(gold, m, s)
	case JoinType:
		if s == nil {
			return false, ""
		}
		if ok, why := nullRowsDropped(gold, m, s); ok {
			return true, why
		}
		mq := analyse(m.SQL)
		gj, mj := q.joinWords(), mq.joinWords()
		if len(gj) != len(mj) {
			return false, ""
		}
		changed := false
		for i := range gj {
			if gj[i].left == mj[i].left {
				continue
			}
			changed = true
			if len(gj) == 1 && q.groupsOfOneDropped(s) {
				return true, "a row the LEFT JOIN adds is a group of one, which the HAVING COUNT(*) threshold drops"
			}
			if !q.fkSafe(gj[i].at, s) {
				return false, ""
			}
		}
		if changed {
			return true, "the join follows a NOT NULL foreign key to the joined table's primary key"
		}
	}
	return false, ""
}

// countOverOnlyKey reports whether every COUNT of the query, of one
// table, counts that table's single-column primary key.
func (q *query) countOverOnlyKey(s *sqlgym.Schema) (bool, string) {
	if s == nil {
		return false, ""
	}
	tb := q.singleTable(s)
	if tb == nil || len(tb.PrimaryKey) != 1 {
		return false, ""
	}
	for k := range q.toks {
		if !q.word(k, "count") || !q.punct(k+1, "(") {
			continue
		}
		a := k + 2
		if q.word(a, "distinct") {
			a++
		}
		if q.punct(a+1, ".") {
			a += 2
		}
		if a >= len(q.toks) || !q.punct(a+1, ")") || !strings.EqualFold(unquote(q.toks[a].Text), tb.PrimaryKey[0]) {
			return false, ""
		}
	}
	return true, "COUNT over the only table's primary key counts distinct values"
}

// outerLimitOne reports whether the statement's top level ends in LIMIT 1.
func (q *query) outerLimitOne() bool {
	for k := range q.toks {
		if q.toks[k].depth == 0 && q.word(k, "union", "intersect", "except") {
			return false
		}
	}
	for k := range q.toks {
		if q.toks[k].depth == 0 && q.word(k, "limit") && k+1 < len(q.toks) && q.toks[k+1].Text == "1" && k+2 == len(q.toks) {
			return true
		}
	}
	return false
}

type joinWord struct {
	at   int
	left bool
}

func (q *query) joinWords() []joinWord {
	var out []joinWord
	for k := range q.toks {
		if q.word(k, "join") {
			out = append(out, joinWord{k, q.word(k-1, "left") || q.word(k-1, "outer") && q.word(k-2, "left")})
		}
	}
	return out
}

// fkSafe reports whether the JOIN at token j joins a base table T by
// "X.fk = T.pk" (either way round) where X is a base table joined before
// it, or a subquery passing a base table's column through (derived), not
// on the null side of a LEFT JOIN, fk is NOT NULL and declared a
// foreign key to T, and pk is T's single-column primary key; and nothing
// but that equality is in the ON.
func (q *query) fkSafe(j int, s *sqlgym.Schema) bool {
	if j+1 >= len(q.toks) {
		return false
	}
	alias := map[string]*sqlgym.Table{}
	nullable := map[*sqlgym.Table]bool{}
	derived := map[string]derivedTable{}
	var joined *sqlgym.Table
	var joinedAlias string
	for i := 0; i <= j && i+1 < len(q.toks); i++ {
		if q.word(i, "right", "full") && q.toks[i].depth == q.toks[j].depth {
			return false // the tables before it may be NULL-extended
		}
		if !(q.word(i, "from", "join") || q.punct(i, ",") && q.toks[i].depth == q.toks[j].depth) || q.toks[i].depth != q.toks[j].depth {
			continue
		}
		n := i + 1
		if i != j && q.punct(n, "(") {
			if d, name, ok := q.derived(n, s); ok {
				d.nullable = q.word(i, "join") && (q.word(i-1, "left") || q.word(i-2, "left"))
				derived[name] = d
			}
			continue
		}
		tb := s.Table(unquote(q.toks[n].Text))
		if tb == nil || q.punct(n+1, ".") || q.punct(n+1, "(") {
			if i == j {
				return false
			}
			continue
		}
		name := strings.ToLower(tb.Name)
		a := n + 1
		if q.word(a, "as") {
			a++
		}
		if a < len(q.toks) && !reserved(q.toks[a].Text) && !q.punct(a, ",") {
			name = strings.ToLower(unquote(q.toks[a].Text))
		}
		alias[name] = tb
		if i == j {
			joined, joinedAlias = tb, name
		} else if q.word(i, "join") && (q.word(i-1, "left") || q.word(i-2, "left")) {
			nullable[tb] = true
		}
	}
	if joined == nil || len(joined.PrimaryKey) != 1 {
		return false
	}
	// ON a.x = b.y, exactly.
	on := -1
	for k := j + 1; k < len(q.toks) && k <= j+5; k++ {
		if q.word(k, "on") {
			on = k
			break
		}
	}
	t := q.toks
	if on < 0 || on+7 >= len(t) || !q.punct(on+2, ".") || !q.isOp(on+4, "=") || !q.punct(on+6, ".") {
		return false
	}
	if end := on + 8; end < len(t) && t[end].depth == t[on].depth && !q.word(end, "join", "inner", "left", "right",
		"full", "cross", "where", "group", "order", "limit", "union", "intersect", "except", "natural") && !q.punct(end, ")") {
		return false // more than the one equality
	}
	sides := [2][2]string{
		{strings.ToLower(unquote(t[on+1].Text)), unquote(t[on+3].Text)},
		{strings.ToLower(unquote(t[on+5].Text)), unquote(t[on+7].Text)},
	}
	for i := range sides {
		pkSide, fkSide := sides[i], sides[1-i]
		if pkSide[0] != joinedAlias || !strings.EqualFold(pkSide[1], joined.PrimaryKey[0]) {
			continue
		}
		child, childCol := alias[fkSide[0]], fkSide[1]
		if d, ok := derived[fkSide[0]]; ok && child == nil && !d.nullable {
			// A subquery passing the child's column through.
			child, childCol = d.table, d.cols[strings.ToLower(fkSide[1])]
		}
		if child == nil || child == joined || nullable[child] || fkSide[0] == joinedAlias {
			continue
		}
		col := column(child, childCol)
		if col == nil || !col.NotNull {
			continue
		}
		for _, fk := range child.ForeignKeys {
			if len(fk.Columns) == 1 && strings.EqualFold(fk.Columns[0], col.Name) && strings.EqualFold(fk.RefTable, joined.Name) &&
				len(fk.RefColumns) == 1 && strings.EqualFold(fk.RefColumns[0], joined.PrimaryKey[0]) {
				return true
			}
		}
	}
	return false
}

// groupsOfOneDropped reports whether the query, FROM one base table and
// one JOIN, groups by that table's single-column primary key and has a
// HAVING whose top-level AND chain holds COUNT(*) > n with n >= 1 or
// COUNT(*) >= n with n >= 2 (alone or beside other conditions).
func (q *query) groupsOfOneDropped(s *sqlgym.Schema) bool {
	var from *sqlgym.Table
	var fromName string
	group, having := -1, -1
	for k := range q.toks {
		if q.toks[k].depth != 0 {
			continue
		}
		switch {
		case q.word(k, "union", "intersect", "except"):
			return false
		case q.word(k, "from") && from == nil && k+1 < len(q.toks):
			from = s.Table(unquote(q.toks[k+1].Text))
			if from != nil {
				fromName = strings.ToLower(from.Name)
				a := k + 2
				if q.word(a, "as") {
					a++
				}
				if a < len(q.toks) && !reserved(q.toks[a].Text) {
					fromName = strings.ToLower(unquote(q.toks[a].Text))
				}
			}
		case q.word(k, "group") && q.word(k+1, "by"):
			group = k
		case q.word(k, "having"):
			having = k
		}
	}
	if from == nil || len(from.PrimaryKey) != 1 || group < 0 || having < 0 {
		return false
	}
	keyed := false
	for _, key := range q.split(group+2, q.clauseEnd(group+1, "having", "order", "limit", "window")) {
		n := key[1] - key[0]
		last := unquote(q.toks[key[1]-1].Text)
		if !strings.EqualFold(last, from.PrimaryKey[0]) {
			continue
		}
		if n == 1 || n == 3 && q.punct(key[0]+1, ".") && strings.EqualFold(unquote(q.toks[key[0]].Text), fromName) {
			keyed = true
		}
	}
	if !keyed {
		return false
	}
	// A conjunct of the HAVING's top-level AND chain that a group of one
	// row fails makes the whole HAVING false for it (false AND anything is
	// false, NULL included); an OR at the top could let it through.
	end := q.clauseEnd(having, "order", "limit", "window")
	starts, or := q.conjuncts(having, end)
	if or {
		return false
	}
	for i, h := range starts {
		stop := end
		if i+1 < len(starts) {
			stop = starts[i+1] - 1 // the AND
		}
		if q.dropsGroupsOfOne(h, stop) {
			return true
		}
	}
	return false
}

// dropsGroupsOfOne reports whether tokens [h, stop) are COUNT(*) > n with
// n >= 1 or COUNT(*) >= n with n >= 2: false on a group of one row.
func (q *query) dropsGroupsOfOne(h, stop int) bool {
	if stop-h != 6 || !q.word(h, "count") || !q.punct(h+1, "(") || q.toks[h+2].Text != "*" || !q.punct(h+3, ")") {
		return false
	}
	n, ok := parseInt(q.toks[h+5].Text)
	switch op := q.toks[h+4].Text; {
	case !ok:
		return false
	case op == ">":
		return n >= 1
	case op == ">=":
		return n >= 2
	}
	return false
}
