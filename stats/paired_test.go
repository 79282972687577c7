package stats

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// pairedData makes n per-task scores, averages of 4 runs, for a baseline and
// a treatment whose per-run success chance is shifted by shift.
func pairedData(n int, shift float64, seed uint64) (base, treat []float64) {
	r := rand.New(rand.NewPCG(seed, 7))
	run := func(p float64) float64 {
		c := 0
		for range 4 {
			if r.Float64() < p {
				c++
			}
		}
		return float64(c) / 4
	}
	base, treat = make([]float64, n), make([]float64, n)
	for i := range base {
		p := r.Float64()
		base[i] = run(p)
		treat[i] = run(min(1, max(0, p+shift)))
	}
	return base, treat
}

func TestPairedVerdicts(t *testing.T) {
	for _, tc := range []struct {
		name  string
		shift float64
		want  Verdict
	}{
		{"clear gain", 0.15, VerdictGain},
		{"clear loss", -0.15, VerdictLoss},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base, treat := pairedData(300, tc.shift, 1)
			r, err := Paired(base, treat, 2000, 1)
			if err != nil {
				t.Fatal(err)
			}
			if r.Verdict != tc.want || r.PValue > 1e-4 || r.PMethod != MethodSignFlipMonteCarlo {
				t.Errorf("result %+v, want %s with a tiny Monte Carlo p", r, tc.want)
			}
			if want := Mean(treat) - Mean(base); !near(r.Delta.Value, want, 1e-12) {
				t.Errorf("delta %v, want mean difference %v", r.Delta.Value, want)
			}
			if !r.Delta.Contains(r.Delta.Value) || r.N != 300 || r.Resamples != 2000 || r.McNemar != nil {
				t.Errorf("result %+v", r)
			}
		})
	}
	t.Run("noise", func(t *testing.T) {
		// Every difference has its mirror image: the mean difference is
		// exactly zero and every sign pattern sum is as extreme as another.
		base, treat := pairedData(100, 0.1, 2)
		base = append(base, treat...)
		treat = append(treat, base[:100]...)
		r, err := Paired(base, treat, 2000, 2)
		if err != nil {
			t.Fatal(err)
		}
		if r.Verdict != VerdictNotProven || r.Delta.Value != 0 || !r.Delta.Contains(0) || r.PValue != 1 {
			t.Errorf("mirrored data: %+v", r)
		}
	})
}

// TestPairedBinaryMatchesMcNemar: for 0/1 scores the sign-flip test on the
// differences and the exact McNemar test are the same test.
func TestPairedBinaryMatchesMcNemar(t *testing.T) {
	var base, treat []float64
	add := func(b, tr float64, count int) {
		for range count {
			base, treat = append(base, b), append(treat, tr)
		}
	}
	add(0, 1, 10)
	add(1, 0, 2)
	add(1, 1, 50)
	add(0, 0, 38)
	r, err := Paired(base, treat, 1000, 1)
	if err != nil {
		t.Fatal(err)
	}
	if r.McNemar == nil || r.McNemar.Gains != 10 || r.McNemar.Losses != 2 {
		t.Fatalf("McNemar %+v", r.McNemar)
	}
	if !near(r.McNemar.PValue, 2*79.0/4096, 1e-12) || !near(r.PValue, r.McNemar.PValue, 1e-12) || r.PMethod != MethodSignFlipExact {
		t.Errorf("sign-flip p %v (%s), McNemar p %v, want both 0.0386", r.PValue, r.PMethod, r.McNemar.PValue)
	}
	if !near(r.Delta.Value, 0.08, 1e-15) {
		t.Errorf("delta %v, want 8/100", r.Delta.Value)
	}
}

func TestPairedDeterministic(t *testing.T) {
	base, treat := pairedData(200, 0.03, 3)
	a, _ := Paired(base, treat, 1000, 5)
	b, _ := Paired(base, treat, 1000, 5)
	c, _ := Paired(base, treat, 1000, 6)
	if a != b {
		t.Errorf("same seed: %+v vs %+v", a, b)
	}
	if a.Delta == c.Delta {
		t.Errorf("different seeds, identical interval %v", a.Delta)
	}
}

