package stats

import (
	"math"
	"slices"
)

// DefaultResamples is the number of bootstrap resamples used when a caller
// passes b <= 0. 2000 puts the 2.5% and 97.5% percentiles about 50 resamples
// in from each end, steady to about a tenth of a point on typical benchmarks.
const DefaultResamples = 2000

// Quantiles of the 95% percentile interval.
const (
	lowerQ = 0.025
	upperQ = 0.975
)

func resamples(b int) int {
	if b <= 0 {
		return DefaultResamples
	}
	return b
}

// Mean is the arithmetic mean, summed in order (so it is reproducible
// bit-for-bit); NaN for no values.
func Mean(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// SD is the sample standard deviation (denominator n-1); NaN for fewer than
// two values.
func SD(xs []float64) float64 {
	if len(xs) < 2 {
		return math.NaN()
	}
	m := Mean(xs)
	ss := 0.0
	for _, x := range xs {
		d := x - m
		ss += float64(d * d)
	}
	return math.Sqrt(ss / float64(len(xs)-1))
}

// BootstrapMean is Bootstrap with the mean as the statistic, without copying
// each resample: the same seed draws the same resamples, so its bounds equal
// Bootstrap(values, b, seed, Mean) exactly. Value is the mean of values.
func BootstrapMean(values []float64, b int, seed uint64) Interval {
	if len(values) == 0 {
		return nanInterval
	}
	lo, hi := percentileInterval(resampledMeans(values, len(values), resamples(b), seed))
	return Interval{Value: Mean(values), Lo: lo, Hi: hi}
}

// resampledMeans returns b means of n values drawn with replacement from
// values. Drawing len(values) is the ordinary bootstrap; another n asks what
// a run of n tasks like these would show.
func resampledMeans(values []float64, n, b int, seed uint64) []float64 {
	src := newSource(seed)
	stats := make([]float64, b)
	for r := range stats {
		s := 0.0
		for range n {
			s += values[src.intn(len(values))]
		}
		stats[r] = s / float64(n)
	}
	return stats
}

// bootstrapMeansShared is BootstrapMean for several value sets of the same
// length at once: one resample index serves every set, so it draws a third
// as many random numbers for three sets and returns exactly what separate
// BootstrapMean calls with the same seed would.
func bootstrapMeansShared(sets [][]float64, b int, seed uint64) []Interval {
	n := len(sets[0])
	out := make([]Interval, len(sets))
	if n == 0 {
		for i := range out {
			out[i] = nanInterval
		}
		return out
	}
	b = resamples(b)
	src := newSource(seed)
	stats := make([][]float64, len(sets))
	sums := make([]float64, len(sets))
	for i := range stats {
		stats[i] = make([]float64, b)
	}
	for r := range b {
		clear(sums)
		for range n {
			j := src.intn(n)
			for i, set := range sets {
				sums[i] += set[j]
			}
		}
		for i := range sets {
			stats[i][r] = sums[i] / float64(n)
		}
	}
	for i, set := range sets {
		lo, hi := percentileInterval(stats[i])
		out[i] = Interval{Value: Mean(set), Lo: lo, Hi: hi}
	}
	return out
}

// percentileInterval sorts stats in place and returns its 2.5th and 97.5th
// percentiles.
func percentileInterval(stats []float64) (lo, hi float64) {
	slices.Sort(stats)
	return quantileSorted(stats, lowerQ), quantileSorted(stats, upperQ)
}

// quantileSorted is the q-quantile of sorted values by linear interpolation
// between the order statistics at positions floor and ceil of q*(n-1)
// (Hyndman and Fan's definition 7, the default of R and NumPy).
func quantileSorted(s []float64, q float64) float64 {
	if len(s) == 0 {
		return math.NaN()
	}
	h := float64(q * float64(len(s)-1))
	i := int(math.Floor(h))
	if i >= len(s)-1 {
		return s[len(s)-1]
	}
	frac := h - float64(i)
	return s[i] + float64(frac*(s[i+1]-s[i]))
}
