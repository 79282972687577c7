package stats

import (
	"math"
	"slices"
	"sort"
)

// SignFlipExactMax is the largest number of non-zero differences for which
// the sign-flip test enumerates every sign pattern (2^30 of them, counted by meeting
// in the middle: two halves of at most 2^15 sums each).
const SignFlipExactMax = 30

// SignFlipFlips is the number of random sign patterns the sign-flip test draws when
// there are too many non-zero differences to enumerate.
const SignFlipFlips = 100_000

// signFlip returns the p-value and whether it was enumerated exactly.
func signFlip(diffs []float64, seed uint64) (float64, bool) {
	nz := make([]float64, 0, len(diffs))
	sumAbs := 0.0
	for _, d := range diffs {
		if d != 0 {
			nz = append(nz, d)
			sumAbs += math.Abs(d)
		}
	}
	if len(nz) == 0 {
		return 1, true
	}
	obs := 0.0
	for _, d := range nz {
		obs += d
	}
	// A pattern ties the observed sum up to rounding: sums are computed in
	// different orders, so compare with a tolerance far above rounding error
	// and far below any real difference between two sums.
	threshold := math.Abs(obs) - float64(1e-9*sumAbs)
	if threshold <= 0 {
		return 1, true
	}
	if len(nz) <= SignFlipExactMax {
		return signFlipExact(nz, threshold), true
	}
	return signFlipMonteCarlo(nz, threshold, SignFlipFlips, seed), false
}

// signFlipExact counts sign patterns with |sum| >= threshold (> 0) by
// splitting the values into two halves, listing each half's 2^h signed sums,
// and, for every left sum L, counting right sums R with L+R >= threshold or
// L+R <= -threshold (disjoint, since threshold > 0) by binary search.
func signFlipExact(xs []float64, threshold float64) float64 {
	half := len(xs) / 2
	left, right := signedSums(xs[:half]), signedSums(xs[half:])
	slices.Sort(right)
	var hits uint64
	for _, l := range left {
		// R >= threshold - l
		hits += uint64(len(right) - sort.SearchFloat64s(right, threshold-l))
		// R <= -threshold - l: the count of values not above it.
		bound := -threshold - l
		hits += uint64(sort.Search(len(right), func(i int) bool { return right[i] > bound }))
	}
	total := float64(len(left)) * float64(len(right))
	return float64(hits) / total
}

// signedSums lists the sums of every sign pattern of xs, each computed
// afresh from left to right so no rounding accumulates across patterns.
func signedSums(xs []float64) []float64 {
	out := make([]float64, 1<<len(xs))
	for mask := range out {
		s := 0.0
		for i, x := range xs {
			if mask&(1<<i) != 0 {
				s -= x
			} else {
				s += x
			}
		}
		out[mask] = s
	}
	return out
}

// signFlipMonteCarlo draws flips random sign patterns, 64 signs per random
// word, and counts those with |sum| >= threshold. A sign is applied by
// XOR-ing it into the value's sign bit: exact, and free of the branch a coin
// flip would mispredict half the time.
func signFlipMonteCarlo(xs []float64, threshold float64, flips int, seed uint64) float64 {
	xb := make([]uint64, len(xs))
	for i, x := range xs {
		xb[i] = math.Float64bits(x)
	}
	src := newSource(seed)
	hits := 0
	for range flips {
		s := 0.0
		for start := 0; start < len(xb); start += 64 {
			word := src.uint64()
			for _, b := range xb[start:min(start+64, len(xb))] {
				s += math.Float64frombits(b ^ (word << 63))
				word >>= 1
			}
		}
		if math.Abs(s) >= threshold {
			hits++
		}
	}
	return float64(1+hits) / float64(1+flips)
}
