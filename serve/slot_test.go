package serve

import (
	"context"
	"errors"
	"testing"
	"time"
)

// A step that panics (or fails) inside an engine gives its database slot
// back: before underSlot, the episode handlers released the slot only
// after the step returned, so two crashed steps left every later request
// for the database waiting for a slot that never came back.
func TestUnderSlotReturnsTheSlotOnEveryPath(t *testing.T) {
	s, _ := newTestServer(t, Config{DBSlots: 1})
	const db = "shop"
	panicking := func() (recovered any) {
		defer func() { recovered = recover() }()
		_ = s.underSlot(context.Background(), db, func(context.Context) error { panic("engine crashed") })
		return nil
	}
	for i := 0; i < 3; i++ {
		if r := panicking(); r == nil {
			t.Fatalf("round %d: the panic did not reach the caller", i)
		}
		failing := errors.New("step failed")
		if err := s.underSlot(context.Background(), db, func(context.Context) error { return failing }); !errors.Is(err, failing) {
			t.Fatalf("round %d: err = %v, want the step's own", i, err)
		}
	}
	// With one slot, a leak from any round above makes this wait forever.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ran := false
	if err := s.underSlot(ctx, db, func(context.Context) error { ran = true; return nil }); err != nil || !ran {
		t.Fatalf("slot not given back: err = %v, ran = %v", err, ran)
	}
}
