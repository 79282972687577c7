package screen

import (
	"github.com/sqlgym/sqlgym"
)

// oneRowGroupsProved proves SUM against AVG, and MIN against MAX,
// equivalent when every group the aggregate sees is at most one row: every
// top-level FROM table is pinned by the GROUP BY keys, literals and the
// equalities between them (pinned). Over one value all four agree (NULL
// over none), as numbers. defog advising's SELECT course_id,
// SUM(num_enrolled) FROM course GROUP BY course_id is one.
func oneRowGroupsProved(gold string, m Mutant, s *sqlgym.Schema) (bool, string) {
	q := analyse(gold)
	srcs, ok := q.topSources(s)
	if !ok {
		return false, ""
	}
	at := 0
	for at < len(gold) && at < len(m.SQL) && gold[at] == m.SQL[at] {
		at++
	}
	k := -1
	for i := range q.toks {
		if q.toks[i].Pos <= at && at < q.toks[i].End() {
			k = i
		}
	}
	if k < 0 || q.toks[k].depth != 0 || !q.word(k, "sum", "avg", "min", "max") || !q.punct(k+1, "(") ||
		q.word(q.closing(k+1)+1, "over") {
		return false, ""
	}
	if !q.pinned(s, srcs, nil) {
		return false, ""
	}
	return true, "every group is at most one row of each table (their keys are fixed in the group): SUM, AVG, MIN and MAX agree on it"
}
