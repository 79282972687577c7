package screen

import (
	"strings"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/sqltext"
)

// source is one base table of a query's top-level FROM, with the name the
// query knows it by (its alias, else its own name), lower-cased.
type source struct {
	table *sqlgym.Table
	name  string
}

// topSources returns the base tables of the statement's top-level FROM,
// or false when a proof about its names would rest on a guess: a WITH
// (a CTE can shadow a table), a set operation, a derived table or table
// function in the FROM, a schema-qualified or unknown table. Tables named
// only inside subqueries are not sources: a top-level condition cannot
// see them.
func (q *query) topSources(s *sqlgym.Schema) ([]source, bool) {
	if s == nil || len(q.toks) == 0 || q.word(0, "with") || q.setOp() {
		return nil, false
	}
	from, end := q.topFrom()
	if from < 0 {
		return nil, false
	}
	var out []source
	for k := from; k < end; k++ {
		if q.toks[k].depth != 0 || !(k == from || q.word(k, "join") || q.punct(k, ",")) {
			continue
		}
		n := k + 1
		if n >= end || q.punct(n+1, ".") || q.punct(n+1, "(") ||
			q.toks[n].Kind != sqltext.Word && q.toks[n].Kind != sqltext.QuotedIdent {
			return nil, false // a derived table, a table function, schema.table
		}
		tb := s.Table(unquote(q.toks[n].Text))
		if tb == nil {
			return nil, false
		}
		name := strings.ToLower(tb.Name)
		a := n + 1
		if q.word(a, "as") {
			a++
		}
		if a < end && (q.toks[a].Kind == sqltext.QuotedIdent || q.toks[a].Kind == sqltext.Word && !reserved(q.toks[a].Text)) {
			name = strings.ToLower(unquote(q.toks[a].Text))
		}
		out = append(out, source{tb, name})
	}
	return out, len(out) > 0
}

// colAt resolves the column reference whose name is token k ("c" or
// "t.c") among the top-level sources: the qualifier must name one source,
// a bare name must belong to exactly one. It returns the source's index,
// the column, and the index of the reference's first token.
func (q *query) colAt(k int, srcs []source) (int, *sqlgym.Column, int, bool) {
	if k < 0 || k >= len(q.toks) || q.toks[k].Kind != sqltext.Word && q.toks[k].Kind != sqltext.QuotedIdent ||
		q.punct(k+1, ".") || q.punct(k+1, "(") {
		return 0, nil, 0, false
	}
	name := unquote(q.toks[k].Text)
	if q.punct(k-1, ".") {
		if k < 2 || q.punct(k-3, ".") {
			return 0, nil, 0, false
		}
		qual := strings.ToLower(unquote(q.toks[k-2].Text))
		found := -1
		for i, src := range srcs {
			if src.name == qual {
				if found >= 0 {
					return 0, nil, 0, false
				}
				found = i
			}
		}
		if found < 0 {
			return 0, nil, 0, false
		}
		c := srcs[found].table.Column(name)
		return found, c, k - 2, c != nil
	}
	found := -1
	var col *sqlgym.Column
	for i, src := range srcs {
		if c := src.table.Column(name); c != nil {
			if found >= 0 {
				return 0, nil, 0, false
			}
			found, col = i, c
		}
	}
	return found, col, k, found >= 0
}

// selectAliases returns the lower-cased names the top-level select list
// gives its items (and, harmlessly, a few more last words of items): a name that is also a column's could be read as
// either in GROUP BY, so proofs about that name refuse.
func (q *query) selectAliases() map[string]bool {
	out := map[string]bool{}
	for k := range q.toks {
		if q.toks[k].depth == 0 && q.word(k, "select") {
			// "x AS y" and "x y" both name an item y.
			for _, r := range q.split(k+1, q.clauseEnd(k, "from")) {
				last := r[1] - 1
				if last > r[0] && !q.punct(last-1, ".") &&
					(q.toks[last].Kind == sqltext.Word || q.toks[last].Kind == sqltext.QuotedIdent) {
					out[strings.ToLower(unquote(q.toks[last].Text))] = true
				}
			}
			break
		}
	}
	return out
}
