package stats

import (
	"math"
	"testing"
)

func TestWilsonMatchesPublishedValues(t *testing.T) {
	// Reference values computed apart from this code (the textbook score
	// interval in Python), to four decimals; 0/10 and 90/100 are the
	// usual textbook examples.
	cases := []struct {
		k, n   int
		lo, hi float64
	}{
		{24, 75, 0.2254, 0.4321},
		{0, 10, 0, 0.2775},
		{10, 10, 0.7225, 1},
		{90, 100, 0.8256, 0.9448},
	}
	for _, c := range cases {
		iv := Wilson(c.k, c.n)
		if math.Abs(iv.Lo-c.lo) > 5e-4 || math.Abs(iv.Hi-c.hi) > 5e-4 {
			t.Errorf("Wilson(%d, %d) = %v, want [%.4f, %.4f]", c.k, c.n, iv, c.lo, c.hi)
		}
		if iv.Value != float64(c.k)/float64(c.n) {
			t.Errorf("Wilson(%d, %d).Value = %v", c.k, c.n, iv.Value)
		}
	}
}

func TestWilsonWithoutTrialsIsNaN(t *testing.T) {
	if Wilson(0, 0).Valid() || Wilson(3, 2).Valid() {
		t.Fatal("Wilson must be NaN without trials or with k > n")
	}
}
