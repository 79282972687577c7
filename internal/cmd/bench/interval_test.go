package bench

import (
	"math"
	"testing"
)

// The interval for the median is the order statistics the binomial
// gives: 11 rounds -> the 2nd and 10th (98.8 %), 5 rounds -> min and max
// (93.8 %, fewer than 95 % possible), 1 round -> that round (0 %).
func TestMedianInterval(t *testing.T) {
	for _, c := range []struct {
		n    int
		k    int
		conf float64
	}{{1, 0, 0}, {5, 0, 0.9375}, {6, 0, 0.96875}, {11, 1, 1 - 2*12.0/2048}, {15, 3, 1 - 2*576.0/32768}} {
		k, conf := medianOrderStat(c.n, 0.95)
		if k != c.k || math.Abs(conf-c.conf) > 1e-9 {
			t.Errorf("n=%d: k=%d coverage %.4f, want k=%d coverage %.4f", c.n, k, conf, c.k, c.conf)
		}
	}
	r := newRatioStats([]float64{1.3, 1.0, 1.1, 5, 1.2, 0.9, 1.15, 1.05, 1.12, 1.08, 0.2})
	if r.Median != 1.1 || r.Low != 0.9 || r.High != 1.3 || len(r.Rounds) != 11 || r.Rounds[0] != 1.3 {
		t.Errorf("stats %+v: want median 1.1 in [0.9, 1.3], rounds in run order", r)
	}
}
