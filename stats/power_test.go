package stats

import (
	"math"
	"strings"
	"testing"
)

// TestHalfWidthSeedNumbers reproduces the seed's lesson: with a per-task
// pass@1 sd of about 0.36 (4 samples per task), 140 tasks gave a band of
// about six points and 459 tasks about three and a half.
func TestHalfWidthSeedNumbers(t *testing.T) {
	if hw := HalfWidth(0.36, 140); hw < 0.055 || hw > 0.065 {
		t.Errorf("HalfWidth(0.36, 140) = %v, want about 0.06", hw)
	}
	if hw := HalfWidth(0.36, 459); hw < 0.030 || hw > 0.037 {
		t.Errorf("HalfWidth(0.36, 459) = %v, want about 0.035", hw)
	}
	// 1.96 * 0.36 / sqrt(140), by hand.
	if hw := HalfWidth(0.36, 140); !near(hw, 1.96*0.36/math.Sqrt(140), 1e-4) {
		t.Errorf("HalfWidth(0.36, 140) = %v", hw)
	}
	n, err := TasksForHalfWidth(0.36, 0.06)
	if err != nil || n < 135 || n > 142 {
		t.Errorf("TasksForHalfWidth(0.36, 0.06) = %d, %v, want about 140", n, err)
	}
	for _, bad := range []float64{-1, 2} {
		if hw := HalfWidth(bad, 0); !math.IsNaN(hw) {
			t.Errorf("HalfWidth(%v, 0) = %v, want NaN", bad, hw)
		}
	}
}

// TestTasksForHalfWidthIsSmallest: the answer meets the bar and one task
// fewer does not.
func TestTasksForHalfWidthIsSmallest(t *testing.T) {
	for _, sd := range []float64{0.05, 0.2, 0.36, 0.5, 0.41234} {
		for _, delta := range []float64{0.01, 0.02, 0.035, 0.06, 0.1, 0.3} {
			n, err := TasksForHalfWidth(sd, delta)
			if err != nil {
				t.Fatal(err)
			}
			if HalfWidth(sd, n) > delta || (n > 1 && HalfWidth(sd, n-1) <= delta) {
				t.Errorf("sd %v delta %v: N = %d, half-widths %v at N and %v at N-1", sd, delta, n, HalfWidth(sd, n), HalfWidth(sd, n-1))
			}
		}
	}
	// On the boundary, (z sd / delta)^2 = 100 in real numbers: 100, or 101
	// if rounding leaves HalfWidth at 100 a hair above delta.
	if n, _ := TasksForHalfWidth(0.5, z975*0.5/10); n != 100 && !(n == 101 && HalfWidth(0.5, 100) > z975*0.5/10) {
		t.Errorf("boundary case gave %d, want 100", n)
	}
	if n, _ := TasksForHalfWidth(0, 0.05); n != 1 {
		t.Errorf("sd 0 gave %d, want 1", n)
	}
	for _, tc := range [][2]float64{{0.3, 0}, {0.3, -0.1}, {0.3, math.NaN()}, {-0.1, 0.05}, {math.NaN(), 0.05}, {math.Inf(1), 0.05}} {
		if _, err := TasksForHalfWidth(tc[0], tc[1]); err == nil {
			t.Errorf("TasksForHalfWidth(%v, %v) gave no error", tc[0], tc[1])
		}
	}
}

// TestPlanBootstrapAgrees: on benchmark-like scores the bootstrap half-width
// at the proposed N is close to the normal one, and at the current N the
// bootstrap interval of the run itself matches HalfWidth.
func TestPlanBootstrapAgrees(t *testing.T) {
	v := rates4(459, 11)
	p, err := Plan(v, 0.035, 2000, 1)
	if err != nil {
		t.Fatal(err)
	}
	if p.SD < 0.3 || p.SD > 0.45 {
		t.Fatalf("benchmark-like sd %v, expected near 0.36", p.SD)
	}
	if p.N != 459 || !near(p.HalfWidth, HalfWidth(p.SD, 459), 0) || p.Delta != 0.035 {
		t.Errorf("plan %+v", p)
	}
	if !p.BootstrapChecked || math.Abs(p.BootstrapHalfWidth-0.035)/0.035 > 0.1 {
		t.Errorf("bootstrap half-width at N=%d is %v, want about 0.035", p.NeededN, p.BootstrapHalfWidth)
	}
	run := BootstrapMean(v, 2000, 2)
	if math.Abs(run.HalfWidth()-p.HalfWidth)/p.HalfWidth > 0.1 {
		t.Errorf("run's bootstrap half-width %v, normal %v", run.HalfWidth(), p.HalfWidth)
	}
	// Four times the tasks, half the width.
	if r := BootstrapHalfWidthAt(v, 100, 2000, 3) / BootstrapHalfWidthAt(v, 400, 2000, 3); r < 1.8 || r > 2.2 {
		t.Errorf("half-width ratio 100 vs 400 tasks = %v, want about 2", r)
	}
}

func TestPlanLimits(t *testing.T) {
	v := rates4(100, 12)
	p, err := Plan(v, 0.0005, 2000, 1)
	if err != nil {
		t.Fatal(err)
	}
	if p.BootstrapChecked || p.BootstrapHalfWidth != 0 || p.NeededN < 100_000 {
		t.Errorf("a 0.05-point bar should need too many tasks to check cheaply: %+v", p)
	}
	if _, err := Plan([]float64{0.5}, 0.05, 10, 1); err == nil || !strings.Contains(err.Error(), "at least 2") {
		t.Errorf("one value: %v", err)
	}
	if _, err := Plan([]float64{0.5, math.Inf(1)}, 0.05, 10, 1); err == nil {
		t.Error("infinite value accepted")
	}
	if _, err := Plan(v, 0, 10, 1); err == nil || !strings.Contains(err.Error(), "delta must be") {
		t.Errorf("zero delta: %v", err)
	}
	if !math.IsNaN(BootstrapHalfWidthAt(nil, 10, 10, 1)) || !math.IsNaN(BootstrapHalfWidthAt(v, 0, 10, 1)) {
		t.Error("BootstrapHalfWidthAt without values or tasks should be NaN")
	}
}
