package stats

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// rates4 makes n per-task pass@1 values of a run with 4 samples per task,
// from a mix of easy, hard and middling tasks like a real benchmark's.
func rates4(n int, seed uint64) []float64 {
	r := rand.New(rand.NewPCG(seed, 1))
	out := make([]float64, n)
	for i := range out {
		p := 0.0
		switch u := r.Float64(); {
		case u < 0.45:
			p = 0.95
		case u < 0.75:
			p = 0.05
		default:
			p = r.Float64()
		}
		c := 0
		for range 4 {
			if r.Float64() < p {
				c++
			}
		}
		out[i] = float64(c) / 4
	}
	return out
}

func TestQuantileSorted(t *testing.T) {
	s := []float64{1, 2, 3, 4, 5}
	for _, tc := range []struct{ q, want float64 }{{0, 1}, {1, 5}, {0.25, 2}, {0.1, 1.4}, {0.5, 3}, {0.975, 4.9}} {
		if got := quantileSorted(s, tc.q); !near(got, tc.want, 1e-12) {
			t.Errorf("quantile(%v) = %v, want %v", tc.q, got, tc.want)
		}
	}
	if got := quantileSorted([]float64{7}, 0.025); got != 7 {
		t.Errorf("quantile of one value = %v", got)
	}
}

func TestMeanSD(t *testing.T) {
	if m := Mean([]float64{1, 2, 3, 4}); m != 2.5 {
		t.Errorf("Mean = %v", m)
	}
	// Squared deviations 2.25+0.25+0.25+2.25 = 5 over 3.
	if sd := SD([]float64{1, 2, 3, 4}); !near(sd, math.Sqrt(5.0/3), 1e-15) {
		t.Errorf("SD = %v", sd)
	}
	if !math.IsNaN(Mean(nil)) || !math.IsNaN(SD([]float64{1})) {
		t.Error("Mean(nil) and SD of one value should be NaN")
	}
}

func TestIntnRangeAndUniformity(t *testing.T) {
	src := newSource(7)
	const n, draws = 7, 70_000
	var counts [n]int
	for range draws {
		counts[src.intn(n)]++
	}
	for i, c := range counts {
		// Expected 10000, sd about 93: 500 is over five sd.
		if c < 9500 || c > 10500 {
			t.Errorf("intn(7) drew %d %d times of %d", i, c, draws)
		}
	}
	for range 1000 {
		if src.intn(1) != 0 {
			t.Fatal("intn(1) != 0")
		}
		// A bound near the top of int, where rejection matters most.
		const big = math.MaxInt - math.MaxInt/3
		if v := src.intn(big); v < 0 || v >= big {
			t.Fatalf("intn(%d) = %d", big, v)
		}
	}
}

func TestBootstrapDeterministic(t *testing.T) {
	v := rates4(300, 1)
	a := BootstrapMean(v, 2000, 42)
	b := BootstrapMean(v, 2000, 42)
	if a != b {
		t.Errorf("same seed, different intervals: %v vs %v", a, b)
	}
	if c := BootstrapMean(v, 2000, 43); c == a {
		t.Errorf("different seeds gave the identical interval %v", c)
	}
	if d := BootstrapMean(v, 0, 42); d != a {
		t.Errorf("b=0 should mean DefaultResamples: %v vs %v", d, a)
	}
}

// TestBootstrapGolden pins the interval for one input and seed, bit for bit.
// It fails if the generator, the bounded draw, the summation order or the
// percentile rule change, which would silently change published intervals;
// it is also the test to run under other GOARCH/GOAMD64 settings.
func TestBootstrapGolden(t *testing.T) {
	const goldenLo, goldenHi = 0x3fdb6be35261fc3c, 0x3fe0bc3182907982
	// Square roots are correctly rounded everywhere and make every sum and
	// interpolation round, so the pin exercises the arithmetic, not just the
	// draws.
	v := make([]float64, 53)
	for i := range v {
		v[i] = math.Sqrt(float64(i)) / 10
	}
	got := BootstrapMean(v, 2000, 20260101)
	want := Interval{Value: Mean(v), Lo: math.Float64frombits(goldenLo), Hi: math.Float64frombits(goldenHi)}
	if got != want {
		t.Errorf("BootstrapMean = %v (bits %#x, %#x), pinned %v", got, math.Float64bits(got.Lo), math.Float64bits(got.Hi), want)
	}
}

