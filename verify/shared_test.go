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

// One statement answered to two tasks runs once, reading as many rows as
// the task that needs more of them: judged against a one-row gold, it
// could stop after two rows, but the other task needs them all.
func TestSharedStatementReadsTheLargerRowBudget(t *testing.T) {
	dbs := newCounting(t, catalog.Config{CacheDir: t.TempDir()})
	tasks := []sqlgym.Task{
		{ID: "one", DB: "shop", SQL: "SELECT order_id FROM orders WHERE order_id = 1"},
		{ID: "all", DB: "shop", SQL: "SELECT order_id FROM orders WHERE order_id > 0"},
	}
	v := verify.New(dbs, tasks, verify.Config{})
	ctx := context.Background()
	// Golds kept, as in a training loop.
	for _, r := range v.VerifyBatch(ctx, []verify.Answer{{TaskID: "one", SQL: tasks[0].SQL}, {TaskID: "all", SQL: tasks[1].SQL}}) {
		if r.Outcome != sqlgym.OutcomeCorrect {
			t.Fatalf("warming: %s %s (%s)", r.TaskID, r.Outcome, r.Detail)
		}
	}
	const every = "SELECT order_id FROM orders"
	// "one" comes first: its gold has one row, so it alone would read at
	// most two; "all" needs every row.
	rs := v.VerifyBatch(ctx, []verify.Answer{{TaskID: "one", SQL: every}, {TaskID: "all", SQL: every}})
	if rs[0].Outcome != sqlgym.OutcomeWrong {
		t.Errorf("one: %s (%s), want wrong", rs[0].Outcome, rs[0].Detail)
	}
	if rs[1].Outcome != sqlgym.OutcomeCorrect {
		t.Errorf("all: %s (%s), want correct: judged on the rows of the smaller budget", rs[1].Outcome, rs[1].Detail)
	}
	dbs.mu.Lock()
	n := dbs.calls[every]
	dbs.mu.Unlock()
	if n != 1 {
		t.Errorf("the shared statement ran %d times, want once", n)
	}
}

// An answer that is another task's gold text, ahead of that task in the
// batch, is judged on that gold's result and does not run again.
func TestAnotherTasksGoldTextIsJudgedOnItsResult(t *testing.T) {
	dbs := newCounting(t, catalog.Config{CacheDir: t.TempDir()})
	tasks := []sqlgym.Task{
		{ID: "a", DB: "shop", SQL: "SELECT count(*) FROM orders"},
		{ID: "b", DB: "shop", SQL: "SELECT count(order_id) FROM orders"},
	}
	v := verify.New(dbs, tasks, verify.Config{})
	ctx := context.Background()
	v.VerifyBatch(ctx, []verify.Answer{{TaskID: "a", SQL: tasks[0].SQL}, {TaskID: "b", SQL: tasks[1].SQL}})
	dbs.mu.Lock()
	before := dbs.calls[tasks[1].SQL]
	dbs.mu.Unlock()
	rs := v.VerifyBatch(ctx, []verify.Answer{
		{TaskID: "a", SQL: tasks[1].SQL}, // b's gold, before b is planned
		{TaskID: "b", SQL: tasks[1].SQL},
	})
	for _, r := range rs {
		if r.Outcome != sqlgym.OutcomeCorrect {
			t.Errorf("%s: %s (%s), want correct", r.TaskID, r.Outcome, r.Detail)
		}
	}
	dbs.mu.Lock()
	after := dbs.calls[tasks[1].SQL]
	dbs.mu.Unlock()
	if after != before {
		t.Errorf("b's gold text ran %d more times in the second batch, want 0: its kept result serves", after-before)
	}
}

// With a byte budget that fits one result at a time, statements wait for
// each other's bytes; a warm batch must still finish, within the budget,
// with the verdicts a roomy budget gives.
func TestATinyByteBudgetKeepsTheVerdicts(t *testing.T) {
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
	v.VerifyBatch(ctx, answers) // golds kept, as in a training loop
	done := make(chan []verify.Result, 1)
	go func() { done <- v.VerifyBatch(ctx, answers) }()
	var got []verify.Result
	select {
	case got = <-done:
	case <-time.After(2 * time.Minute):
		t.Fatal("the batch did not finish: statements waiting for bytes nobody gives back")
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
