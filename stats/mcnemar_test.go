package stats

import (
	"math"
	"math/big"
	"testing"
)

func TestMcNemarExactHandValues(t *testing.T) {
	cases := []struct {
		gains, losses int
		want          float64
	}{
		// Binomial(12, 1/2): P(X <= 2) = (1+12+66)/4096, doubled.
		{10, 2, 2 * 79.0 / 4096},
		{2, 10, 2 * 79.0 / 4096},
		{0, 5, 2.0 / 32},
		{3, 0, 2.0 / 8},
		{1, 0, 1},
		{5, 5, 1},
		{0, 0, 1},
		// P(X <= 1) of Binomial(8, 1/2) = 9/256, doubled.
		{7, 1, 18.0 / 256},
	}
	for _, tc := range cases {
		if got := McNemarExact(tc.gains, tc.losses); !near(got, tc.want, 1e-12) {
			t.Errorf("McNemarExact(%d, %d) = %v, want %v", tc.gains, tc.losses, got, tc.want)
		}
	}
	if !near(McNemarExact(10, 2), 0.0386, 5e-5) {
		t.Errorf("textbook example b=10, c=2: %v, want 0.0386", McNemarExact(10, 2))
	}
	if !math.IsNaN(McNemarExact(-1, 2)) {
		t.Error("negative count should give NaN")
	}
}

// TestMcNemarExactLarge: 1000 discordant pairs, where 2^-1000 is far below
// anything float64 sums directly, against exact big-integer arithmetic.
func TestMcNemarExactLarge(t *testing.T) {
	for _, tc := range [][2]int{{600, 400}, {520, 480}, {1500, 1300}, {90, 10}} {
		n := tc[0] + tc[1]
		m := min(tc[0], tc[1])
		sum := new(big.Int)
		for i := 0; i <= m; i++ {
			sum.Add(sum, new(big.Int).Binomial(int64(n), int64(i)))
		}
		tail := new(big.Rat).SetFrac(new(big.Int).Mul(sum, big.NewInt(2)), new(big.Int).Lsh(big.NewInt(1), uint(n)))
		want, _ := tail.Float64()
		want = math.Min(1, want)
		got := McNemarExact(tc[0], tc[1])
		if math.Abs(got-want) > 1e-10*want {
			t.Errorf("McNemarExact(%d, %d) = %v, exact %v", tc[0], tc[1], got, want)
		}
	}
}
