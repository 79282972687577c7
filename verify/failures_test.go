package verify_test

import (
	"context"
	"testing"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/catalog"
	"github.com/sqlgym/sqlgym/failure"
	"github.com/sqlgym/sqlgym/verify"
)

// With Config.Failures every scored answer that is not correct carries its
// class, computed in the batch from the real shop database's rows and
// errors; correct answers, gold errors and answers of a verifier without
// the option carry none.
func TestFailureClassesInBatch(t *testing.T) {
	dbs := newCounting(t, catalog.Config{CacheDir: t.TempDir()})
	tasks := shopTasks()
	v := verify.New(dbs, tasks, verify.Config{Failures: true})
	answers := []verify.Answer{
		{TaskID: "orders", SQL: "SELECT count(*) FROM orders"},
		{TaskID: "orders", SQL: "SELECT count(*) FROM no_such"},
		{TaskID: "orders", SQL: "SELECT count(*) FROM orders WHERE order_id > 10"},
		{TaskID: "top", SQL: "SELECT order_id FROM orders ORDER BY order_id LIMIT 4"},
		{TaskID: "top", SQL: "SELECT order_id FROM orders ORDER BY order_id DESC LIMIT 3"},
		{TaskID: "top", Completion: "I do not know."},
		{TaskID: "broken", SQL: "SELECT 1"},
	}
	want := []failure.Class{"", failure.MissingTable, failure.FilterDiffers, failure.Ordering, failure.Ordering, failure.NoQuery, ""}
	res := v.VerifyBatch(context.Background(), answers)
	for i, r := range res {
		got := failure.Class("")
		if r.Failure != nil {
			got = r.Failure.Class
		}
		if got != want[i] {
			t.Errorf("%q: outcome %s, failure %q (%+v), want %q", answers[i].SQL, r.Outcome, got, r.Failure, want[i])
		}
	}
	if s := verify.Summarize(res); s.Failures[string(failure.Ordering)] != 2 {
		t.Errorf("summary failures %v", s.Failures)
	}
	plain := verify.New(dbs, tasks, verify.Config{}).VerifyBatch(context.Background(), answers[1:2])
	if plain[0].Outcome != sqlgym.OutcomeError || plain[0].Failure != nil {
		t.Errorf("without Failures: %+v", plain[0])
	}
}
