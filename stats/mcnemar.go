package stats

import "math"

// McNemarExact is the two-sided exact McNemar p-value for paired 0/1
// outcomes: with gains tasks wrong before and right after, and losses the
// reverse, it is the two-sided binomial test of gains out of gains+losses
// discordant pairs against one half, min(1, 2 * P(X <= min(gains, losses)))
// for X ~ Binomial(gains+losses, 1/2). No discordant pair gives 1; negative
// counts give NaN.
func McNemarExact(gains, losses int) float64 {
	if gains < 0 || losses < 0 {
		return math.NaN()
	}
	n := gains + losses
	if n == 0 {
		return 1
	}
	tail := binomialHalfCDF(n, min(gains, losses))
	return math.Min(1, 2*tail)
}

// binomialHalfCDF is P(X <= m) for X ~ Binomial(n, 1/2), summed in log space
// because 2^-n underflows long before n stops being a plausible task count.
func binomialHalfCDF(n, m int) float64 {
	lgN1, _ := math.Lgamma(float64(n + 1))
	logHalfN := float64(float64(n) * math.Ln2)
	logTerms := make([]float64, m+1)
	top := math.Inf(-1)
	for i := 0; i <= m; i++ {
		lgI, _ := math.Lgamma(float64(i + 1))
		lgNI, _ := math.Lgamma(float64(n - i + 1))
		logTerms[i] = lgN1 - lgI - lgNI - logHalfN
		top = math.Max(top, logTerms[i])
	}
	s := 0.0
	for _, lt := range logTerms {
		s += math.Exp(lt - top)
	}
	return math.Min(1, math.Exp(top+math.Log(s)))
}
