package stats

import (
	"encoding/json"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func TestSummarizeHandComputed(t *testing.T) {
	tasks := []TaskCounts{{4, 1}, {4, 2}, {4, 4}, {4, 0}}
	s, err := Summarize(tasks, 2, 500, 3)
	if err != nil {
		t.Fatal(err)
	}
	// pass@1: (1/4 + 2/4 + 1 + 0)/4.
	// pass@2 per task: 1-C(3,2)/C(4,2) = 1/2, 1-C(2,2)/C(4,2) = 5/6, 1, 0.
	// pass^2 per task: 0, C(2,2)/C(4,2) = 1/6, 1, 0.
	checks := []struct {
		name      string
		got, want float64
	}{
		{"pass@1", s.PassAt1.Value, 1.75 / 4},
		{"pass@2", s.PassAtK.Value, (0.5 + 5.0/6 + 1) / 4},
		{"pass^2", s.PassHatK.Value, (1.0/6 + 1) / 4},
	}
	for _, c := range checks {
		if !near(c.got, c.want, 1e-15) {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	if !slices.Equal(s.Histogram, []int{1, 1, 1, 0, 1}) {
		t.Errorf("histogram %v, want [1 1 1 0 1]", s.Histogram)
	}
	if s.Tasks != 4 || s.Scored != 4 || s.KTasks != 4 || s.ExcludedForK != 0 || s.Samples != 16 || s.K != 2 {
		t.Errorf("counts %+v", s)
	}
	if !maps.Equal(s.SamplesPerTask, map[int]int{4: 4}) || !slices.Equal(s.Ns(), []int{4}) {
		t.Errorf("samples per task %v", s.SamplesPerTask)
	}
	if s.Resamples != 500 || s.Seed != 3 {
		t.Errorf("resamples %d seed %d", s.Resamples, s.Seed)
	}
	if want := BootstrapMean(Rates(tasks), 500, 3); s.PassAt1 != want {
		t.Errorf("pass@1 interval %v, BootstrapMean of the rates %v", s.PassAt1, want)
	}
	if !near(s.SD, SD(Rates(tasks)), 0) {
		t.Errorf("SD %v", s.SD)
	}
}

// TestSummarizeMissingSamples: a task with fewer than k samples enters
// pass@1 only, and a task with none enters nothing.
func TestSummarizeMissingSamples(t *testing.T) {
	tasks := []TaskCounts{{4, 2}, {2, 1}, {0, 0}, {3, 3}}
	s, err := Summarize(tasks, 3, 200, 1)
	if err != nil {
		t.Fatal(err)
	}
	if s.Tasks != 4 || s.Scored != 3 || s.KTasks != 2 || s.ExcludedForK != 1 || s.Samples != 9 {
		t.Errorf("counts %+v", s)
	}
	if !slices.Equal(s.Ns(), []int{0, 2, 3, 4}) {
		t.Errorf("Ns %v", s.Ns())
	}
	if want := (0.5 + 0.5 + 1) / 3; !near(s.PassAt1.Value, want, 1e-15) {
		t.Errorf("pass@1 %v, want %v", s.PassAt1.Value, want)
	}
	// pass@3: 1-C(2,3)/C(4,3) = 1 and 1; pass^3: 0 and 1.
	if s.PassAtK.Value != 1 || s.PassHatK.Value != 0.5 {
		t.Errorf("pass@3 %v pass^3 %v, want 1 and 0.5", s.PassAtK.Value, s.PassHatK.Value)
	}
}

func TestSummarizeNoTaskReachesK(t *testing.T) {
	s, err := Summarize([]TaskCounts{{2, 1}, {2, 2}}, 5, 100, 1)
	if err != nil {
		t.Fatal(err)
	}
	if s.KTasks != 0 || s.ExcludedForK != 2 || s.PassAtK.Valid() || s.PassHatK.Valid() || !s.PassAt1.Valid() {
		t.Errorf("summary %+v", s)
	}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatalf("marshal: %v", err)
	}
	if !strings.Contains(string(b), `"pass_at_k":{"value":null,"lo":null,"hi":null}`) {
		t.Errorf("JSON %s", b)
	}
}

func TestSummarizeErrors(t *testing.T) {
	for _, tc := range []struct {
		name  string
		tasks []TaskCounts
		k     int
		want  string
	}{
		{"c above n", []TaskCounts{{4, 1}, {4, 5}}, 1, "task 1 has 5 right of 4"},
		{"negative c", []TaskCounts{{4, -1}}, 1, "task 0"},
		{"negative n", []TaskCounts{{-1, 0}}, 1, "task 0"},
		{"k zero", []TaskCounts{{4, 1}}, 0, "k must be at least 1"},
		{"no samples", []TaskCounts{{0, 0}}, 1, "no task has any sample"},
		{"no tasks", nil, 1, "no task has any sample"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Summarize(tc.tasks, tc.k, 10, 1)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want it to mention %q", err, tc.want)
			}
		})
	}
}

