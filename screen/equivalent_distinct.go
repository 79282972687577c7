package screen

import (
	"strings"

	"github.com/sqlgym/sqlgym"
)

// distinctRowsProved proves DISTINCT added to or dropped from the outer
// SELECT equivalent when its rows cannot repeat: the query groups by the
// whole NOT NULL primary key of one of its FROM tables, or reads that
// table alone, and the select list holds, as a plain column, that key or
// a NOT NULL UNIQUE column of the same table. Each row (each group) is
// then one row of the table, and that column tells them apart. The
// schema's keys may be implied ones and its UNIQUE marks the names that
// never repeat in the data (constraints.Set.Apply, ApplyFacts), which the
// variants keep.
func distinctRowsProved(gold string, m Mutant, s *sqlgym.Schema) (bool, string) {
	if m.Effect != EffectDuplicates {
		return false, ""
	}
	q := analyse(gold)
	srcs, ok := q.topSources(s)
	if !ok {
		return false, ""
	}
	sel := -1
	for k := range q.toks {
		if q.toks[k].depth == 0 && q.word(k, "select") {
			sel = k
			break
		}
	}
	if sel < 0 {
		return false, ""
	}
	from := q.clauseEnd(sel, "from")
	start := sel + 1
	if q.word(start, "distinct", "all") {
		start++
	}
	aliases := q.selectAliases()
	groups := q.groupBys()
	var top [][2]int
	for _, g := range groups {
		if len(g) > 0 && q.toks[g[0][0]].depth == 0 {
			top = g
		}
	}
	for si, src := range srcs {
		tb := src.table
		if len(tb.PrimaryKey) == 0 {
			continue
		}
		// Each output row is one row of tb: grouped by its whole key, or
		// tb alone without grouping.
		one := len(srcs) == 1 && top == nil
		if top != nil {
			held := map[string]bool{}
			for _, key := range top {
				i, c, ok := q.keyColumn(key, srcs, aliases)
				if !ok {
					continue
				}
				if i == si {
					held[strings.ToLower(c.Name)] = true
				}
				// A key equal to one of tb's columns through an inner
				// join's ON holds that column too (GROUP BY
				// T1.stadium_id with T1.stadium_id = T2.stadium_id).
				for _, e := range q.onEqualities(srcs) {
					for _, pair := range [][2]colAt{{e[0], e[1]}, {e[1], e[0]}} {
						if pair[0].src == i && strings.EqualFold(pair[0].col.Name, c.Name) && pair[1].src == si {
							held[strings.ToLower(pair[1].col.Name)] = true
						}
					}
				}
			}
			one = true
			for _, p := range tb.PrimaryKey {
				if c := tb.Column(p); c == nil || !keyNotNull(s, tb, c) || !held[strings.ToLower(p)] {
					one = false
				}
			}
		}
		if !one {
			continue
		}
		for _, it := range q.split(start, from) {
			end := it[1]
			for k := it[0]; k < it[1]; k++ {
				if q.toks[k].depth == 0 && q.word(k, "as") {
					end = k
				}
			}
			i, c, first, ok := q.colAt(end-1, srcs)
			if !ok || first != it[0] || i != si || !keyNotNull(s, tb, c) && !c.NotNull {
				continue
			}
			if c.Unique || len(tb.PrimaryKey) == 1 && strings.EqualFold(tb.PrimaryKey[0], c.Name) {
				return true, "each row is one row of " + tb.Name + ", told apart by its " + c.Name
			}
		}
	}
	return false, ""
}

// keyNotNull reports whether a key column can hold no NULL: declared NOT
// NULL, or SQLite's INTEGER PRIMARY KEY, which is the rowid.
func keyNotNull(s *sqlgym.Schema, tb *sqlgym.Table, c *sqlgym.Column) bool {
	if c.NotNull {
		return true
	}
	return s.Dialect == sqlgym.DialectSQLite && len(tb.PrimaryKey) == 1 && strings.EqualFold(tb.PrimaryKey[0], c.Name) &&
		strings.EqualFold(strings.TrimSpace(c.Type), "INTEGER")
}

// colAt is a resolved column reference: its source and column.
type colAt struct {
	src int
	col *sqlgym.Column
}

// onEqualities returns the column equalities "a = b" of the top-level
// FROM's ON conditions, each between two sources, when every join there
// is an inner one (an outer join may leave one side NULL); none
// otherwise.
func (q *query) onEqualities(srcs []source) [][2]colAt {
	from, end := q.topFrom()
	if from < 0 {
		return nil
	}
	for k := from; k < end; k++ {
		if q.toks[k].depth == 0 && q.word(k, "left", "right", "full", "outer", "cross", "natural") {
			return nil
		}
	}
	var out [][2]colAt
	for k := from; k < end; k++ {
		if q.toks[k].depth != 0 || q.toks[k].Text != "=" {
			continue
		}
		// "a.x = b.y" with nothing else around it in the condition.
		if k < 3 || k+3 >= len(q.toks) || !q.punct(k-2, ".") || !q.punct(k+2, ".") {
			continue
		}
		if !q.word(k-4, "on", "and") || k+4 < end && !q.word(k+4, "and", "join", "inner") {
			continue
		}
		ai, ac, _, aok := q.colAt(k-1, srcs)
		bi, bc, _, bok := q.colAt(k+3, srcs)
		if aok && bok && ai != bi {
			out = append(out, [2]colAt{{ai, ac}, {bi, bc}})
		}
	}
	return out
}
