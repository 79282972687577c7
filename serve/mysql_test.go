package serve

import (
	"context"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/verify"
)

// TestServeMySQL scores one batch on the shop in MariaDB, read by a
// SELECT-only account: the MySQL gold (Task.GoldFor) is what answers are
// judged against, and the sandbox's refusals and the server's time limit
// come back as the model's error and timeout, never as infra_error.
func TestServeMySQL(t *testing.T) {
	url := shopOn(t, "mysql")
	tasks := []sqlgym.Task{{ID: "month", DB: "mshop", Split: sqlgym.SplitTrain,
		SQL:           "SELECT COUNT(*) FROM orders WHERE strftime('%Y-%m', order_date) = '2024-03'",
		GoldByDialect: map[sqlgym.Dialect]string{sqlgym.DialectMySQL: "SELECT COUNT(*) FROM orders WHERE DATE_FORMAT(order_date, '%Y-%m') = '2024-03'"}}}
	s, hs := newTestServer(t, Config{DBs: testCatalog(t, "mshop="+url), Tasks: tasks,
		Verify: verify.Config{Limits: sqlgym.Limits{Timeout: 300 * time.Millisecond}}})
	if _, err := s.Warm(context.Background()); err != nil {
		t.Fatal(err)
	}
	items := []Item{
		{TaskID: "month", SQL: str("SELECT COUNT(*) FROM orders WHERE order_date >= '2024-03-01' AND order_date < '2024-04-01'")},
		{TaskID: "month", SQL: str("SELECT COUNT(*) FROM orders WHERE order_date >= '2024-02-01' AND order_date < '2024-04-01'")},
		{TaskID: "month", SQL: str("SELECT SLEEP(5)")},
		{TaskID: "month", SQL: str("SELECT COUNT(*) FROM orders a, orders b, orders c, orders d")},
		{TaskID: "month", SQL: str("/*! SELECT 1 */; DROP TABLE orders")},
	}
	a := postItems(hs.URL, items)
	if a.err != nil || a.code != 200 || len(a.res.Results) != len(items) {
		t.Fatalf("%d %v %s", a.code, a.err, a.body)
	}
	want := []sqlgym.Outcome{sqlgym.OutcomeCorrect, sqlgym.OutcomeWrong, sqlgym.OutcomeError, sqlgym.OutcomeTimeout, sqlgym.OutcomeError}
	for i, r := range a.res.Results {
		if r.Outcome != want[i] {
			t.Errorf("item %d (%s): %s (%s), want %s", i, *items[i].SQL, r.Outcome, r.Detail, want[i])
		}
	}
	if r := a.res.Results[0]; r.Reward == nil || *r.Reward != 1 {
		t.Errorf("the right answer's reward: %v", r.Reward)
	}
}
