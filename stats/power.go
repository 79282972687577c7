package stats

import (
	"fmt"
	"math"
)

// z975 is the 97.5th percentile of the standard normal: a 95% two-sided
// interval is the estimate plus or minus z975 standard errors.
const z975 = 1.959963984540054

// HalfWidth is the normal-approximation half-width of the 95% interval of a
// mean over n tasks whose per-task scores (or paired differences) have
// standard deviation sd: z975 * sd / sqrt(n). NaN for n < 1 or sd < 0.
func HalfWidth(sd float64, n int) float64 {
	if n < 1 || sd < 0 || math.IsNaN(sd) {
		return math.NaN()
	}
	return z975 * sd / math.Sqrt(float64(n))
}

// TasksForHalfWidth is the smallest number of tasks N for which HalfWidth(sd,
// N) <= delta: ceil((z975 * sd / delta)^2), at least 1. delta must be
// positive and sd non-negative.
func TasksForHalfWidth(sd, delta float64) (int, error) {
	if !(delta > 0) || math.IsInf(delta, 0) {
		return 0, fmt.Errorf("tasks for half-width: delta must be a positive number, got %v", delta)
	}
	if !(sd >= 0) || math.IsInf(sd, 0) {
		return 0, fmt.Errorf("tasks for half-width: sd must be a non-negative number, got %v", sd)
	}
	r := z975 * sd / delta
	n := int(math.Ceil(float64(r * r)))
	// Rounding in r*r can land a hair above an integer that already meets
	// the bar; step back while the smaller N still does.
	for n > 1 && HalfWidth(sd, n-1) <= delta {
		n--
	}
	return max(n, 1), nil
}

// Power is how precise a run is and how many tasks a target precision needs.
type Power struct {
	// N and SD describe the given per-task values; HalfWidth is the normal
	// half-width at N.
	N         int     `json:"n"`
	SD        float64 `json:"sd"`
	HalfWidth float64 `json:"half_width"`
	// Delta is the target half-width and NeededN the tasks that reach it by
	// the normal approximation.
	Delta   float64 `json:"delta"`
	NeededN int     `json:"needed_n"`
	// BootstrapHalfWidth checks NeededN without the normal approximation:
	// the half-width of the percentile interval of means of NeededN tasks
	// drawn from the given values. BootstrapChecked is false (and the
	// field 0) when that would cost more than PowerBootstrapBudget draws.
	BootstrapHalfWidth float64 `json:"bootstrap_half_width"`
	BootstrapChecked   bool    `json:"bootstrap_checked"`
}

// PowerBootstrapBudget caps the random draws Plan spends on its bootstrap
// check (resamples times NeededN): a few tens of milliseconds.
const PowerBootstrapBudget = 20_000_000

// Plan measures values (per-task scores of one run, or per-task paired
// differences) and works out the tasks needed for a 95% half-width of delta,
// with a seeded bootstrap check at that N (b resamples, b <= 0 meaning
// DefaultResamples) when it is cheap. At least two values are needed.
func Plan(values []float64, delta float64, b int, seed uint64) (Power, error) {
	if len(values) < 2 {
		return Power{}, fmt.Errorf("plan: need at least 2 per-task values, got %d", len(values))
	}
	for i, v := range values {
		if !finite(v) {
			return Power{}, fmt.Errorf("plan: value %d is %v", i, v)
		}
	}
	sd := SD(values)
	need, err := TasksForHalfWidth(sd, delta)
	if err != nil {
		return Power{}, fmt.Errorf("plan: %w", err)
	}
	p := Power{N: len(values), SD: sd, HalfWidth: HalfWidth(sd, len(values)), Delta: delta, NeededN: need}
	b = resamples(b)
	if float64(b)*float64(need) <= PowerBootstrapBudget {
		p.BootstrapHalfWidth = BootstrapHalfWidthAt(values, need, b, seed)
		p.BootstrapChecked = true
	}
	return p, nil
}

// BootstrapHalfWidthAt is half the width of the 95% percentile interval of
// the mean of n tasks drawn with replacement from values: what the bootstrap
// interval of a run of n tasks like these would look like. b <= 0 means
// DefaultResamples; no values or n < 1 gives NaN.
func BootstrapHalfWidthAt(values []float64, n, b int, seed uint64) float64 {
	if len(values) == 0 || n < 1 {
		return math.NaN()
	}
	lo, hi := percentileInterval(resampledMeans(values, n, resamples(b), seed))
	return (hi - lo) / 2
}
