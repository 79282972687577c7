package variants

import (
	"fmt"
	"strings"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/sqltext"
)

// The edits here change which rows of two tables a gold matches with each
// other: an orphan row (its partner deleted), a row whose every partner
// is gone (a parent with no children), a partner added to a row that has
// none, and a group of matched rows pushed across a HAVING threshold.
// They tell INNER from LEFT JOIN where no key links the two tables, NOT
// IN over the wrong column, and HAVING COUNT(*) > n from >= n over a
// join, which the edits of one table's rows never do. They delete rows or
// copy them with values the data already holds, so every value keeps its
// column's type and form; a deletion that would orphan the children of a
// declared or implied foreign key is refused by the engine or the guards
// (guard.go), so an orphan appears only where no key forbids it.

// link is one equality between a column of one table and a column of
// another that a gold matches rows by: ON a.x = b.y, a comma join's
// WHERE a.x = b.y, or x [NOT] IN (SELECT y FROM b ...).
type link struct {
	a, ac string // table and column of one side
	b, bc string // and of the other
}

// goldLinks returns the equalities between two tables' columns in gold,
// resolved through its aliases against the schema; each once.
func goldLinks(gold string, s *sqlgym.Schema) []link {
	var toks []sqltext.Token
	for _, t := range sqltext.Tokens(gold) {
		if t.Significant() {
			toks = append(toks, t)
		}
	}
	name := func(t sqltext.Token) string { return strings.ToLower(strings.Trim(t.Text, "\"`[]")) }
	word := func(i int) bool {
		return i < len(toks) && (toks[i].Kind == sqltext.Word || toks[i].Kind == sqltext.QuotedIdent)
	}
	// Aliases: a table named after FROM, JOIN or a comma, and the word
	// after it (AS optional) when that word is not a keyword.
	alias := map[string]*sqlgym.Table{}
	var order []*sqlgym.Table
	for i := 0; i+1 < len(toks); i++ {
		if !toks[i].IsWord("from") && !toks[i].IsWord("join") && !toks[i].IsPunct(",") {
			continue
		}
		if !word(i + 1) {
			continue
		}
		t := s.Table(name(toks[i+1]))
		if t == nil {
			continue
		}
		alias[strings.ToLower(t.Name)] = t
		order = append(order, t)
		k := i + 2
		if k < len(toks) && toks[k].IsWord("as") {
			k++
		}
		if word(k) && !aliasStop[name(toks[k])] {
			alias[name(toks[k])] = t
		}
	}
	// col resolves [q .] c at i: its table and column, and the index after.
	col := func(i int) (*sqlgym.Table, string, int) {
		if !word(i) {
			return nil, "", i
		}
		if i+2 < len(toks) && toks[i+1].IsPunct(".") && word(i+2) {
			t := alias[name(toks[i])]
			if t == nil || t.Column(name(toks[i+2])) == nil {
				return nil, "", i + 3
			}
			return t, t.Column(name(toks[i+2])).Name, i + 3
		}
		// A bare column: the one table of the gold that has it.
		var found *sqlgym.Table
		for _, t := range order {
			if t.Column(name(toks[i])) != nil {
				if found != nil && found != t {
					return nil, "", i + 1
				}
				found = t
			}
		}
		if found == nil {
			return nil, "", i + 1
		}
		return found, found.Column(name(toks[i])).Name, i + 1
	}
	seen := map[link]bool{}
	var out []link
	add := func(ta *sqlgym.Table, ca string, tb *sqlgym.Table, cb string) {
		if ta == nil || tb == nil || strings.EqualFold(ta.Name, tb.Name) {
			return
		}
		l := link{a: ta.Name, ac: ca, b: tb.Name, bc: cb}
		if !seen[l] {
			seen[l] = true
			out = append(out, l)
		}
	}
	for i := 0; i < len(toks); i++ {
		ta, ca, j := col(i)
		if ta == nil {
			continue
		}
		i = j - 1 // a qualified column's own name is not read again
		switch {
		case j < len(toks) && toks[j].Text == "=" && toks[j].Kind == sqltext.Operator:
			// Only column = column (a literal is the boundary edits'
			// job), never a function's result.
			if tb, cb, e := col(j + 1); tb != nil && (e >= len(toks) || !toks[e].IsPunct("(")) {
				add(ta, ca, tb, cb)
			}
		case j+3 < len(toks) && (toks[j].IsWord("in") || toks[j].IsWord("not") && toks[j+1].IsWord("in")):
			k := j + 1
			if toks[j].IsWord("not") {
				k++
			}
			if !toks[k].IsPunct("(") || k+1 >= len(toks) || !toks[k+1].IsWord("select") {
				continue
			}
			k += 2
			if k < len(toks) && toks[k].IsWord("distinct") {
				k++
			}
			// The subquery's one selected column, resolved against the
			// table after its FROM.
			if k+2 < len(toks) && toks[k+1].IsPunct(".") {
				k += 2
			}
			if k+2 >= len(toks) || !toks[k+1].IsWord("from") || !word(k+2) {
				continue
			}
			tb := s.Table(name(toks[k+2]))
			if tb == nil || tb.Column(name(toks[k])) == nil {
				continue
			}
			add(ta, ca, tb, tb.Column(name(toks[k])).Name)
		}
	}
	return out
}