// TestSummarizeProperties: per task pass^k <= c/n <= pass@k, so the means are
// ordered the same way; with k = 1 all three coincide, intervals included.
func TestSummarizeProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	for trial := range 50 {
		tasks := make([]TaskCounts, 20+r.IntN(100))
		for i := range tasks {
			n := 1 + r.IntN(10)
			tasks[i] = TaskCounts{N: n, C: r.IntN(n + 1)}
		}
		k := 1 + r.IntN(4)
		s, err := Summarize(tasks, k, 200, uint64(trial))
		if err != nil {
			t.Fatal(err)
		}
		if s.KTasks == s.Scored && !(s.PassHatK.Value <= s.PassAt1.Value+1e-12 && s.PassAt1.Value <= s.PassAtK.Value+1e-12) {
			t.Errorf("trial %d: pass^%d %v, pass@1 %v, pass@%d %v out of order", trial, k, s.PassHatK.Value, s.PassAt1.Value, k, s.PassAtK.Value)
		}
		for _, iv := range []Interval{s.PassAt1, s.PassAtK, s.PassHatK} {
			if iv.Valid() && (iv.Lo < 0 || iv.Hi > 1 || iv.Lo > iv.Hi) {
				t.Errorf("trial %d: interval %v outside [0,1]", trial, iv)
			}
		}
		sum := 0
		for _, h := range s.Histogram {
			sum += h
		}
		if sum != len(tasks) {
			t.Errorf("trial %d: histogram holds %d tasks of %d", trial, sum, len(tasks))
		}
		one, err := Summarize(tasks, 1, 200, uint64(trial))
		if err != nil {
			t.Fatal(err)
		}
		if one.PassAtK != one.PassAt1 || one.PassHatK != one.PassAt1 {
			t.Errorf("trial %d: k=1 gives %v, %v, %v", trial, one.PassAt1, one.PassAtK, one.PassHatK)
		}
	}
}

// TestSummarizeSharedDraws: the one-pass bootstrap Summarize uses when every
// task reaches k gives exactly the intervals of separate BootstrapMean calls.
func TestSummarizeSharedDraws(t *testing.T) {
	tasks := benchTasks(300)
	s, err := Summarize(tasks, 3, 700, 21)
	if err != nil {
		t.Fatal(err)
	}
	var p1, pk, phk []float64
	for _, tc := range tasks {
		p1 = append(p1, PassAtK(tc.N, tc.C, 1))
		pk = append(pk, PassAtK(tc.N, tc.C, 3))
		phk = append(phk, PassHatK(tc.N, tc.C, 3))
	}
	for _, c := range []struct {
		name      string
		got, want Interval
	}{
		{"pass@1", s.PassAt1, BootstrapMean(p1, 700, 21)},
		{"pass@3", s.PassAtK, BootstrapMean(pk, 700, 21)},
		{"pass^3", s.PassHatK, BootstrapMean(phk, 700, 21)},
	} {
		if c.got != c.want {
			t.Errorf("%s: Summarize %v, BootstrapMean %v", c.name, c.got, c.want)
		}
	}
}

// Ns returns the distinct sample counts in increasing order.
func (s Summary) Ns() []int { return slices.Sorted(maps.Keys(s.SamplesPerTask)) }
