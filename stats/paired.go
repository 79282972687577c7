package stats

import (
	"fmt"
	"math"
)

// Verdict is what a paired comparison's interval proves.
type Verdict string

const (
	// VerdictGain: the whole 95% interval of the difference is above zero.
	VerdictGain Verdict = "proven gain"
	// VerdictLoss: the whole 95% interval is below zero.
	VerdictLoss Verdict = "proven loss"
	// VerdictNotProven: the interval contains zero (or could not be made).
	VerdictNotProven Verdict = "not proven"
)

// VerdictOf reads a verdict off an interval of treatment minus baseline.
func VerdictOf(iv Interval) Verdict {
	switch {
	case !iv.Valid():
		return VerdictNotProven
	case iv.Lo > 0:
		return VerdictGain
	case iv.Hi < 0:
		return VerdictLoss
	default:
		return VerdictNotProven
	}
}

// P-value methods named in PairedResult.PMethod.
const (
	MethodSignFlipExact      = "sign-flip exact"
	MethodSignFlipMonteCarlo = "sign-flip monte carlo" // SignFlipFlips seeded flips
)

// PairedResult compares a treatment with a baseline on the same tasks.
type PairedResult struct {
	// N is the number of tasks; Clusters the number of clusters resampled
	// (0 for the plain task bootstrap).
	N        int `json:"n"`
	Clusters int `json:"clusters,omitempty"`
	// Delta is mean(treat - base) with its 95% bootstrap interval.
	Delta Interval `json:"delta"`
	// PValue is the two-sided sign-flip permutation p-value (over tasks, or
	// over cluster sums for the clustered comparison); PMethod says whether
	// it was enumerated exactly or estimated by Monte Carlo.
	PValue  float64 `json:"p_value"`
	PMethod string  `json:"p_method"`
	// McNemar is set when every score is 0 or 1 (and the comparison is not
	// clustered): the exact test on the discordant tasks.
	McNemar   *McNemarResult `json:"mcnemar,omitempty"`
	Verdict   Verdict        `json:"verdict"`
	Resamples int            `json:"resamples"`
	Seed      uint64         `json:"seed"`
}

// McNemarResult is the exact McNemar test of paired 0/1 outcomes.
type McNemarResult struct {
	Gains  int     `json:"gains"`  // base 0, treat 1
	Losses int     `json:"losses"` // base 1, treat 0
	PValue float64 `json:"p_value"`
}

// Paired compares per-task scores base[i] and treat[i] of the same tasks (each
// already averaged over replicate runs): Delta is mean(treat - base) with a
// 95% percentile bootstrap interval from resampling tasks (b resamples, b <= 0
// meaning DefaultResamples, seeded), PValue is the sign-flip test's of the differences,
// and, for 0/1 scores, McNemar holds the exact McNemar test. Fewer than two
// tasks, different lengths, or a non-finite score is an error.
func Paired(base, treat []float64, b int, seed uint64) (PairedResult, error) {
	diffs, err := differences(base, treat)
	if err != nil {
		return PairedResult{}, err
	}
	b = resamples(b)
	r := PairedResult{N: len(diffs), Resamples: b, Seed: seed}
	r.Delta = BootstrapMean(diffs, b, seed)
	r.setP(diffs, seed)
	if binary(base) && binary(treat) {
		m := McNemarResult{}
		for i := range base {
			switch {
			case base[i] == 0 && treat[i] == 1:
				m.Gains++
			case base[i] == 1 && treat[i] == 0:
				m.Losses++
			}
		}
		m.PValue = McNemarExact(m.Gains, m.Losses)
		r.McNemar = &m
	}
	r.Verdict = VerdictOf(r.Delta)
	return r, nil
}

// PairedClustered is Paired for tasks that are not independent, such as
// several questions on one database: clusters[i] names task i's cluster, and
// each bootstrap resample draws whole clusters with replacement, as many as
// there are, taking every task of each drawn cluster. The resample's
// statistic is the mean difference over the tasks it holds (not the mean of
// cluster means), so Delta.Value equals Paired's. The p-value flips the signs
// of whole clusters' summed differences. At least two clusters are needed.
func PairedClustered(base, treat []float64, clusters []string, b int, seed uint64) (PairedResult, error) {
	diffs, err := differences(base, treat)
	if err != nil {
		return PairedResult{}, err
	}
	if len(clusters) != len(diffs) {
		return PairedResult{}, fmt.Errorf("paired clustered: %d cluster labels for %d tasks", len(clusters), len(diffs))
	}
	// Clusters in order of first appearance, so the resampling (and the
	// interval) does not depend on map iteration order.
	index := map[string]int{}
	var sums []float64
	var counts []int
	for i, c := range clusters {
		j, ok := index[c]
		if !ok {
			j = len(sums)
			index[c] = j
			sums = append(sums, 0)
			counts = append(counts, 0)
		}
		sums[j] += diffs[i]
		counts[j]++
	}
	g := len(sums)
	if g < 2 {
		return PairedResult{}, fmt.Errorf("paired clustered: need at least 2 clusters, got %d", g)
	}
	b = resamples(b)
	src := newSource(seed)
	stats := make([]float64, b)
	for r := range stats {
		s, n := 0.0, 0
		for range g {
			j := src.intn(g)
			s += sums[j]
			n += counts[j]
		}
		stats[r] = s / float64(n)
	}
	lo, hi := percentileInterval(stats)
	r := PairedResult{N: len(diffs), Clusters: g, Resamples: b, Seed: seed}
	r.Delta = Interval{Value: Mean(diffs), Lo: lo, Hi: hi}
	r.setP(sums, seed)
	r.Verdict = VerdictOf(r.Delta)
	return r, nil
}

func (r *PairedResult) setP(diffs []float64, seed uint64) {
	p, exact := signFlip(diffs, seed)
	r.PValue = p
	r.PMethod = MethodSignFlipExact
	if !exact {
		r.PMethod = MethodSignFlipMonteCarlo
	}
}

func differences(base, treat []float64) ([]float64, error) {
	if len(base) != len(treat) {
		return nil, fmt.Errorf("paired: %d baseline scores but %d treatment scores", len(base), len(treat))
	}
	if len(base) < 2 {
		return nil, fmt.Errorf("paired: need at least 2 tasks, got %d", len(base))
	}
	d := make([]float64, len(base))
	for i := range base {
		if !finite(base[i]) || !finite(treat[i]) {
			return nil, fmt.Errorf("paired: task %d has a non-finite score (%v, %v)", i, base[i], treat[i])
		}
		d[i] = treat[i] - base[i]
	}
	return d, nil
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

func binary(xs []float64) bool {
	for _, x := range xs {
		if x != 0 && x != 1 {
			return false
		}
	}
	return true
}