func TestBootstrapMatchesGeneric(t *testing.T) {
	v := rates4(200, 2)
	lo, hi := Bootstrap(v, 1000, 9, Mean)
	iv := BootstrapMean(v, 1000, 9)
	if lo != iv.Lo || hi != iv.Hi {
		t.Errorf("Bootstrap(Mean) = [%v, %v], BootstrapMean = %v", lo, hi, iv)
	}
	// A statistic that reorders its scratch slice must not disturb values.
	before := slices.Clone(v)
	median := func(xs []float64) float64 { slices.Sort(xs); return xs[len(xs)/2] }
	mlo, mhi := Bootstrap(v, 500, 9, median)
	if !slices.Equal(v, before) {
		t.Error("Bootstrap changed its input")
	}
	if mlo > mhi || mlo < 0 || mhi > 1 {
		t.Errorf("median interval [%v, %v]", mlo, mhi)
	}
}

func TestBootstrapContainsEstimateAndShrinks(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		v := rates4(150, seed)
		iv := BootstrapMean(v, 1000, seed)
		if !iv.Contains(iv.Value) || iv.Lo >= iv.Hi {
			t.Errorf("seed %d: interval %v does not surround its estimate", seed, iv)
		}
	}
	small := BootstrapMean(rates4(100, 5), 2000, 1)
	large := BootstrapMean(rates4(1000, 5), 2000, 1)
	// Width goes as 1/sqrt(N): ten times the tasks, about a third the width.
	ratio := (small.Hi - small.Lo) / (large.Hi - large.Lo)
	if ratio < 2.4 || ratio > 4 {
		t.Errorf("width ratio 100 vs 1000 tasks = %v (small %v, large %v), want about 3.2", ratio, small, large)
	}
}

// TestBootstrapCoverage checks what the interval is for: over many runs of a
// benchmark whose true rate is known, about 95% of intervals hold it.
func TestBootstrapCoverage(t *testing.T) {
	const runs, tasks, truth = 300, 200, 0.3
	r := rand.New(rand.NewPCG(99, 2))
	covered := 0
	v := make([]float64, tasks)
	for run := range runs {
		for i := range v {
			v[i] = 0
			if r.Float64() < truth {
				v[i] = 1
			}
		}
		if BootstrapMean(v, 500, uint64(run)).Contains(truth) {
			covered++
		}
	}
	// Binomial(300, 0.95) has sd about 3.8: 270..298 is a wide band, and a
	// broken interval (too narrow or too wide) lands outside it.
	if covered < 270 || covered > 298 {
		t.Errorf("coverage %d/%d, want about 285", covered, runs)
	}
}

func TestBootstrapDegenerate(t *testing.T) {
	iv := BootstrapMean([]float64{0.5, 0.5, 0.5}, 100, 1)
	if iv != (Interval{0.5, 0.5, 0.5}) {
		t.Errorf("constant values: %v", iv)
	}
	if iv := BootstrapMean(nil, 100, 1); iv.Valid() {
		t.Errorf("no values: %v, want NaN", iv)
	}
	if lo, hi := Bootstrap(nil, 100, 1, Mean); !math.IsNaN(lo) || !math.IsNaN(hi) {
		t.Errorf("Bootstrap(nil) = %v, %v", lo, hi)
	}
}

func TestIntervalJSON(t *testing.T) {
	b, err := json.Marshal(struct{ A, B Interval }{Interval{0.5, 0.25, 0.75}, nanInterval})
	if err != nil {
		t.Fatal(err)
	}
	if s := string(b); !strings.Contains(s, `"A":{"value":0.5,"lo":0.25,"hi":0.75}`) || !strings.Contains(s, `"B":{"value":null,"lo":null,"hi":null}`) {
		t.Errorf("JSON = %s", s)
	}
	var back struct{ A, B Interval }
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back.A != (Interval{0.5, 0.25, 0.75}) || back.B.Valid() {
		t.Errorf("round trip = %+v", back)
	}
	if iv := (Interval{0.5, 0.4, 0.7}); !near(iv.HalfWidth(), 0.15, 1e-15) || iv.String() != "0.5000 [0.4000, 0.7000]" {
		t.Errorf("HalfWidth/String = %v %q", iv.HalfWidth(), iv.String())
	}
}

// Bootstrap returns the 95% percentile bootstrap interval of stat: b times it
// draws len(values) values with replacement (seeded by seed), applies stat,
// and takes the 2.5th and 97.5th percentiles of the b results (linear
// interpolation between order statistics). b <= 0 means DefaultResamples.
// stat receives a scratch slice it may reorder; it should not return NaN.
// No values give NaN, NaN.
func Bootstrap(values []float64, b int, seed uint64, stat func([]float64) float64) (lo, hi float64) {
	if len(values) == 0 {
		return math.NaN(), math.NaN()
	}
	b = resamples(b)
	src := newSource(seed)
	n := len(values)
	buf := make([]float64, n)
	stats := make([]float64, b)
	for r := range stats {
		for i := range buf {
			buf[i] = values[src.intn(n)]
		}
		stats[r] = stat(buf)
	}
	return percentileInterval(stats)
}
