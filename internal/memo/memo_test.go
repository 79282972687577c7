package memo

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func keepSuccess(_ int, err error) bool { return err == nil }

func TestFailureIsForgottenSuccessIsKept(t *testing.T) {
	var m Map[string, int]
	ctx := context.Background()
	runs := 0
	down := errors.New("down")
	fn := func() (int, error) {
		runs++
		if runs == 1 {
			return 0, down
		}
		return 42, nil
	}
	if _, err := m.Do(ctx, "db", fn, keepSuccess); !errors.Is(err, down) {
		t.Fatalf("first run: %v, want the failure", err)
	}
	for i := 0; i < 3; i++ {
		v, err := m.Do(ctx, "db", fn, keepSuccess)
		if err != nil || v != 42 {
			t.Fatalf("call %d: %d, %v; want 42 once the failure is forgotten", i, v, err)
		}
	}
	if runs != 2 {
		t.Fatalf("fn ran %d times, want 2: the success must be kept", runs)
	}
}

func TestCallersShareOneRun(t *testing.T) {
	var m Map[int, int]
	var runs, entered atomic.Int32
	release := make(chan struct{})
	// Nothing is kept, so a caller that came after the run ended would
	// start a run of its own: only sharing the run in flight gives 1.
	keepNothing := func(int, error) bool { return false }
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			entered.Add(1)
			v, err := m.Do(context.Background(), 1, func() (int, error) {
				runs.Add(1)
				<-release
				return 7, nil
			}, keepNothing)
			if err != nil || v != 7 {
				t.Errorf("got %d, %v", v, err)
			}
		}()
	}
	for entered.Load() < 8 {
		runtime.Gosched()
	}
	// Every caller is in or about to enter Do; give the last ones the
	// moment it takes to reach the wait.
	time.Sleep(100 * time.Millisecond)
	close(release)
	wg.Wait()
	if n := runs.Load(); n != 1 {
		t.Fatalf("fn ran %d times for 8 callers at once, want 1", n)
	}
}

// A caller that gives up does not take the run with it: the run finishes,
// and its outcome serves the next caller.
func TestCallerGivingUpLeavesTheRun(t *testing.T) {
	var m Map[int, int]
	release := make(chan struct{})
	finished := make(chan struct{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := m.Do(ctx, 1, func() (int, error) {
		<-release
		defer close(finished)
		return 5, nil
	}, keepSuccess)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled caller: %v, want context.Canceled", err)
	}
	close(release)
	<-finished
	v, err := m.Do(context.Background(), 1, func() (int, error) {
		t.Error("ran again: the finished run's outcome was not kept")
		return 0, nil
	}, keepSuccess)
	if err != nil || v != 5 {
		t.Fatalf("got %d, %v; want 5 from the run the first caller left", v, err)
	}
}

func TestPanicIsAnErrorNotKept(t *testing.T) {
	var m Map[int, int]
	_, err := m.Do(context.Background(), 1, func() (int, error) { panic("boom") }, func(int, error) bool { return true })
	if err == nil {
		t.Fatal("a panicking run gave no error")
	}
	if m.Len() != 0 {
		t.Fatal("a panicking run's outcome was kept")
	}
}

// Peek sees only kept outcomes: nothing before a run, nothing while it is
// in flight, nothing once an outcome not kept is forgotten; and it never
// starts a run.
func TestPeekSeesOnlyKeptOutcomes(t *testing.T) {
	var m Map[string, int]
	if _, _, ok := m.Peek("a"); ok {
		t.Fatal("peek on an empty map found an outcome")
	}
	if m.Len() != 0 {
		t.Fatal("peek started a run")
	}
	release := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		m.Do(context.Background(), "a", func() (int, error) { <-release; return 7, nil }, keepSuccess)
	}()
	for m.Len() == 0 {
		runtime.Gosched()
	}
	if _, _, ok := m.Peek("a"); ok {
		t.Fatal("peek found the outcome of a run still in flight")
	}
	close(release)
	<-done
	if v, err, ok := m.Peek("a"); !ok || v != 7 || err != nil {
		t.Fatalf("peek after the run: %d, %v, %v; want 7, nil, true", v, err, ok)
	}
	down := errors.New("down")
	m.Do(context.Background(), "b", func() (int, error) { return 0, down }, keepSuccess)
	if _, _, ok := m.Peek("b"); ok {
		t.Fatal("peek found an outcome that was not kept")
	}
}
