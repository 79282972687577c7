package stats

import (
	"math/rand/v2"
	"testing"
)

func benchTasks(n int) []TaskCounts {
	r := rand.New(rand.NewPCG(1, 1))
	tasks := make([]TaskCounts, n)
	for i := range tasks {
		tasks[i] = TaskCounts{N: 4, C: r.IntN(5)}
	}
	return tasks
}

// BenchmarkSummarize is the benchmark's headline: 1,000 tasks, 4 samples
// each, pass@1/pass@4/pass^4 with 2,000 resamples (goal: well under 100 ms).
func BenchmarkSummarize(b *testing.B) {
	tasks := benchTasks(1000)
	for b.Loop() {
		if _, err := Summarize(tasks, 4, 2000, 1); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPaired includes the Monte Carlo sign-flip test (1,000 non-zero
// differences, 100,000 flips), the expensive part.
func BenchmarkPaired(b *testing.B) {
	base, treat := pairedData(1000, 0.02, 1)
	for b.Loop() {
		if _, err := Paired(base, treat, 2000, 1); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSignFlipExact30 is the largest exact enumeration (2^30 patterns).
func BenchmarkSignFlipExact30(b *testing.B) {
	r := rand.New(rand.NewPCG(2, 2))
	xs := make([]float64, SignFlipExactMax)
	for i := range xs {
		xs[i] = r.NormFloat64()
	}
	for b.Loop() {
		SignFlipP(xs, 1)
	}
}
