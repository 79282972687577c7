package compare

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/sqlgym/sqlgym"
)

// benchResult is a typical answer: an id, a name, an amount and a date.
func benchResult(n int) *sqlgym.ResultSet {
	rng := rand.New(rand.NewPCG(uint64(n), 1))
	r := &sqlgym.ResultSet{Columns: []string{"id", "name", "amount", "day"}}
	for i := 0; i < n; i++ {
		r.Rows = append(r.Rows, []sqlgym.Value{
			I(int64(i)),
			T(fmt.Sprintf("customer %d", rng.IntN(n/2+1))),
			F(float64(rng.IntN(100000)) / 100),
			sqlgym.Date(fmt.Sprintf("2024-%02d-%02d", 1+rng.IntN(12), 1+rng.IntN(28))),
		})
	}
	return r
}

// The prediction is the gold with rows shuffled and the last two columns
// swapped: a match in multiset and testsuite, work for every mode.
func benchPred(gold *sqlgym.ResultSet) *sqlgym.ResultSet {
	rng := rand.New(rand.NewPCG(9, 9))
	p := shuffleRows(rng, gold)
	for _, row := range p.Rows {
		row[2], row[3] = row[3], row[2]
	}
	return p
}

func BenchmarkCompare(b *testing.B) {
	for _, n := range []int{50, 5000} {
		gold := benchResult(n)
		pred := benchPred(gold)
		for _, m := range Modes {
			opt := Options{IgnoreOrder: true}
			b.Run(fmt.Sprintf("%s/rows=%d/prepared", m, n), func(b *testing.B) {
				g := Prepare(m, gold, opt)
				b.ReportAllocs()
				for b.Loop() {
					g.Compare(pred)
				}
			})
			b.Run(fmt.Sprintf("%s/rows=%d/oneshot", m, n), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					Compare(m, pred, gold, opt)
				}
			})
		}
	}
}

// A wrong answer of the right shape: one value off. Most answers in RL
// are wrong, and a miss also works out its reason.
func BenchmarkCompareMiss(b *testing.B) {
	for _, n := range []int{50, 5000} {
		gold := benchResult(n)
		pred := benchPred(gold)
		pred.Rows[n/2][0] = I(-1)
		for _, m := range []Mode{Multiset, Strict, TestSuite} {
			b.Run(fmt.Sprintf("%s/rows=%d", m, n), func(b *testing.B) {
				g := Prepare(m, gold, Options{})
				b.ReportAllocs()
				for b.Loop() {
					g.Compare(pred)
				}
			})
		}
	}
}
