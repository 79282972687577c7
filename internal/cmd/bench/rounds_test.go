package bench

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

type fakeFloor struct {
	name  string
	cpu   time.Duration
	fail  bool
	order *[]string
}

func (f *fakeFloor) Name() string { return f.name }
func (f *fakeFloor) Close() error { return nil }
func (f *fakeFloor) Run(context.Context, []string) (floorRun, error) {
	*f.order = append(*f.order, f.name)
	if f.fail {
		return floorRun{}, errors.New("no such program")
	}
	return floorRun{Wall: f.cpu, CPU: f.cpu}, nil
}

// Each round runs the verifier and every floor once, the order rotated
// by one; a ratio pairs the verifier's run with the floor's of the same
// round, so that a machine whose speed changes between rounds (here it
// halves every round) leaves the ratios alone. A floor that fails is
// reported and not run again.
func TestInterleaveRotatesAndPairsRounds(t *testing.T) {
	var order []string
	a := &fakeFloor{name: "a", cpu: 100 * time.Millisecond, order: &order}
	c := &fakeFloor{name: "c", cpu: 60 * time.Millisecond, order: &order}
	b := &fakeFloor{name: "b", fail: true, order: &order}
	// The k-th run of each side is in round k, which runs 2^k times slower.
	runs := map[string]int{}
	slow := func(name string) time.Duration {
		k := runs[name]
		runs[name]++
		return time.Duration(1) << k
	}
	pass := func() (floorRun, error) {
		order = append(order, "v")
		x := slow("v")
		return floorRun{Wall: 120 * time.Millisecond * x, CPU: 120 * time.Millisecond * x}, nil
	}
	run := func(f floorRunner) (floorRun, error) {
		r, err := f.Run(context.Background(), nil)
		x := slow(f.Name())
		r.CPU *= x
		r.Wall *= x
		return r, err
	}
	got, err := interleave(4, pass, []floorRunner{a, b, c}, run)
	if err != nil {
		t.Fatal(err)
	}
	// Round 0: a b c v; round 1: b(failed, left out) c v a; round 2: c v a;
	// round 3: v a c.
	if want := "a b c v c v a c v a v a c"; strings.Join(order, " ") != want {
		t.Errorf("order %v, want %s", order, want)
	}
	if len(got.floors) != 3 || got.floors[1].Err == "" || got.floors[0].Err != "" || got.floors[2].Err != "" {
		t.Fatalf("floors %+v: want a and c timed, b failed", got.floors)
	}
	for i, want := range map[int]float64{0: 1.2, 2: 2} {
		f := got.floors[i]
		if len(f.CPURatios.Rounds) != 4 || f.CPURatio != want || f.CPURatios.Low != want || f.CPURatios.High != want || f.WallRatio != want {
			t.Errorf("%s: ratios %+v, want %.1f in each of 4 rounds", f.Name, f.CPURatios, want)
		}
	}
}
