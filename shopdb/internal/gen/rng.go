package gen

import "math/rand/v2"

// rng draws everything from PCG's raw 64-bit stream. The PCG algorithm is
// specified, but the way rand.Rand derives IntN and friends is not promised
// to stay fixed across Go releases, so the derivations live here.
type rng struct{ src *rand.PCG }

func newRNG(seed1, seed2 uint64) *rng { return &rng{src: rand.NewPCG(seed1, seed2)} }

// intn returns a number in [0, n). The modulo bias is far below anything
// the data could show.
func (r *rng) intn(n int) int {
	if n <= 0 {
		panic("gen: intn of a non-positive bound")
	}
	return int(r.src.Uint64() % uint64(n))
}

// between returns a number in [lo, hi].
func (r *rng) between(lo, hi int) int { return lo + r.intn(hi-lo+1) }

// percent is true with probability p/100. Integers only: floating point
// could round differently where the compiler fuses operations.
func (r *rng) percent(p int) bool { return r.intn(100) < p }

// pick returns one element of xs.
func pick[T any](r *rng, xs []T) T { return xs[r.intn(len(xs))] }

// weighted returns an index drawn with the given integer weights.
func (r *rng) weighted(weights []int) int {
	total := 0
	for _, w := range weights {
		total += w
	}
	x := r.intn(total)
	for i, w := range weights {
		if x < w {
			return i
		}
		x -= w
	}
	panic("gen: weighted draw out of range")
}

// shuffle permutes xs in place (Fisher-Yates).
func shuffle[T any](r *rng, xs []T) {
	for i := len(xs) - 1; i > 0; i-- {
		j := r.intn(i + 1)
		xs[i], xs[j] = xs[j], xs[i]
	}
}
