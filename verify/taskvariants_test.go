package verify_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/catalog"
	"github.com/sqlgym/sqlgym/engine/sqlite"
	"github.com/sqlgym/sqlgym/verify"
)

// Tasks of one database may carry different db_variants (sqlgym variants
// lists for each task the variants that kill its own mutants, and leaves
// a variant that empties one task's gold out of that task only), and the
// original named as a task's only variant, by its file or by its
// database's name, means the original alone: each task of a batch is
// judged on its own list, whatever the order of the batch.
func TestEachTaskJudgedOnItsOwnVariants(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	mk := func(name string, extra ...string) string {
		stmts := []string{"CREATE TABLE orders (order_id INTEGER PRIMARY KEY, amount INTEGER NOT NULL)"}
		for i := 1; i <= 30; i++ {
			stmts = append(stmts, fmt.Sprintf("INSERT INTO orders VALUES (%d, %d)", i, 3*i))
		}
		p := filepath.Join(dir, "toy", name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := sqlite.Create(ctx, p, append(stmts, extra...)); err != nil {
			t.Fatal(err)
		}
		return p
	}
	orig := mk("toy.sqlite")
	v1 := mk("toy_v1.sqlite", "UPDATE orders SET amount = 40 WHERE order_id = 13")
	dbs, err := catalog.New(catalog.Config{DBDir: dir, CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer dbs.Close()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	rel, err := filepath.Rel(wd, orig)
	if err != nil {
		t.Fatal(err)
	}
	gold := "SELECT COUNT(*) FROM orders WHERE amount > 40"
	tasks := []sqlgym.Task{
		{ID: "on_v1", DB: "toy", SQL: gold, DBVariants: []string{"sqlite:" + v1}},
		{ID: "original_only", DB: "toy", SQL: gold, DBVariants: []string{"sqlite:" + rel}},
		{ID: "by_name", DB: "toy", SQL: gold, DBVariants: []string{"toy"}},
		{ID: "folder", DB: "toy", SQL: gold},
	}
	v := verify.New(dbs, tasks, verify.Config{Variants: true})
	near := "SELECT COUNT(*) FROM orders WHERE amount >= 40"
	for _, order := range [][]string{{"on_v1", "original_only", "by_name", "folder"}, {"by_name", "original_only", "folder", "on_v1"}} {
		var batch []verify.Answer
		for _, id := range order {
			batch = append(batch, verify.Answer{TaskID: id, SQL: near})
		}
		want := map[string]sqlgym.Outcome{"on_v1": sqlgym.OutcomeWrong, "original_only": sqlgym.OutcomeCorrect, "by_name": sqlgym.OutcomeCorrect, "folder": sqlgym.OutcomeWrong}
		for i, r := range v.VerifyBatch(ctx, batch) {
			if r.Outcome != want[order[i]] {
				t.Errorf("batch %v: task %s judged %s (%s), want %s", order, order[i], r.Outcome, r.Detail, want[order[i]])
			}
		}
	}
}