// aliasStop is the words that may follow a table name without being its
// alias.
var aliasStop = map[string]bool{
	"join": true, "inner": true, "left": true, "right": true, "full": true, "cross": true, "natural": true,
	"outer": true, "on": true, "using": true, "where": true, "group": true, "order": true, "limit": true,
	"having": true, "union": true, "except": true, "intersect": true, "as": true, "window": true,
}

// joinEdits writes, for every link of gold in both directions, four
// families: the rows of one side that hold one of the values the two
// sides share deleted (the other side's rows holding it lose every
// partner: an orphan child, a parent with no children), or all of them
// (no row matches at all); the same rows
// moved to another shared value; a row copied with a value of the other
// side it lacks (a partner for a row that had none); and, when the gold
// has a HAVING COUNT threshold, one side's group of a shared value grown
// or shrunk to the threshold and one either side. Apart, since one
// family's edits undo another's (a moved row is no longer orphaned).
func (p *planner) joinEdits(gold string) [][]group {
	fams := make([][]group, 4)
	for _, l := range goldLinks(gold, p.schema) {
		for _, d := range []link{l, {a: l.b, ac: l.bc, b: l.a, bc: l.ac}} {
			a, b := p.schema.Table(d.a), p.schema.Table(d.b)
			if a == nil || b == nil || a.Rows == 0 || b.Rows == 0 {
				continue
			}
			ta, ca, tb, cb := quoteIdent(a.Name), quoteIdent(d.ac), quoteIdent(b.Name), quoteIdent(d.bc)
			shared := fmt.Sprintf("%s IN (SELECT %s FROM %s)", ca, cb, tb)
			// The shared values held by the fewest rows first, so a
			// deletion takes as little as it can.
			for k := range 3 {
				v := fmt.Sprintf("(SELECT %s FROM %s WHERE %s GROUP BY %s ORDER BY COUNT(*), %s LIMIT 1 OFFSET %d)", ca, ta, shared, ca, ca, k)
				fams[0] = append(fams[0], group{what: fmt.Sprintf("unmatch %s.%s from %s.%s", a.Name, d.ac, b.Name, d.bc),
					stmts: []string{fmt.Sprintf("DELETE FROM %s WHERE %s = %s", ta, ca, v)}})
				// The same rows kept, moved to the shared value most rows
				// hold: the value leaves this column and stays in the
				// row's others (NOT IN over another column of the row),
				// and rows a deletion would orphan stay.
				if p.shares(a, d.ac) {
					w := fmt.Sprintf("(SELECT %s FROM %s WHERE %s AND %s <> %s GROUP BY %s ORDER BY COUNT(*) DESC, %s LIMIT 1)", ca, ta, shared, ca, v, ca, ca)
					fams[1] = append(fams[1], group{what: fmt.Sprintf("rematch %s.%s from %s.%s", a.Name, d.ac, b.Name, d.bc),
						stmts: []string{fmt.Sprintf("UPDATE %s SET %s = %s WHERE %s = %s", ta, ca, w, ca, v)}})
				}
			}
			// Every row of a that has a partner deleted: the inner join is
			// empty where a LEFT JOIN keeps b's rows, which tells them apart
			// under ORDER BY a.x DESC LIMIT n (an unmatched row sorts last
			// and only shows when fewer than n rows match). A deletion
			// that would orphan a key's children is refused as above.
			fams[0] = append(fams[0], group{what: fmt.Sprintf("unmatch every %s.%s from %s.%s", a.Name, d.ac, b.Name, d.bc),
				stmts: []string{fmt.Sprintf("DELETE FROM %s WHERE %s", ta, shared)}})
			// The shared value most rows of a hold set to NULL where a NULL
			// may go (nullable: the column holds one, or is a declared
			// foreign key that may be NULL): the largest group loses its
			// partner and stays whole, so a LEFT JOIN grouped by a's column
			// and ordered by COUNT(*) DESC puts its NULL group first.
			if col := column(a, d.ac); col != nil && p.nullable(a, col) {
				top := fmt.Sprintf("(SELECT %s FROM %s WHERE %s GROUP BY %s ORDER BY COUNT(*) DESC, %s LIMIT 1)", ca, ta, shared, ca, ca)
				fams[0] = append(fams[0], group{what: fmt.Sprintf("detach the largest %s.%s group from %s.%s", a.Name, d.ac, b.Name, d.bc),
					stmts: []string{fmt.Sprintf("UPDATE %s SET %s = NULL WHERE %s = %s", ta, ca, ca, top)}})
			}
			// A copy of a row of a with a value of b's column that no row
			// of a holds: a row of b that had no partner gets one.
			lacking := fmt.Sprintf("(SELECT %s FROM %s WHERE %s IS NOT NULL AND %s NOT IN (SELECT %s FROM %s WHERE %s IS NOT NULL) ORDER BY %s LIMIT 1)",
				cb, tb, cb, cb, ca, ta, ca, cb)
			fams[2] = append(fams[2], group{what: fmt.Sprintf("match %s.%s to an unmatched %s.%s", a.Name, d.ac, b.Name, d.bc),
				stmts: []string{p.copyRows(a, "", p.rng.IntN(3), 1, map[string]string{strings.ToLower(d.ac): lacking})}})
			if p.shares(a, d.ac) {
				fams[3] = append(fams[3], p.joinResizes(a, d.ac, shared)...)
			}
		}
	}
	return fams
}

