package verify_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/catalog"
	"github.com/sqlgym/sqlgym/engine/sqlite"
	"github.com/sqlgym/sqlgym/verify"
)

// Two tasks of one database may list different db_variants (sqlgym
// variants gives each task the variants that kill its own mutants): in
// one batch each is judged on its own list, not on the first task's.
func TestEachTaskJudgedOnItsOwnKillingVariants(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	mk := func(name string, extra ...string) string {
		stmts := []string{"CREATE TABLE orders (order_id INTEGER PRIMARY KEY, amount INTEGER NOT NULL)"}
		for i := 1; i <= 30; i++ {
			stmts = append(stmts, fmt.Sprintf("INSERT INTO orders VALUES (%d, %d)", i, 3*i))
		}
		p := filepath.Join(dir, name)
		if err := sqlite.Create(ctx, p, append(stmts, extra...)); err != nil {
			t.Fatal(err)
		}
		return p
	}
	orig := mk("toy.sqlite")
	v1 := mk("toy_v1.sqlite", "UPDATE orders SET amount = 40 WHERE order_id = 13")
	dbs, err := catalog.New(catalog.Config{Refs: []string{"toy=sqlite:" + orig}, CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer dbs.Close()
	gold := "SELECT COUNT(*) FROM orders WHERE amount > 40"
	near := "SELECT COUNT(*) FROM orders WHERE amount >= 40"
	for _, order := range [][2]string{{"alone", "with_v1"}, {"with_v1", "alone"}} {
		lists := map[string][]string{"alone": {"toy"}, "with_v1": {"sqlite:" + v1}}
		var tasks []sqlgym.Task
		for _, id := range order {
			tasks = append(tasks, sqlgym.Task{ID: id, DB: "toy", SQL: gold, DBVariants: lists[id]})
		}
		v := verify.New(dbs, tasks, verify.Config{Variants: true})
		rs := v.VerifyBatch(ctx, []verify.Answer{{TaskID: "alone", SQL: near}, {TaskID: "with_v1", SQL: near}})
		if rs[0].Outcome != sqlgym.OutcomeCorrect {
			t.Errorf("%v: the task judged on its database alone: %s (%s), want correct (no variant listed)", order, rs[0].Outcome, rs[0].Detail)
		}
		if rs[1].Outcome != sqlgym.OutcomeWrong {
			t.Errorf("%v: the task with toy_v1: %s (%s), want wrong on its variant", order, rs[1].Outcome, rs[1].Detail)
		}
	}
}
