package compare

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/sqlgym/sqlgym"
)

// randValue draws from a small pool so that ties, duplicates and
// cross-kind equalities (1 vs 1.0 vs '1') are common.
func randValue(rng *rand.Rand) sqlgym.Value {
	switch rng.IntN(9) {
	case 0:
		return sqlgym.Null()
	case 1, 2:
		return I(int64(rng.IntN(4)))
	case 3:
		return F(float64(rng.IntN(4)))
	case 4:
		return F(float64(rng.IntN(40)) / 8)
	case 5:
		return T([]string{"a", "A", "b", " a", "1", "2.50", ""}[rng.IntN(7)])
	case 6:
		return D([]string{"1.00", "0.5", "0.1", "2"}[rng.IntN(4)])
	case 7:
		return sqlgym.Bool(rng.IntN(2) == 1)
	}
	return sqlgym.Date([]string{"2024-01-01", "2024-02-29"}[rng.IntN(2)])
}

func randResult(rng *rand.Rand) *sqlgym.ResultSet {
	cols, rows := 1+rng.IntN(4), rng.IntN(6)
	r := res(cols)
	for i := 0; i < rows; i++ {
		out := make([]sqlgym.Value, cols)
		for c := range out {
			out[c] = randValue(rng)
		}
		r.Rows = append(r.Rows, out)
	}
	return r
}

func clone(r *sqlgym.ResultSet) *sqlgym.ResultSet {
	out := &sqlgym.ResultSet{Columns: append([]string(nil), r.Columns...)}
	for _, row := range r.Rows {
		out.Rows = append(out.Rows, append([]sqlgym.Value(nil), row...))
	}
	return out
}

func permuteCols(rng *rand.Rand, r *sqlgym.ResultSet) *sqlgym.ResultSet {
	perm := rng.Perm(r.NumCols())
	out := res(r.NumCols())
	for _, row := range r.Rows {
		nr := make([]sqlgym.Value, len(row))
		for c, p := range perm {
			nr[c] = row[p]
		}
		out.Rows = append(out.Rows, nr)
	}
	return out
}

func shuffleRows(rng *rand.Rand, r *sqlgym.ResultSet) *sqlgym.ResultSet {
	out := clone(r)
	rng.Shuffle(len(out.Rows), func(i, j int) { out.Rows[i], out.Rows[j] = out.Rows[j], out.Rows[i] })
	return out
}

// mutate returns a near copy of gold: sometimes equal up to order,
// sometimes one cell or one row off, so both verdicts occur.
func mutate(rng *rand.Rand, gold *sqlgym.ResultSet) *sqlgym.ResultSet {
	p := shuffleRows(rng, permuteCols(rng, gold))
	n := len(p.Rows)
	switch rng.IntN(5) {
	case 1:
		if n > 0 {
			p.Rows[rng.IntN(n)][rng.IntN(p.NumCols())] = randValue(rng)
		}
	case 2:
		if n > 1 {
			p.Rows[0] = append([]sqlgym.Value(nil), p.Rows[1]...)
		}
	case 3:
		if n > 0 {
			p.Rows = p.Rows[1:]
		}
	}
	return p
}

var allOptions = []Options{{}, {GoldOrdered: true}, {IgnoreOrder: true}}

func TestPropertySelfMatch(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 2000; i++ {
		r := randResult(rng)
		for _, m := range Modes {
			for _, opt := range allOptions {
				v := Compare(m, clone(r), r, opt)
				if !v.Match || v.Score != 1 || v.Why != "" {
					t.Fatalf("%s %+v: a result does not match itself: %+v\n%v", m, opt, v, r.Rows)
				}
			}
		}
	}
}

// Permuting the prediction's columns never changes a verdict in the modes
// where column order is free.
func TestPropertyColumnOrderFree(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	seen := map[bool]int{}
	for i := 0; i < 2000; i++ {
		gold := randResult(rng)
		pred := mutate(rng, gold)
		for _, m := range []Mode{Multiset, TestSuite, Spider2} {
			for _, opt := range allOptions {
				g := Prepare(m, gold, opt)
				want := g.Compare(pred)
				got := g.Compare(permuteCols(rng, pred))
				if got.Match != want.Match {
					t.Fatalf("%s %+v: permuting columns changed %+v to %+v\npred %v\ngold %v", m, opt, want, got, pred.Rows, gold.Rows)
				}
				seen[want.Match]++
			}
		}
	}
	if seen[true] < 500 || seen[false] < 500 {
		t.Fatalf("verdicts too one-sided to mean anything: %v", seen)
	}
}

// Without ORDER BY (and with ignore_order for spider2), shuffling the
// prediction's rows never changes a verdict or a score.
func TestPropertyRowOrderFree(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	seen := map[bool]int{}
	for i := 0; i < 2000; i++ {
		gold := randResult(rng)
		pred := mutate(rng, gold)
		for _, m := range Modes {
			opt := Options{IgnoreOrder: m == Spider2}
			g := Prepare(m, gold, opt)
			want := g.Compare(pred)
			got := g.Compare(shuffleRows(rng, pred))
			if got != want {
				t.Fatalf("%s: shuffling rows changed %+v to %+v\npred %v\ngold %v", m, want, got, pred.Rows, gold.Rows)
			}
			seen[want.Match]++
		}
	}
	if seen[true] < 500 || seen[false] < 500 {
		t.Fatalf("verdicts too one-sided to mean anything: %v", seen)
	}
}

// A prepared gold is shared by the goroutines verifying a batch.
func TestPreparedGoldConcurrent(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 11))
	gold := randResult(rng)
	for len(gold.Rows) < 3 {
		gold = randResult(rng)
	}
	preds := make([]*sqlgym.ResultSet, 64)
	for i := range preds {
		preds[i] = mutate(rng, gold)
	}
	for _, m := range Modes {
		g := Prepare(m, gold, Options{})
		want := make([]Verdict, len(preds))
		for i, p := range preds {
			want[i] = Prepare(m, gold, Options{}).Compare(p)
		}
		var wg sync.WaitGroup
		errs := make(chan string, len(preds))
		for w := 0; w < 8; w++ {
			wg.Add(1)
			go func(w int) {
				defer wg.Done()
				for i := w; i < len(preds); i += 8 {
					if got := g.Compare(preds[i]); got != want[i] {
						errs <- fmt.Sprintf("%s pred %d: %+v, sequentially %+v", m, i, got, want[i])
					}
				}
			}(w)
		}
		wg.Wait()
		close(errs)
		for e := range errs {
			t.Error(e)
		}
	}
}
