package verify_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/catalog"
	"github.com/sqlgym/sqlgym/verify"
)

// With golds kept, a batch's statements start while later answers are
// still planned, under the row budget of their first use. A statement a
// later task needs more rows of must still be judged on all of them.
func TestEarlyStartServesALargerRowBudget(t *testing.T) {
	dbs := newCounting(t, catalog.Config{CacheDir: t.TempDir()})
	tasks := []sqlgym.Task{
		{ID: "one", DB: "shop", SQL: "SELECT order_id FROM orders WHERE order_id = 1"},
		{ID: "all", DB: "shop", SQL: "SELECT order_id FROM orders WHERE order_id > 0"},
	}
	v := verify.New(dbs, tasks, verify.Config{})
	ctx := context.Background()
	// Keep both golds, so the next batch starts its statements early.
	for _, r := range v.VerifyBatch(ctx, []verify.Answer{{TaskID: "one", SQL: tasks[0].SQL}, {TaskID: "all", SQL: tasks[1].SQL}}) {
		if r.Outcome != sqlgym.OutcomeCorrect {
			t.Fatalf("warming: %s %s (%s)", r.TaskID, r.Outcome, r.Detail)
		}
	}
	const every = "SELECT order_id FROM orders"
	// "one" is planned first: its gold has one row, so the statement
	// starts reading at most two; "all" needs every row.
	rs := v.VerifyBatch(ctx, []verify.Answer{{TaskID: "one", SQL: every}, {TaskID: "all", SQL: every}})
	if rs[0].Outcome != sqlgym.OutcomeWrong {
		t.Errorf("one: %s (%s), want wrong", rs[0].Outcome, rs[0].Detail)
	}
	if rs[1].Outcome != sqlgym.OutcomeCorrect {
		t.Errorf("all: %s (%s), want correct: judged on the rows of the early start's smaller budget", rs[1].Outcome, rs[1].Detail)
	}
	dbs.mu.Lock()
	n := dbs.calls[every]
	dbs.mu.Unlock()
	if n < 1 || n > 2 {
		t.Errorf("the shared statement ran %d times, want once, or twice when its early start was cut short", n)
	}
}

// An answer that is another task's gold text, planned before that task,
// may have started already; it is still judged on that gold's result.
func TestGoldTextPlannedAfterAnEarlyStart(t *testing.T) {
	dbs := newCounting(t, catalog.Config{CacheDir: t.TempDir()})
	tasks := []sqlgym.Task{
		{ID: "a", DB: "shop", SQL: "SELECT count(*) FROM orders"},
		{ID: "b", DB: "shop", SQL: "SELECT count(order_id) FROM orders"},
	}
	v := verify.New(dbs, tasks, verify.Config{})
	ctx := context.Background()
	v.VerifyBatch(ctx, []verify.Answer{{TaskID: "a", SQL: tasks[0].SQL}, {TaskID: "b", SQL: tasks[1].SQL}})
	rs := v.VerifyBatch(ctx, []verify.Answer{
		{TaskID: "a", SQL: tasks[1].SQL}, // b's gold, before b is planned
		{TaskID: "b", SQL: tasks[1].SQL},
	})
	for _, r := range rs {
		if r.Outcome != sqlgym.OutcomeCorrect {
			t.Errorf("%s: %s (%s), want correct", r.TaskID, r.Outcome, r.Detail)
		}
	}
}

// Results of early starts are held until the batch is planned. With a
// byte budget that fits one result at a time, the workers wait for those
// bytes; the batch must still finish, within the budget, with the
// verdicts a roomy budget gives.
func TestEarlyStartsWithATinyByteBudget(t *testing.T) {
	cat, err := catalog.New(catalog.Config{CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cat.Close() })
	tasks, answers := grpoBatch(shopGolds, "shop")
	ctx := context.Background()
	want := verify.New(cat, tasks, verify.Config{}).VerifyBatch(ctx, answers)

	b := verify.NewByteBudget(1)
	v := verify.New(cat, tasks, verify.Config{Budget: b})
	v.VerifyBatch(ctx, answers) // golds kept: the next batch starts early
	done := make(chan []verify.Result, 1)
	go func() { done <- v.VerifyBatch(ctx, answers) }()
	var got []verify.Result
	select {
	case got = <-done:
	case <-time.After(2 * time.Minute):
		t.Fatal("the batch did not finish: workers waiting for bytes that parked results hold")
	}
	for i := range want {
		if g, w := got[i], want[i]; g.Outcome != w.Outcome || fmt.Sprint(deref(g.Reward)) != fmt.Sprint(deref(w.Reward)) {
			t.Errorf("answer %d (%s): %s %v, want %s %v", i, g.TaskID, g.Outcome, deref(g.Reward), w.Outcome, deref(w.Reward))
		}
	}
	st := b.Stats()
	if st.Peak > 1 || st.Held != 0 || st.Taken != 0 {
		t.Errorf("budget of 1 byte: %+v", st)
	}
}

func deref(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}
