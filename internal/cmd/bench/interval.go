package bench

import (
	"math"
	"slices"
)

// ratioStats is the median of per-round ratios with a distribution-free
// interval for it: order statistics of the sorted ratios, the widest pair
// whose coverage is at least 95 % (binomial, p = 1/2), or min and max
// when too few rounds give 95 % (Confidence then says how much they do).
// The rounds interleave verifier and floor passes, so a change of the
// machine's speed between rounds moves both sides of a ratio together.
type ratioStats struct {
	Median     float64   `json:"median"`
	Low        float64   `json:"low"`
	High       float64   `json:"high"`
	Confidence float64   `json:"confidence"`
	Rounds     []float64 `json:"rounds"`
}

func newRatioStats(rs []float64) ratioStats {
	if len(rs) == 0 {
		return ratioStats{Rounds: []float64{}}
	}
	s := slices.Clone(rs)
	slices.Sort(s)
	n := len(s)
	med := s[n/2]
	if n%2 == 0 {
		med = (s[n/2-1] + s[n/2]) / 2
	}
	k, conf := medianOrderStat(n, 0.95)
	return ratioStats{Median: med, Low: s[k], High: s[n-1-k], Confidence: conf, Rounds: rs}
}

// medianOrderStat is the 0-based index k such that [x(k), x(n-1-k)] of n
// sorted samples covers the median with probability conf or more, as
// large as that allows, and the coverage it has. The coverage of
// [x(k), x(n-1-k)] is 1 - 2 P(B <= k) for B ~ Binomial(n, 1/2).
func medianOrderStat(n int, conf float64) (int, float64) {
	cdf := func(k int) float64 { // P(B <= k)
		p := 0.0
		for i := 0; i <= k; i++ {
			p += math.Exp(lchoose(n, i) - float64(n)*math.Ln2)
		}
		return p
	}
	k := 0
	for k+1 < n-1-(k+1) && 1-2*cdf(k+1) >= conf {
		k++
	}
	return k, 1 - 2*cdf(k)
}

func lchoose(n, k int) float64 {
	a, _ := math.Lgamma(float64(n + 1))
	b, _ := math.Lgamma(float64(k + 1))
	c, _ := math.Lgamma(float64(n - k + 1))
	return a - b - c
}
