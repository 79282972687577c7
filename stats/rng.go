package stats

import (
	"math/bits"
	"math/rand/v2"
)

// pcgStream is the fixed second PCG seed word: callers pass one uint64 seed,
// and changing this constant would change every published interval.
const pcgStream = 0x73716c67796d5354

// source draws the package's random numbers. It wraps PCG directly instead of
// rand.Rand because Rand's bounded-integer algorithms are not promised to stay
// the same across Go releases, and reproducible intervals need that promise.
type source struct{ pcg *rand.PCG }

func newSource(seed uint64) *source { return &source{pcg: rand.NewPCG(seed, pcgStream)} }

func (s *source) uint64() uint64 { return s.pcg.Uint64() }

// intn returns a uniform integer in [0, n) by multiply-and-shift with
// rejection of the few low products that would bias the result (Lemire 2019).
func (s *source) intn(n int) int {
	un := uint64(n)
	hi, lo := bits.Mul64(s.pcg.Uint64(), un)
	if lo < un {
		threshold := -un % un
		for lo < threshold {
			hi, lo = bits.Mul64(s.pcg.Uint64(), un)
		}
	}
	return int(hi)
}
