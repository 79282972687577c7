package verify_test

import (
	"context"
	"testing"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/catalog"
	"github.com/sqlgym/sqlgym/verify"
	"github.com/sqlgym/sqlgym/verify/compare"
)

// In testsuite mode both queries are rewritten as the official evaluation
// rewrites them before they run: "> =" is joined (so a gold SQLite would
// refuse runs), and in the prediction "value" becomes 1. In other modes
// the same texts run as written.
func TestTestSuiteRewritesBeforeRunning(t *testing.T) {
	cat, err := catalog.New(catalog.Config{CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer cat.Close()
	tasks := []sqlgym.Task{
		{ID: "spaced", DB: "shop", SQL: "SELECT count(*) FROM orders WHERE order_id > = 250"},
		{ID: "one", DB: "shop", SQL: "SELECT 1 FROM orders WHERE order_id < 3"},
	}
	cases := []struct {
		mode       compare.Mode
		task, pred string
		want       sqlgym.Outcome
	}{
		{compare.TestSuite, "spaced", "SELECT count(*) FROM orders WHERE order_id >= 250", sqlgym.OutcomeCorrect},
		{compare.Multiset, "spaced", "SELECT count(*) FROM orders WHERE order_id >= 250", sqlgym.OutcomeGoldError},
		{compare.TestSuite, "one", "SELECT value FROM orders WHERE order_id < 3", sqlgym.OutcomeCorrect},
		{compare.Multiset, "one", "SELECT value FROM orders WHERE order_id < 3", sqlgym.OutcomeError},
	}
	for _, c := range cases {
		v := verify.New(cat, tasks, verify.Config{Mode: c.mode})
		r := v.Verify(context.Background(), verify.Answer{TaskID: c.task, SQL: c.pred})
		if r.Outcome != c.want {
			t.Errorf("%s %s %q: %s (%s), want %s", c.mode, c.task, c.pred, r.Outcome, r.Detail, c.want)
		}
	}
}

// Config.Order reaches the strict comparison; the default ignores order.
func TestStrictOrderPolicyFromConfig(t *testing.T) {
	cat, err := catalog.New(catalog.Config{CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer cat.Close()
	tasks := []sqlgym.Task{{ID: "o", DB: "shop", SQL: "SELECT order_id FROM orders WHERE order_id <= 5 ORDER BY order_id"}}
	pred := "SELECT order_id FROM orders WHERE order_id <= 5 ORDER BY order_id DESC"
	cases := []struct {
		order compare.OrderPolicy
		want  sqlgym.Outcome
		label string
	}{
		{compare.OrderDefault, sqlgym.OutcomeCorrect, "strict"},
		{compare.OrderIgnore, sqlgym.OutcomeCorrect, "strict"},
		{compare.OrderGoldOrderBy, sqlgym.OutcomeWrong, "strict order=gold_order_by"},
		{compare.OrderAlways, sqlgym.OutcomeWrong, "strict order=always"},
	}
	for _, c := range cases {
		cfg := verify.Config{Mode: compare.Strict, Order: c.order}
		v := verify.New(cat, tasks, cfg)
		r := v.Verify(context.Background(), verify.Answer{TaskID: "o", SQL: pred})
		if r.Outcome != c.want || (c.want == sqlgym.OutcomeWrong && r.Why != compare.WhyOrder) {
			t.Errorf("order %q: %s (%s), want %s", c.order, r.Outcome, r.Why, c.want)
		}
		if got := cfg.ModeLabel(); got != c.label {
			t.Errorf("order %q: ModeLabel %q, want %q", c.order, got, c.label)
		}
	}
	// multiset keeps its rule, gold_order_by, unless told otherwise.
	if got := (verify.Config{Mode: compare.Multiset, Order: compare.OrderGoldOrderBy}).ModeLabel(); got != "multiset" {
		t.Errorf("multiset with its default policy: %q", got)
	}
	if got := (verify.Config{Mode: compare.Bird, Order: compare.OrderAlways}).ModeLabel(); got != "bird" {
		t.Errorf("bird takes no policy: %q", got)
	}
}
