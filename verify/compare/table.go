package compare

import "github.com/sqlgym/sqlgym"

// absent marks a predicted cell whose key the gold never holds: such a
// cell can match nothing, whatever the column or row order.
const absent = ^uint32(0)

// idTable is a result with every cell replaced by the id of its key.
type idTable struct {
	rows, cols int
	ids        []uint32 // row-major
}

func (t *idTable) at(r, c int) uint32 { return t.ids[r*t.cols+c] }
func (t *idTable) row(r int) []uint32 { return t.ids[r*t.cols : (r+1)*t.cols] }

func cellAt(row []sqlgym.Value, c int) sqlgym.Value {
	if c < len(row) {
		return row[c]
	}
	return sqlgym.Null()
}

// internGold keys every gold cell and numbers the distinct keys.
func internGold(rs *sqlgym.ResultSet, key keyFunc) (map[string]uint32, idTable) {
	cols := rs.NumCols()
	t := idTable{rows: len(rs.Rows), cols: cols, ids: make([]uint32, len(rs.Rows)*cols)}
	dict := make(map[string]uint32)
	var buf []byte
	for r, row := range rs.Rows {
		for c := 0; c < cols; c++ {
			buf = key(buf[:0], cellAt(row, c))
			id, ok := dict[string(buf)]
			if !ok {
				id = uint32(len(dict))
				dict[string(buf)] = id
			}
			t.ids[r*cols+c] = id
		}
	}
	return dict, t
}

// lookupPred keys the predicted cells against the gold's dictionary
// without changing it (a prepared gold is shared by concurrent callers).
// It stops at the first absent key when stopEarly is set and reports
// whether every key was found.
func lookupPred(rs *sqlgym.ResultSet, key keyFunc, dict map[string]uint32, stopEarly bool) (idTable, bool) {
	cols := rs.NumCols()
	t := idTable{rows: len(rs.Rows), cols: cols, ids: make([]uint32, len(rs.Rows)*cols)}
	all := true
	var buf [64]byte
	b := buf[:0]
	for r, row := range rs.Rows {
		for c := 0; c < cols; c++ {
			b = key(b[:0], cellAt(row, c))
			id, ok := dict[string(b)]
			if !ok {
				if stopEarly {
					return t, false
				}
				all = false
				id = absent
			}
			t.ids[r*cols+c] = id
		}
	}
	return t, all
}

// mix64 is SplitMix64's finaliser: a cheap, well-spread 64-bit mix.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

const hashSeed = 0x243f6a8885a308d3

// combine extends a row hash by one more cell.
func combine(h uint64, id uint32) uint64 { return mix64(h ^ (uint64(id) + 0x9e3779b97f4a7c15)) }

// fingerprint folds one row hash into an order-free multiset sum.
func fingerprint(h uint64) uint64 { return mix64(h + 0x7f4a7c159e3779b9) }

// rowHash hashes row r of t read in column order ord.
func rowHash(t *idTable, r int, ord []int) uint64 {
	h := uint64(hashSeed)
	row := t.row(r)
	for _, c := range ord {
		h = combine(h, row[c])
	}
	return h
}

// bagIndex holds a table's distinct rows, projected along a column order,
// with their multiplicities, for exact multiset and set comparison.
type bagIndex struct {
	cols   int
	tuples []uint32 // distinct rows, cols ids each, in the projected order
	counts []int32
	head   map[uint64]int32 // row hash -> first distinct row with it
	next   []int32          // next distinct row with the same hash, or -1
}

func newBagIndex(t *idTable, ord []int) *bagIndex {
	b := &bagIndex{cols: len(ord), head: make(map[uint64]int32, t.rows)}
	tup := make([]uint32, len(ord))
	for r := 0; r < t.rows; r++ {
		row := t.row(r)
		for k, c := range ord {
			tup[k] = row[c]
		}
		h := rowHash(t, r, ord)
		if i := b.findTuple(h, tup); i >= 0 {
			b.counts[i]++
			continue
		}
		i := int32(len(b.counts))
		b.tuples = append(b.tuples, tup...)
		b.counts = append(b.counts, 1)
		first, ok := b.head[h]
		if !ok {
			first = -1
		}
		b.next = append(b.next, first)
		b.head[h] = i
	}
	return b
}

func (b *bagIndex) distinct() int { return len(b.counts) }

func (b *bagIndex) tuple(i int32) []uint32 {
	return b.tuples[int(i)*b.cols : (int(i)+1)*b.cols]
}

func (b *bagIndex) findTuple(h uint64, tup []uint32) int32 {
	i, ok := b.head[h]
	if !ok {
		return -1
	}
	for ; i >= 0; i = b.next[i] {
		if equalIDs(b.tuple(i), tup) {
			return i
		}
	}
	return -1
}

// find looks up row r of p read through sigma (sigma[k] is the column of
// p that stands for position k of the index).
func (b *bagIndex) find(h uint64, p *idTable, r int, sigma []int) int32 {
	i, ok := b.head[h]
	if !ok {
		return -1
	}
	row := p.row(r)
next:
	for ; i >= 0; i = b.next[i] {
		t := b.tuple(i)
		for k, c := range sigma {
			if t[k] != row[c] {
				continue next
			}
		}
		return i
	}
	return -1
}

// matchBag reports whether p read through sigma holds exactly the indexed
// rows with their multiplicities. hashes, when not nil, are p's row hashes
// through sigma, already computed.
func (b *bagIndex) matchBag(p *idTable, sigma []int, hashes []uint64) bool {
	counts := make([]int32, len(b.counts))
	copy(counts, b.counts)
	total := 0
	for _, n := range b.counts {
		total += int(n)
	}
	if p.rows != total {
		return false
	}
	for r := 0; r < p.rows; r++ {
		var h uint64
		if hashes != nil {
			h = hashes[r]
		} else {
			h = rowHash(p, r, sigma)
		}
		i := b.find(h, p, r, sigma)
		if i < 0 {
			return false
		}
		counts[i]--
		if counts[i] < 0 {
			return false
		}
	}
	return true
}

// matchSet reports whether p read through sigma holds exactly the indexed
// rows, ignoring multiplicities.
func (b *bagIndex) matchSet(p *idTable, sigma []int) bool {
	hit := make([]bool, len(b.counts))
	n := 0
	for r := 0; r < p.rows; r++ {
		i := b.find(rowHash(p, r, sigma), p, r, sigma)
		if i < 0 {
			return false
		}
		if !hit[i] {
			hit[i] = true
			n++
		}
	}
	return n == len(b.counts)
}

// dedupe returns t's distinct rows, in first-seen order.
func dedupe(t *idTable) idTable {
	b := newBagIndex(t, identity(t.cols))
	return idTable{rows: b.distinct(), cols: t.cols, ids: b.tuples}
}

func equalIDs(a, b []uint32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func identity(n int) []int {
	ord := make([]int, n)
	for i := range ord {
		ord[i] = i
	}
	return ord
}
