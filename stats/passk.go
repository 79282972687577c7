package stats

import "math"

// TaskCounts is one task's sampling record: N answers were sampled and C of
// them were right. Different tasks may have different N (a sample lost to an
// infrastructure failure is simply not counted).
type TaskCounts struct {
	N int `json:"n"`
	C int `json:"c"`
}

// PassAtK is the unbiased estimate of the chance that at least one of k
// answers drawn without replacement from the task's n samples is right:
// 1 - C(n-c, k)/C(n, k). It returns NaN when the estimate is undefined:
// k < 1, n < k, c < 0 or c > n.
func PassAtK(n, c, k int) float64 {
	if !validCounts(n, c, k) {
		return math.NaN()
	}
	if n-c < k {
		// Fewer than k wrong samples: every k-subset holds a right one.
		return 1
	}
	if k == 1 {
		// The same value, but rounded once, so pass@1 from here and from
		// Rates agree to the bit.
		return float64(c) / float64(n)
	}
	return 1 - ratioOfBinomials(n-c, n, k)
}

// PassHatK is the unbiased estimate of the chance that all of k answers drawn
// without replacement from the task's n samples are right: C(c, k)/C(n, k).
// It returns NaN under the same conditions as PassAtK.
func PassHatK(n, c, k int) float64 {
	if !validCounts(n, c, k) {
		return math.NaN()
	}
	if c < k {
		return 0
	}
	return ratioOfBinomials(c, n, k)
}

func validCounts(n, c, k int) bool { return k >= 1 && n >= k && c >= 0 && c <= n }

// ratioOfBinomials returns C(a, k)/C(n, k) for 0 <= k <= a <= n as the
// product of k ratios (a-j)/(n-j), each in [0, 1], so nothing overflows and
// the relative error stays within about k roundings. When n-a < k the same
// value is the shorter product over the n-a factors i from a+1 to n of
// (i-k)/i, which is what large k with few missing samples wants.
func ratioOfBinomials(a, n, k int) float64 {
	p := 1.0
	if n-a < k {
		for i := a + 1; i <= n; i++ {
			p = float64(p * (float64(i-k) / float64(i)))
		}
		return p
	}
	for j := 0; j < k; j++ {
		p = float64(p * (float64(a-j) / float64(n-j)))
	}
	return p
}

// Histogram counts tasks by how many of their samples were right: h[c] is
// the number of tasks with exactly c right answers, for c = 0..max N. When
// tasks have different N a bucket mixes them (c = 3 of 3 and c = 3 of 4 both
// land in h[3]); Summary.SamplesPerTask says whether that happened. Tasks
// with C outside [0, N] are ignored.
func Histogram(tasks []TaskCounts) []int {
	maxN := 0
	for _, t := range tasks {
		maxN = max(maxN, t.N)
	}
	h := make([]int, maxN+1)
	for _, t := range tasks {
		if t.C >= 0 && t.C <= t.N {
			h[t.C]++
		}
	}
	return h
}
