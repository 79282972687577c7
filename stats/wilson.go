package stats

import "math"

// z95 is the standard normal quantile for a two-sided 95% interval.
const z95 = 1.959963984540054

// Wilson returns the share k/n with its 95% Wilson score interval. Unlike
// the normal approximation it stays inside [0, 1] and keeps its width at
// 0 or n successes, which matters for the small judged samples it is used
// on (precision among a hundred flipped answers). n = 0 gives NaN.
func Wilson(k, n int) Interval {
	if n <= 0 || k < 0 || k > n {
		return nanInterval
	}
	p := float64(k) / float64(n)
	nf := float64(n)
	z2 := z95 * z95
	den := 1 + z2/nf
	mid := (p + z2/(2*nf)) / den
	half := z95 * math.Sqrt(p*(1-p)/nf+z2/(4*nf*nf)) / den
	return Interval{Value: p, Lo: math.Max(0, mid-half), Hi: math.Min(1, mid+half)}
}
