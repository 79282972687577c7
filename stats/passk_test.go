package stats

import (
	"math"
	"math/big"
	"math/bits"
	"slices"
	"testing"
)

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

func TestPassAtKHandValues(t *testing.T) {
	cases := []struct {
		name    string
		n, c, k int
		at, hat float64
	}{
		// 1 - C(3,2)/C(4,2) = 1 - 3/6; C(1,2) = 0.
		{"n4c1k2", 4, 1, 2, 0.5, 0},
		// Two wrong samples cannot fill a draw of 4: pass@4 is 1; C(2,4)=0.
		{"n4c2k4", 4, 2, 4, 1, 0},
		{"n4c4k2", 4, 4, 2, 1, 1},
		{"n4c4k4", 4, 4, 4, 1, 1},
		// 1 - C(3,3)/C(5,3) = 1 - 1/10; C(2,3) = 0.
		{"n5c2k3", 5, 2, 3, 0.9, 0},
		// 1 - C(2,2)/C(5,2) = 1 - 1/10; C(3,2)/C(5,2) = 3/10.
		{"n5c3k2", 5, 3, 2, 0.9, 0.3},
		{"n4c0k2", 4, 0, 2, 0, 0},
		// k = 1 is the plain rate.
		{"n4c3k1", 4, 3, 1, 0.75, 0.75},
		// 1 - C(8,3)/C(10,3) = 1 - 56/120; C(2,3) = 0.
		{"n10c2k3", 10, 2, 3, 1 - 56.0/120, 0},
		// C(9,5)/C(10,5) = 126/252: the short-product branch.
		{"n10c9k5", 10, 9, 5, 1, 0.5},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := PassAtK(tc.n, tc.c, tc.k); !near(got, tc.at, 1e-15) {
				t.Errorf("PassAtK(%d,%d,%d) = %v, want %v", tc.n, tc.c, tc.k, got, tc.at)
			}
			if got := PassHatK(tc.n, tc.c, tc.k); !near(got, tc.hat, 1e-15) {
				t.Errorf("PassHatK(%d,%d,%d) = %v, want %v", tc.n, tc.c, tc.k, got, tc.hat)
			}
		})
	}
}

func TestPassAtKUndefined(t *testing.T) {
	for _, in := range [][3]int{{3, 1, 4}, {4, 1, 0}, {4, 5, 2}, {4, -1, 2}, {0, 0, 1}, {-1, 0, 1}} {
		if got := PassAtK(in[0], in[1], in[2]); !math.IsNaN(got) {
			t.Errorf("PassAtK%v = %v, want NaN", in, got)
		}
		if got := PassHatK(in[0], in[1], in[2]); !math.IsNaN(got) {
			t.Errorf("PassHatK%v = %v, want NaN", in, got)
		}
	}
}

// TestPassAtKBruteForce checks both estimators against their definition: of
// all k-subsets of n samples, the first c of them right, the share holding
// at least one right sample and the share holding only right samples.
func TestPassAtKBruteForce(t *testing.T) {
	for n := 1; n <= 12; n++ {
		right := uint64(1)<<n - 1
		for c := 0; c <= n; c++ {
			correct := uint64(1)<<c - 1
			for k := 1; k <= n; k++ {
				total, any, all := 0, 0, 0
				for mask := uint64(0); mask <= right; mask++ {
					if bits.OnesCount64(mask) != k {
						continue
					}
					total++
					if mask&correct != 0 {
						any++
					}
					if mask&^correct == 0 {
						all++
					}
				}
				wantAt, wantHat := float64(any)/float64(total), float64(all)/float64(total)
				if got := PassAtK(n, c, k); !near(got, wantAt, 1e-13) {
					t.Fatalf("PassAtK(%d,%d,%d) = %v, enumeration gives %v", n, c, k, got, wantAt)
				}
				if got := PassHatK(n, c, k); !near(got, wantHat, 1e-13) {
					t.Fatalf("PassHatK(%d,%d,%d) = %v, enumeration gives %v", n, c, k, got, wantHat)
				}
			}
		}
	}
}

// TestPassAtKLargeExact compares with exact rational arithmetic where the
// binomials themselves overflow float64 (C(1000,500) is about 1e299, C(2000,
// 1000) is past 1e600).
func TestPassAtKLargeExact(t *testing.T) {
	ratio := func(a, n, k int) float64 {
		num := new(big.Int).Binomial(int64(a), int64(k))
		den := new(big.Int).Binomial(int64(n), int64(k))
		f, _ := new(big.Rat).SetFrac(num, den).Float64()
		return f
	}
	for _, tc := range [][3]int{{1000, 10, 500}, {2000, 3, 1000}, {2000, 1990, 1000}, {500, 250, 200}, {200, 1, 100}, {1000, 999, 3}} {
		n, c, k := tc[0], tc[1], tc[2]
		wantAt := 1 - ratio(n-c, n, k)
		wantHat := ratio(c, n, k)
		if c < k {
			wantHat = 0
		}
		if got := PassAtK(n, c, k); !near(got, wantAt, 1e-12) {
			t.Errorf("PassAtK(%d,%d,%d) = %v, want %v", n, c, k, got, wantAt)
		}
		if got := PassHatK(n, c, k); math.Abs(got-wantHat) > 1e-12*wantHat || (wantHat == 0) != (got == 0) {
			t.Errorf("PassHatK(%d,%d,%d) = %v, want %v", n, c, k, got, wantHat)
		}
	}
}

func TestRatesAndHistogram(t *testing.T) {
	tasks := []TaskCounts{{4, 1}, {4, 4}, {4, 0}, {3, 3}, {0, 0}, {4, 1}}
	rates := Rates(tasks)
	want := []float64{0.25, 1, 0, 1}
	if !slices.Equal(rates[:4], want) || !math.IsNaN(rates[4]) || rates[5] != 0.25 {
		t.Errorf("Rates = %v", rates)
	}
	if h := Histogram(tasks); !slices.Equal(h, []int{2, 2, 0, 1, 1}) {
		t.Errorf("Histogram = %v, want [2 2 0 1 1]", h)
	}
	if h := Histogram(nil); !slices.Equal(h, []int{0}) {
		t.Errorf("Histogram(nil) = %v", h)
	}
}

// Rates returns each task's fraction of right samples, c/n, which is the
// task's unbiased pass@1. Tasks with no samples yield NaN.
func Rates(tasks []TaskCounts) []float64 {
	out := make([]float64, len(tasks))
	for i, t := range tasks {
		if t.N <= 0 {
			out[i] = math.NaN()
			continue
		}
		out[i] = float64(t.C) / float64(t.N)
	}
	return out
}
