package compare

import (
	"bytes"

	"github.com/sqlgym/sqlgym"
)

// Spider test-suite's result_eq, reproduced:
//
//  1. both results empty: equal, whatever the columns;
//  2. different row counts, then different column counts: not equal;
//  3. quick reject: sort the cells of every row by str(x)+str(type(x)) and
//     compare the sorted rows, as a list when order matters, as a set
//     otherwise. This is where (2, 2.5) and (2.0, 2.5) part: '2<class..'
//     sorts after '2.5<class..' but '2.0<class..' before it;
//  4. look for a column permutation under which the rows are equal as a
//     list (order matters) or as a bag.
//
// Step 4's sampling of 20 rows in the original only prunes permutations
// that cannot work, so it never changes the answer; the column search here
// reaches the same answer without enumerating permutations.

type tsGold struct {
	unordered *idTable  // each gold row's ids with its cells sorted by the quick-reject key
	set       *bagIndex // the distinct sorted rows
}

func newTSGold(gold *sqlgym.ResultSet, ids *idTable) *tsGold {
	u := sortedRows(gold, ids)
	return &tsGold{unordered: &u, set: newBagIndex(&u, identity(u.cols))}
}

// sortedRows reorders each row's ids by its cells' str(x)+str(type(x)).
// Python's sort is stable, and so is this one; cells with equal keys are
// equal values anyway.
func sortedRows(rs *sqlgym.ResultSet, ids *idTable) idTable {
	out := idTable{rows: ids.rows, cols: ids.cols, ids: make([]uint32, len(ids.ids))}
	var arena []byte
	offs := make([]int, ids.cols+1)
	perm := make([]int, ids.cols)
	for r := 0; r < ids.rows; r++ {
		arena = arena[:0]
		row := rs.Rows[r]
		for c := 0; c < ids.cols; c++ {
			offs[c] = len(arena)
			arena = appendPySortKey(arena, cellAt(row, c))
			perm[c] = c
		}
		offs[ids.cols] = len(arena)
		// Rows are narrow: a stable insertion sort, no allocation.
		for i := 1; i < len(perm); i++ {
			for j := i; j > 0; j-- {
				a, b := perm[j-1], perm[j]
				if bytes.Compare(arena[offs[b]:offs[b+1]], arena[offs[a]:offs[a+1]]) >= 0 {
					break
				}
				perm[j-1], perm[j] = b, a
			}
		}
		src, dst := ids.row(r), out.row(r)
		for k, c := range perm {
			dst[k] = src[c]
		}
	}
	return out
}

func (g *Gold) compareTestSuite(pred *sqlgym.ResultSet) Verdict {
	pr := len(pred.Rows)
	if pred.Capped {
		return miss(WhyRowCount)
	}
	if pr == 0 && g.rows == 0 {
		return matched
	}
	if pred.NumCols() != g.cols {
		return miss(WhyColumnCount)
	}
	if pr != g.rows {
		return miss(WhyRowCount)
	}
	p, ok := lookupPred(pred, g.key, g.dict, true)
	if !ok {
		return miss(WhyValues)
	}
	pu := sortedRows(pred, &p)
	ordered := g.ordered
	if g.tsEqual(&p, &pu, ordered) {
		return matched
	}
	if ordered && g.tsEqual(&p, &pu, false) {
		return miss(WhyOrder)
	}
	return miss(g.explainBag(&p, true))
}

func (g *Gold) tsEqual(p, pu *idTable, ordered bool) bool {
	if ordered {
		if !equalIDs(g.ts.unordered.ids, pu.ids) {
			return false
		}
		return g.plan.matchOrdered(p)
	}
	if !g.ts.set.matchSet(pu, identity(pu.cols)) {
		return false
	}
	return g.plan.matchUnordered(p)
}
