package stats

import (
	"fmt"
)

// Summary is a benchmark run's headline numbers with their 95% bootstrap
// intervals over tasks.
type Summary struct {
	// Tasks is how many task records were given; Scored how many had at
	// least one sample and so enter pass@1.
	Tasks  int `json:"tasks"`
	Scored int `json:"scored"`
	// Samples is the total number of samples over all tasks.
	Samples int `json:"samples"`
	// SamplesPerTask maps a sample count n to how many tasks had it; more
	// than one key means some samples were lost.
	SamplesPerTask map[int]int `json:"samples_per_task"`
	K              int         `json:"k"`
	// KTasks is how many tasks had at least K samples and so enter pass@k
	// and pass^k; ExcludedForK = Scored - KTasks were left out of those two.
	KTasks       int `json:"k_tasks"`
	ExcludedForK int `json:"excluded_for_k"`

	PassAt1  Interval `json:"pass_at_1"`
	PassAtK  Interval `json:"pass_at_k"`
	PassHatK Interval `json:"pass_hat_k"`
	// SD is the sample standard deviation of the per-task pass@1 values,
	// the input of the power calculation; 0 when only one task is scored.
	SD float64 `json:"sd"`
	// Histogram[c] is the number of tasks with exactly c right samples.
	Histogram []int `json:"histogram"`

	Resamples int    `json:"resamples"`
	Seed      uint64 `json:"seed"`
}

// Summarize computes pass@1, pass@k and pass^k over tasks, each the mean of
// the per-task unbiased estimates with a 95% percentile bootstrap interval
// over tasks (b resamples, b <= 0 meaning DefaultResamples, seeded by seed).
//
// Tasks with N = 0 enter nothing. Tasks with 0 < N < k enter pass@1 but are
// excluded from pass@k and pass^k, whose estimators are undefined for them,
// and are counted in ExcludedForK; when no task has k samples those two
// intervals are NaN. C outside [0, N], negative N, k < 1 or no scored task is
// an error.
func Summarize(tasks []TaskCounts, k, b int, seed uint64) (Summary, error) {
	if k < 1 {
		return Summary{}, fmt.Errorf("summarize: k must be at least 1, got %d", k)
	}
	b = resamples(b)
	s := Summary{Tasks: len(tasks), K: k, SamplesPerTask: map[int]int{}, Resamples: b, Seed: seed}
	p1 := make([]float64, 0, len(tasks))
	pk := make([]float64, 0, len(tasks))
	phk := make([]float64, 0, len(tasks))
	for i, t := range tasks {
		if t.N < 0 || t.C < 0 || t.C > t.N {
			return Summary{}, fmt.Errorf("summarize: task %d has %d right of %d samples", i, t.C, t.N)
		}
		s.Samples += t.N
		s.SamplesPerTask[t.N]++
		if t.N == 0 {
			continue
		}
		p1 = append(p1, float64(t.C)/float64(t.N))
		if t.N >= k {
			pk = append(pk, PassAtK(t.N, t.C, k))
			phk = append(phk, PassHatK(t.N, t.C, k))
		}
	}
	if len(p1) == 0 {
		return Summary{}, fmt.Errorf("summarize: no task has any sample")
	}
	s.Scored, s.KTasks = len(p1), len(pk)
	s.ExcludedForK = s.Scored - s.KTasks
	// The same seed for all three. When every task has k samples the three
	// intervals come from the same resampled task sets, drawn once.
	if len(pk) == len(p1) {
		ivs := bootstrapMeansShared([][]float64{p1, pk, phk}, b, seed)
		s.PassAt1, s.PassAtK, s.PassHatK = ivs[0], ivs[1], ivs[2]
	} else {
		s.PassAt1 = BootstrapMean(p1, b, seed)
		s.PassAtK = BootstrapMean(pk, b, seed)
		s.PassHatK = BootstrapMean(phk, b, seed)
	}
	if len(p1) > 1 {
		s.SD = SD(p1)
	}
	s.Histogram = Histogram(tasks)
	return s, nil
}
