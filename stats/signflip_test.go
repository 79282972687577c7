package stats

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestSignFlipHandValues(t *testing.T) {
	cases := []struct {
		name  string
		diffs []float64
		want  float64
	}{
		// Sums of ±1±2±3: 6 4 2 0 0 -2 -4 -6; only ±6 reach 6.
		{"1,2,3", []float64{1, 2, 3}, 2.0 / 8},
		// Observed 2: all but the two zeros reach |2|.
		{"1,-2,3", []float64{1, -2, 3}, 6.0 / 8},
		// Five equal gains: only all-plus and all-minus reach 5.
		{"five ones", []float64{1, 1, 1, 1, 1}, 2.0 / 32},
		// Zeros carry no sign: this is one non-zero difference.
		{"zeros dropped", []float64{0, 0.5, 0}, 1},
		{"all zero", []float64{0, 0}, 1},
		{"empty", nil, 1},
		{"sums to zero", []float64{0.25, -0.25}, 1},
		// Observed 2.5 is the largest sum ±0.25±0.5±0.75±1 can make: only
		// all-plus and all-minus reach it.
		{"quarters", []float64{0.25, 0.5, 0.75, 1}, 2.0 / 16},
		// ±0.25±0.5±0.75 takes 1.5 1 0.5 0 0 -0.5 -1 -1.5; observed 0.5,
		// reached by all but the two zeros.
		{"quarters with a zero", []float64{0.25, -0.5, 0, 0.75}, 6.0 / 8},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := SignFlipP(tc.diffs, 1); !near(got, tc.want, 1e-15) {
				t.Errorf("SignFlipP(%v) = %v, want %v", tc.diffs, got, tc.want)
			}
		})
	}
}

// naiveSignFlip walks every sign pattern directly.
func naiveSignFlip(xs []float64) float64 {
	obs := 0.0
	for _, x := range xs {
		obs += x
	}
	hits := 0
	for mask := 0; mask < 1<<len(xs); mask++ {
		s := 0.0
		for i, x := range xs {
			if mask&(1<<i) != 0 {
				s -= x
			} else {
				s += x
			}
		}
		if math.Abs(s) >= math.Abs(obs)-1e-9 {
			hits++
		}
	}
	return float64(hits) / float64(int(1)<<len(xs))
}

// TestSignFlipExactMatchesNaive checks the meet-in-the-middle count against
// plain enumeration, on values with many ties (multiples of a quarter, as
// averages of 4 runs are) and on continuous ones.
func TestSignFlipExactMatchesNaive(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	for trial := range 300 {
		m := 1 + r.IntN(14)
		xs := make([]float64, m)
		for i := range xs {
			if trial%2 == 0 {
				xs[i] = float64(r.IntN(9)-4) / 4
				if xs[i] == 0 {
					xs[i] = 0.25
				}
			} else {
				xs[i] = r.NormFloat64()*0.3 + 0.05
			}
		}
		want := naiveSignFlip(xs)
		if got := SignFlipP(xs, 1); !near(got, want, 1e-15) {
			t.Fatalf("trial %d: SignFlipP(%v) = %v, enumeration %v", trial, xs, got, want)
		}
	}
}

func TestSignFlipExactLimit(t *testing.T) {
	ones := func(m int) []float64 {
		xs := make([]float64, m)
		for i := range xs {
			xs[i] = 1
		}
		return xs
	}
	if p, exact := signFlip(ones(SignFlipExactMax), 1); !exact || p != 2/math.Exp2(SignFlipExactMax) {
		t.Errorf("%d ones: p %v exact %v, want 2^-%d exactly", SignFlipExactMax, p, exact, SignFlipExactMax-1)
	}
	// Past the limit: no random pattern of 31 signs other than the two
	// extremes reaches 31, so the Monte Carlo estimate is 1/(flips+1) unless
	// a draw hits an extreme (chance about 1e-4).
	p, exact := signFlip(ones(SignFlipExactMax+1), 1)
	if exact || p > 3.0/(SignFlipFlips+1) || p < 1.0/(SignFlipFlips+1) {
		t.Errorf("%d ones: p %v exact %v", SignFlipExactMax+1, p, exact)
	}
}

func TestSignFlipMonteCarloAgreesWithExact(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 8))
	for trial := range 4 {
		xs := make([]float64, 22)
		for i := range xs {
			xs[i] = float64(r.IntN(9)-4)/4 + 0.1*float64(trial)
		}
		exact, _ := signFlip(xs, 1)
		obs := 0.0
		sumAbs := 0.0
		for _, x := range xs {
			obs += x
			sumAbs += math.Abs(x)
		}
		mc := signFlipMonteCarlo(xs, math.Abs(obs)-1e-9*sumAbs, SignFlipFlips, uint64(trial))
		// Monte Carlo sd is at most 0.0016 at 100,000 flips.
		if !near(mc, exact, 0.008) {
			t.Errorf("trial %d: Monte Carlo %v, exact %v", trial, mc, exact)
		}
	}
}

func TestSignFlipMonteCarloSeeded(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 4))
	xs := make([]float64, 60)
	for i := range xs {
		xs[i] = r.NormFloat64() + 0.2
	}
	a, b, c := SignFlipP(xs, 10), SignFlipP(xs, 10), SignFlipP(xs, 11)
	if a != b {
		t.Errorf("same seed: %v vs %v", a, b)
	}
	if a == c {
		t.Errorf("different seeds gave the identical p %v", a)
	}
	if a <= 0 || a > 1 || !near(a, c, 0.01) {
		t.Errorf("p values %v, %v", a, c)
	}
}

// SignFlipP is the two-sided p-value of the sign-flip permutation test of
// "the per-task differences are symmetric about zero": the share of the 2^m
// ways of flipping the signs of the m non-zero differences whose sum is at
// least as far from zero as the observed sum. Zero differences carry no sign
// and are dropped; no non-zero difference gives 1. Up to SignFlipExactMax
// non-zero differences the count is exact and seed is unused; beyond that it
// is a Monte Carlo estimate from SignFlipFlips seeded patterns, reported as
// (1 + hits)/(1 + flips) so it is never 0 and never below the exact p-value
// on average.
func SignFlipP(diffs []float64, seed uint64) float64 {
	p, _ := signFlip(diffs, seed)
	return p
}
