package compare

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/sqlgym/sqlgym"
)

// bruteMatch is the obvious definition: try every column permutation and
// compare the rows sorted (bag) or in place (ordered).
func bruteMatch(pred, gold [][]int64, cols int, ordered bool) bool {
	if len(pred) != len(gold) {
		return false
	}
	perm := make([]int, cols)
	for i := range perm {
		perm[i] = i
	}
	goldRows := rowsKey(gold, identity(cols), !ordered)
	for {
		if slices.Equal(rowsKey(pred, perm, !ordered), goldRows) {
			return true
		}
		if !nextPerm(perm) {
			return false
		}
	}
}

func rowsKey(rows [][]int64, perm []int, sortRows bool) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		b := make([]byte, 0, len(perm)*2)
		for _, c := range perm {
			b = append(b, byte(r[c]), ',')
		}
		out[i] = string(b)
	}
	if sortRows {
		slices.Sort(out)
	}
	return out
}

func nextPerm(p []int) bool {
	i := len(p) - 2
	for i >= 0 && p[i] >= p[i+1] {
		i--
	}
	if i < 0 {
		return false
	}
	j := len(p) - 1
	for p[j] <= p[i] {
		j--
	}
	p[i], p[j] = p[j], p[i]
	slices.Reverse(p[i+1:])
	return true
}

func intRes(rows [][]int64, cols int) *sqlgym.ResultSet {
	r := res(cols)
	for _, in := range rows {
		out := make([]sqlgym.Value, cols)
		for c, x := range in {
			out[c] = I(x)
		}
		r.Rows = append(r.Rows, out)
	}
	return r
}

// Small tables over a 3-letter alphabet are full of tied columns, the
// hard case for the signature search; compare it with brute force.
func TestColumnSearchAgainstBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	matches := 0
	for trial := 0; trial < 4000; trial++ {
		cols := 1 + rng.IntN(5)
		rows := rng.IntN(7)
		gold := make([][]int64, rows)
		for r := range gold {
			gold[r] = make([]int64, cols)
			for c := range gold[r] {
				gold[r][c] = int64(rng.IntN(3))
			}
		}
		pred := permuteTable(rng, gold, cols)
		switch rng.IntN(3) {
		case 1: // swap two cells of one column: column multisets stay equal
			if rows >= 2 {
				c, a, b := rng.IntN(cols), rng.IntN(rows), rng.IntN(rows)
				pred[a][c], pred[b][c] = pred[b][c], pred[a][c]
			}
		case 2:
			if rows >= 1 {
				pred[rng.IntN(rows)][rng.IntN(cols)] = int64(rng.IntN(3))
			}
		}
		for _, ordered := range []bool{false, true} {
			want := bruteMatch(pred, gold, cols, ordered)
			for _, m := range []Mode{Multiset, TestSuite} {
				got := Compare(m, intRes(pred, cols), intRes(gold, cols), Options{GoldOrdered: ordered})
				if rows == 0 {
					want = true
				}
				if got.Match != want {
					t.Fatalf("trial %d %s ordered=%v: got %+v, brute force %v\npred %v\ngold %v", trial, m, ordered, got, want, pred, gold)
				}
				if want {
					matches++
				}
			}
		}
	}
	if matches < 1000 {
		t.Fatalf("only %d matching cases: the generator is not exercising matches", matches)
	}
}

// permuteTable shuffles the rows and the columns of a copy of t.
func permuteTable(rng *rand.Rand, t [][]int64, cols int) [][]int64 {
	perm := rng.Perm(cols)
	out := make([][]int64, len(t))
	for i, r := range rng.Perm(len(t)) {
		out[i] = make([]int64, cols)
		for c := range perm {
			out[i][c] = t[r][perm[c]]
		}
	}
	return out
}

// A 12-column result with four identical columns, two more identical
// ones, and three columns holding the same values in different orders:
// 12! orders, but the search must settle it in a handful of steps.
func TestWideTableSearch(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	const rows, cols = 306, 12 // 306 = 18*17: the three rotated columns tie
	t.Logf("%d rows x %d columns", rows, cols)
	gold := make([][]int64, rows)
	for r := range gold {
		a, b := int64(rng.IntN(5)), int64(rng.IntN(50))
		v := int64(r % 17)
		gold[r] = []int64{
			a, a, a, a, // identical
			b, b, // identical
			v, int64((r + 5) % 17), int64((r + 11) % 17), // same multiset, different vectors
			int64(r), int64(rng.IntN(1000)), int64(rng.IntN(3)),
		}
	}
	g := Prepare(Multiset, intRes(gold, cols), Options{})
	plan := g.plan
	// Ties: the four a's, the two b's, the three rotations (and the last
	// column may tie with nothing): at most 3 columns fixed by signature.
	if plan.nfixed > 3 {
		t.Fatalf("the test table should have 9 tied columns; %d of %d fixed", plan.nfixed, cols)
	}

	pred := permuteTable(rng, gold, cols)
	ok, nodes := plan.searchUnordered(predIDs(t, g, pred, cols))
	if !ok {
		t.Fatalf("a permuted copy does not match")
	}
	t.Logf("permuted copy: matched in %d search steps", nodes)
	if nodes > 50 {
		t.Fatalf("search took %d steps for a permuted copy; symmetry and pruning should keep it tiny", nodes)
	}

	// Swap two cells of a tied column between rows: every column keeps its
	// multiset of values, so only the row check can reject it.
	bad := permuteTable(rng, gold, cols)
	var c int
	for c = 0; c < cols; c++ {
		if bad[0][c] != bad[1][c] {
			break
		}
	}
	bad[0][c], bad[1][c] = bad[1][c], bad[0][c]
	ok, nodes = plan.searchUnordered(predIDs(t, g, bad, cols))
	if ok {
		t.Fatalf("a corrupted copy matched")
	}
	t.Logf("corrupted copy: rejected in %d search steps", nodes)
	if nodes > 200 {
		t.Fatalf("rejecting took %d steps", nodes)
	}

	if v := g.Compare(intRes(bad, cols)); v.Match || v.Why != WhyValues {
		t.Fatalf("Compare on the corrupted copy: %+v", v)
	}
	v := Compare(Multiset, intRes(pred, cols), intRes(gold, cols), Options{})
	if !v.Match {
		t.Fatalf("Compare: %+v", v)
	}
	if v := Compare(TestSuite, intRes(bad, cols), intRes(gold, cols), Options{}); v.Match {
		t.Fatalf("testsuite matched a corrupted copy")
	}
}

// predIDs keys a predicted table against a prepared gold's dictionary.
func predIDs(t *testing.T, g *Gold, rows [][]int64, cols int) *idTable {
	t.Helper()
	p, ok := lookupPred(intRes(rows, cols), g.key, g.dict, true)
	if !ok {
		t.Fatalf("predicted values missing from the gold")
	}
	return &p
}
