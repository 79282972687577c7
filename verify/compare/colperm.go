package compare

import "sort"

// permPlan is a gold table prepared for "is there a column order of the
// prediction under which the rows match?".
//
// Enumerating n! orders is hopeless for wide results, so each column gets
// an order-free signature (a sum of mixed ids: equal multisets of values
// give equal signatures). A gold column can only be matched by a predicted
// column with the same signature, which fixes most columns outright; the
// search backtracks only among columns whose signatures tie, pruning a
// branch as soon as the multiset of partial rows over the columns chosen
// so far differs from the gold's, and never trying two predicted columns
// that hold the very same vector in both orders. A candidate order is
// always verified exactly against the gold's rows, so signature collisions
// can cost time but never a wrong verdict.
type permPlan struct {
	gold   *idTable
	ord    []int    // gold columns in search order: fixed ones first, ties grouped
	sig    []uint64 // signature of each ord position
	nfixed int      // leading ord positions whose signature no other gold column has
	groups map[uint64]int
	goldF  []uint64 // goldF[k]: fingerprint of gold rows projected on ord[:k]
	bag    *bagIndex
	colVec []uint64 // ordered hash of each gold column (by gold index), for GoldOrdered
}

func columnSignature(t *idTable, c int) uint64 {
	var s uint64
	for r := 0; r < t.rows; r++ {
		s += mix64(uint64(t.at(r, c)) + 0x632be59bd9b4e019)
	}
	return s
}

func columnVector(t *idTable, c int) uint64 {
	h := uint64(hashSeed)
	for r := 0; r < t.rows; r++ {
		h = combine(h, t.at(r, c))
	}
	return h
}

func newPermPlan(g *idTable) *permPlan {
	pl := &permPlan{gold: g, groups: map[uint64]int{}}
	sigs := make([]uint64, g.cols)
	for c := range sigs {
		sigs[c] = columnSignature(g, c)
		pl.groups[sigs[c]]++
	}
	var fixed, tied []int
	for c := range sigs {
		if pl.groups[sigs[c]] == 1 {
			fixed = append(fixed, c)
		} else {
			tied = append(tied, c)
		}
	}
	// Keep each tie group contiguous, groups in order of first column.
	first := map[uint64]int{}
	for _, c := range tied {
		if _, ok := first[sigs[c]]; !ok {
			first[sigs[c]] = c
		}
	}
	sort.SliceStable(tied, func(i, j int) bool { return first[sigs[tied[i]]] < first[sigs[tied[j]]] })
	pl.ord = append(fixed, tied...)
	pl.nfixed = len(fixed)
	pl.sig = make([]uint64, g.cols)
	for k, c := range pl.ord {
		pl.sig[k] = sigs[c]
	}
	pl.goldF = make([]uint64, g.cols+1)
	h := make([]uint64, g.rows)
	for r := range h {
		h[r] = hashSeed
		pl.goldF[0] += fingerprint(h[r])
	}
	for k, c := range pl.ord {
		var f uint64
		for r := range h {
			h[r] = combine(h[r], g.at(r, c))
			f += fingerprint(h[r])
		}
		pl.goldF[k+1] = f
	}
	pl.bag = newBagIndex(g, pl.ord)
	pl.colVec = make([]uint64, g.cols)
	for c := range pl.colVec {
		pl.colVec[c] = columnVector(g, c)
	}
	return pl
}

// matchUnordered reports whether some column order of p makes its rows the
// same multiset as the gold's.
func (pl *permPlan) matchUnordered(p *idTable) bool {
	ok, _ := pl.searchUnordered(p)
	return ok
}