// joinResizes brings a's group of one shared value of column c to each
// HAVING COUNT threshold of the gold and one either side: grown by copies
// of one of its rows (c kept, keys new), shrunk by deleting its last rows.
// The group chosen is the one nearest the size. Counted in a alone: over
// a join to a parent by its key, that is the joined group's size.
func (p *planner) joinResizes(a *sqlgym.Table, c, shared string) []group {
	var gs []group
	ta, ca := quoteIdent(a.Name), quoteIdent(c)
	done := map[int64]bool{}
	for _, th := range p.ths {
		for _, n := range []int64{th.N, th.N + 1, th.N - 1} {
			if n <= 0 || n > 500 || done[n] {
				continue
			}
			done[n] = true
			below := fmt.Sprintf("(SELECT %s FROM %s WHERE %s GROUP BY %s HAVING COUNT(*) < %d ORDER BY COUNT(*) DESC, %s LIMIT 1)", ca, ta, shared, ca, n, ca)
			above := fmt.Sprintf("(SELECT %s FROM %s WHERE %s GROUP BY %s HAVING COUNT(*) > %d ORDER BY COUNT(*), %s LIMIT 1)", ca, ta, shared, ca, n, ca)
			missing := fmt.Sprintf("(%d - (SELECT COUNT(*) FROM %s WHERE %s = %s))", n, ta, ca, below)
			extra := fmt.Sprintf("((SELECT COUNT(*) FROM %s WHERE %s = %s) - %d)", ta, ca, above, n)
			gs = append(gs, group{what: fmt.Sprintf("grow a joined %s.%s group to %d", a.Name, c, n), rank: n,
				stmts: []string{p.copyCount(a, fmt.Sprintf("%s = %s", ca, below), missing, map[string]string{strings.ToLower(c): "src." + ca})}})
			gs = append(gs, group{what: fmt.Sprintf("shrink a joined %s.%s group to %d", a.Name, c, n), rank: n,
				stmts: []string{fmt.Sprintf("DELETE FROM %s WHERE %s IN (SELECT %s FROM %s WHERE %s = %s ORDER BY %s DESC LIMIT %s)",
					ta, p.rowid(), p.rowid(), ta, ca, above, p.rowid(), extra)}})
		}
	}
	return gs
}

// shares reports whether an edit may give two rows of t the same value
// of column c (a row moved to another's value, a group grown by copies):
// only where the data already shows a repeated value, so that a column
// one-to-one in the data (poker_player.people_id) stays so, implied key
// or not.
func (p *planner) shares(t *sqlgym.Table, c string) bool {
	return p.cons == nil || p.unseen || p.cons.Facts(t.Name, c).Duplicates
}
