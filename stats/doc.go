// Package stats is the arithmetic of benchmarks and comparisons: unbiased
// pass@k and pass^k, percentile bootstrap intervals over tasks, paired and
// cluster-paired comparisons with exact p-values (sign-flip permutation and
// McNemar), verdicts against pre-registered criteria, and the number of tasks
// a given precision needs.
//
// It uses only the standard library. Every resampling is seeded and draws
// from math/rand/v2's PCG through this package's own bounded-integer step,
// and floating-point products that feed a sum are rounded explicitly, so the
// same inputs and seed give bit-identical intervals on every platform.
// docs/statistics.md explains each estimator and interval.
package stats