// searchUnordered is matchUnordered that also reports how many partial
// column assignments the search tried (0 when signatures decided alone).
func (pl *permPlan) searchUnordered(p *idTable) (bool, int) {
	cols := pl.gold.cols
	if p.cols != cols || p.rows != pl.gold.rows {
		return false, 0
	}
	bySig := make(map[uint64][]int, cols)
	for c := 0; c < cols; c++ {
		s := columnSignature(p, c)
		bySig[s] = append(bySig[s], c)
	}
	if len(bySig) != len(pl.groups) {
		return false, 0
	}
	for s, n := range pl.groups {
		if len(bySig[s]) != n {
			return false, 0
		}
	}
	sigma := make([]int, cols)
	for k := 0; k < pl.nfixed; k++ {
		sigma[k] = bySig[pl.sig[k]][0]
	}
	if pl.nfixed == cols {
		return pl.bag.matchBag(p, sigma, nil), 0
	}
	prefix := make([]uint64, p.rows)
	var f uint64
	for r := range prefix {
		h := uint64(hashSeed)
		row := p.row(r)
		for k := 0; k < pl.nfixed; k++ {
			h = combine(h, row[sigma[k]])
		}
		prefix[r] = h
		f += fingerprint(h)
	}
	if f != pl.goldF[pl.nfixed] {
		return false, 0
	}
	s := &permSearch{pl: pl, p: p, sigma: sigma, used: make([]bool, cols), bySig: bySig}
	s.twin = twins(p, bySig)
	s.levels = make([][]uint64, cols-pl.nfixed)
	for i := range s.levels {
		s.levels[i] = make([]uint64, p.rows)
	}
	ok := s.dfs(pl.nfixed, prefix)
	return ok, s.nodes
}

type permSearch struct {
	pl     *permPlan
	p      *idTable
	sigma  []int
	used   []bool
	bySig  map[uint64][]int
	twin   []int // twin[c]: the previous predicted column holding c's exact vector, or -1
	levels [][]uint64
	nodes  int
}

func (s *permSearch) dfs(k int, prev []uint64) bool {
	pl := s.pl
	if k == pl.gold.cols {
		return pl.bag.matchBag(s.p, s.sigma, prev)
	}
	cur := s.levels[k-pl.nfixed]
	for _, c := range s.bySig[pl.sig[k]] {
		// Identical predicted columns are interchangeable: use them in
		// index order only.
		if s.used[c] || (s.twin[c] >= 0 && !s.used[s.twin[c]]) {
			continue
		}
		s.nodes++
		var f uint64
		for r := range cur {
			cur[r] = combine(prev[r], s.p.at(r, c))
			f += fingerprint(cur[r])
		}
		if f != pl.goldF[k+1] {
			continue
		}
		s.used[c], s.sigma[k] = true, c
		if s.dfs(k+1, cur) {
			return true
		}
		s.used[c] = false
	}
	return false
}

// twins links each predicted column in a tie group to the previous column
// of the group holding exactly the same vector.
func twins(p *idTable, bySig map[uint64][]int) []int {
	tw := make([]int, p.cols)
	for i := range tw {
		tw[i] = -1
	}
	for _, cs := range bySig {
		if len(cs) < 2 {
			continue
		}
		vec := make([]uint64, len(cs))
		for i, c := range cs {
			vec[i] = columnVector(p, c)
		}
		for i := 1; i < len(cs); i++ {
			for j := i - 1; j >= 0; j-- {
				if vec[j] == vec[i] && sameColumn(p, p, cs[j], cs[i]) {
					tw[cs[i]] = cs[j]
					break
				}
			}
		}
	}
	return tw
}

func sameColumn(a, b *idTable, ca, cb int) bool {
	for r := 0; r < a.rows; r++ {
		if a.at(r, ca) != b.at(r, cb) {
			return false
		}
	}
	return true
}

// matchOrdered reports whether some column order of p makes it equal to
// the gold row by row. With row order fixed every gold column must equal a
// predicted column as a vector, and equal vectors are interchangeable, so
// a greedy assignment decides it without search.
func (pl *permPlan) matchOrdered(p *idTable) bool {
	g := pl.gold
	if p.cols != g.cols || p.rows != g.rows {
		return false
	}
	vec := make([]uint64, p.cols)
	for c := range vec {
		vec[c] = columnVector(p, c)
	}
	used := make([]bool, p.cols)
	for gc := 0; gc < g.cols; gc++ {
		found := false
		for pc := 0; pc < p.cols; pc++ {
			if !used[pc] && vec[pc] == pl.colVec[gc] && sameColumn(g, p, gc, pc) {
				used[pc], found = true, true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// matchIdentity compares p with the gold in the gold's own column order:
// row by row when ordered, as multisets otherwise.
func matchIdentity(g *idTable, bag *bagIndex, p *idTable, ordered bool) bool {
	if p.cols != g.cols || p.rows != g.rows {
		return false
	}
	if ordered {
		return equalIDs(g.ids, p.ids)
	}
	return bag.matchBag(p, identity(p.cols), nil)
}
