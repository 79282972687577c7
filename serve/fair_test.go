package serve

import (
	"context"
	"testing"
	"time"
)

// enter takes a slot for ctx's request on db, failing the test when it
// does not come within a second.
func enter(t *testing.T, g *fairGate, ctx context.Context, db string) func() {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	leave, err := g.Enter(ctx, db)
	if err != nil {
		t.Fatalf("no slot on %s: %v", db, err)
	}
	return leave
}

// waitFor starts Enter in the background and waits until it queues.
func waitFor(t *testing.T, g *fairGate, ctx context.Context, db string) <-chan func() {
	t.Helper()
	_, before := g.stats()
	got := make(chan func(), 1)
	go func() {
		leave, err := g.Enter(ctx, db)
		if err == nil {
			got <- leave
		}
	}()
	for i := 0; ; i++ {
		if _, n := g.stats(); n > before {
			return got
		}
		if i > 5000 {
			t.Fatal("Enter never queued")
		}
		time.Sleep(time.Millisecond)
	}
}

func granted(c <-chan func()) bool {
	select {
	case leave := <-c:
		leave()
		return true
	case <-time.After(50 * time.Millisecond):
		return false
	}
}

// A request holding slots leaves the last one to a request holding none,
// which starts at once however many statements the first has waiting.
func TestFairGateKeepsASlotForANewRequest(t *testing.T) {
	g := newFairGate(4, 8, func(string, int) {})
	big := withFlow(context.Background())
	for i := 0; i < 3; i++ {
		defer enter(t, g, big, "db")()
	}
	fourth := waitFor(t, g, big, "db")
	small := withFlow(context.Background())
	leave := enter(t, g, small, "db") // at once: the reserve
	if running, waiting := g.stats(); running != 4 || waiting != 1 {
		t.Fatalf("running %d waiting %d, want 4 and 1", running, waiting)
	}
	// Another database is a share of its own.
	enter(t, g, big, "other")()
	leave()
	if granted(fourth) {
		t.Fatal("the big request took the reserve slot")
	}
}

// A freed slot goes to the waiting request that holds the fewest, not to
// the one that asked first.
func TestFairGateServesTheRequestHoldingFewest(t *testing.T) {
	g := newFairGate(3, 3, func(string, int) {})
	a, b, c := withFlow(context.Background()), withFlow(context.Background()), withFlow(context.Background())
	a1, a2 := enter(t, g, a, "db"), enter(t, g, a, "db")
	b1 := enter(t, g, b, "db")
	a3 := waitFor(t, g, a, "db")
	b2 := waitFor(t, g, b, "db")
	c1 := waitFor(t, g, c, "db")
	a1()
	if !granted(c1) {
		t.Fatal("c, holding nothing, did not get the freed slot")
	}
	// c gave its slot back at once (granted leaves): one slot is free,
	// the reserve, and a and b each hold one.
	if granted(a3) || granted(b2) {
		t.Fatal("a request holding a slot took the reserve")
	}
	b1()
	if !granted(b2) {
		t.Fatal("b, holding nothing now, did not get a slot")
	}
	a2()
	if !granted(a3) {
		t.Fatal("a, holding nothing now, did not get a slot")
	}
	if running, waiting := g.stats(); running != 0 || waiting != 0 {
		t.Fatalf("running %d waiting %d after every slot was given back", running, waiting)
	}
}

// A statement whose request ends while it waits leaves the queue, and a
// slot granted at that moment goes to the next one.
func TestFairGateCancelledWait(t *testing.T) {
	var depth int
	g := newFairGate(1, 1, func(_ string, d int) { depth += d })
	leave := enter(t, g, withFlow(context.Background()), "db")
	ctx, cancel := context.WithTimeout(withFlow(context.Background()), 20*time.Millisecond)
	defer cancel()
	if _, err := g.Enter(ctx, "db"); err == nil {
		t.Fatal("Enter succeeded with every slot taken")
	}
	if _, waiting := g.stats(); waiting != 0 || depth != 0 {
		t.Fatalf("waiting %d, queue metric %d after the wait ended, want 0", waiting, depth)
	}
	leave()
	enter(t, g, withFlow(context.Background()), "db")()
}

// A step holding a slot runs its own statements on it: with one slot per
// database, asking again would wait for ever on the step itself.
func TestFairGateHoldServesTheStepsStatements(t *testing.T) {
	g := newFairGate(1, 1, func(string, int) {})
	ctx, leave, err := g.hold(context.Background(), "db")
	if err != nil {
		t.Fatal(err)
	}
	enter(t, g, ctx, "db")() // at once, on the held slot
	if running, _ := g.stats(); running != 1 {
		t.Fatalf("%d statements counted running, want the step's one", running)
	}
	other := waitFor(t, g, withFlow(context.Background()), "db")
	leave()
	if !granted(other) {
		t.Fatal("the slot was not given back when the step ended")
	}
}