func TestPairedErrors(t *testing.T) {
	for _, tc := range []struct {
		name        string
		base, treat []float64
		want        string
	}{
		{"lengths", []float64{1, 0}, []float64{1}, "2 baseline scores but 1"},
		{"one task", []float64{1}, []float64{0}, "at least 2 tasks"},
		{"nan", []float64{1, 0}, []float64{math.NaN(), 1}, "task 0 has a non-finite"},
	} {
		if _, err := Paired(tc.base, tc.treat, 10, 1); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err %v, want %q", tc.name, err, tc.want)
		}
	}
	if _, err := PairedClustered([]float64{0, 1}, []float64{1, 1}, []string{"a"}, 10, 1); err == nil || !strings.Contains(err.Error(), "1 cluster labels for 2 tasks") {
		t.Errorf("labels: %v", err)
	}
	if _, err := PairedClustered([]float64{0, 1}, []float64{1, 1}, []string{"a", "a"}, 10, 1); err == nil || !strings.Contains(err.Error(), "at least 2 clusters") {
		t.Errorf("one cluster: %v", err)
	}
}

// TestPairedClusteredSingletons: with every task its own cluster, the cluster
// bootstrap draws the same resamples as the task bootstrap.
func TestPairedClusteredSingletons(t *testing.T) {
	base, treat := pairedData(150, 0.05, 4)
	labels := make([]string, len(base))
	for i := range labels {
		labels[i] = fmt.Sprint("t", i)
	}
	plain, err := Paired(base, treat, 1000, 8)
	if err != nil {
		t.Fatal(err)
	}
	cl, err := PairedClustered(base, treat, labels, 1000, 8)
	if err != nil {
		t.Fatal(err)
	}
	if cl.Delta.Lo != plain.Delta.Lo || cl.Delta.Hi != plain.Delta.Hi || !near(cl.Delta.Value, plain.Delta.Value, 1e-15) {
		t.Errorf("clustered %v, plain %v", cl.Delta, plain.Delta)
	}
	if cl.Clusters != 150 || cl.McNemar != nil {
		t.Errorf("clustered result %+v", cl)
	}
}

// TestPairedClusteredWider: when tasks of one database move together, the
// task bootstrap pretends to know more than it does and the cluster
// bootstrap says so.
func TestPairedClusteredWider(t *testing.T) {
	r := rand.New(rand.NewPCG(6, 6))
	var base, treat []float64
	var labels []string
	for db := range 12 {
		effect := r.NormFloat64() * 0.2
		for range 25 {
			b := r.Float64()
			base = append(base, b)
			treat = append(treat, b+effect+r.NormFloat64()*0.02)
			labels = append(labels, fmt.Sprint("db", db))
		}
	}
	plain, err := Paired(base, treat, 2000, 1)
	if err != nil {
		t.Fatal(err)
	}
	cl, err := PairedClustered(base, treat, labels, 2000, 1)
	if err != nil {
		t.Fatal(err)
	}
	if !near(cl.Delta.Value, plain.Delta.Value, 1e-12) {
		t.Errorf("point estimates differ: %v vs %v", cl.Delta.Value, plain.Delta.Value)
	}
	if w, pw := cl.Delta.Hi-cl.Delta.Lo, plain.Delta.Hi-plain.Delta.Lo; w < 3*pw {
		t.Errorf("cluster width %v, task width %v: want the cluster interval several times wider", w, pw)
	}
	if cl.Clusters != 12 || cl.PMethod != MethodSignFlipExact {
		t.Errorf("clustered %+v", cl)
	}
}

func TestPairedClusteredPValue(t *testing.T) {
	// Cluster sums 2, 1, 1: of the 8 sign patterns only ±4 reach 4.
	r, err := PairedClustered([]float64{0, 0, 0, 0}, []float64{1, 1, 1, 1}, []string{"a", "a", "b", "c"}, 100, 1)
	if err != nil {
		t.Fatal(err)
	}
	if r.PValue != 0.25 || r.Delta != (Interval{1, 1, 1}) || r.Verdict != VerdictGain {
		t.Errorf("result %+v, want p 0.25 and delta 1", r)
	}
	// The same four tasks unclustered: 2 of 16 patterns.
	p, err := Paired([]float64{0, 0, 0, 0}, []float64{1, 1, 1, 1}, 100, 1)
	if err != nil {
		t.Fatal(err)
	}
	if p.PValue != 0.125 {
		t.Errorf("unclustered p %v, want 0.125", p.PValue)
	}
}

func TestVerdictOf(t *testing.T) {
	for _, tc := range []struct {
		iv   Interval
		want Verdict
	}{
		{Interval{0.05, 0.01, 0.09}, VerdictGain},
		{Interval{-0.05, -0.09, -0.01}, VerdictLoss},
		{Interval{0.05, 0, 0.09}, VerdictNotProven},
		{Interval{0.01, -0.02, 0.04}, VerdictNotProven},
		{nanInterval, VerdictNotProven},
	} {
		if got := VerdictOf(tc.iv); got != tc.want {
			t.Errorf("VerdictOf(%v) = %s, want %s", tc.iv, got, tc.want)
		}
	}
}
