package verify_test

import (
	"context"
	"testing"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/catalog"
	"github.com/sqlgym/sqlgym/verify"
)

func TestPreviewsOnAnswersThatAreNotCorrect(t *testing.T) {
	cat, err := catalog.New(catalog.Config{CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer cat.Close()
	tasks := []sqlgym.Task{{ID: "top", DB: "shop", SQL: "SELECT order_id FROM orders ORDER BY order_id LIMIT 3"}}
	v := verify.New(cat, tasks, verify.Config{Previews: 2})
	res := v.VerifyBatch(context.Background(), []verify.Answer{
		{TaskID: "top", Sample: 0, SQL: "SELECT order_id FROM orders ORDER BY order_id LIMIT 3"},
		{TaskID: "top", Sample: 1, SQL: "SELECT order_id, NULL AS x FROM orders ORDER BY order_id DESC LIMIT 3"},
		{TaskID: "top", Sample: 2, SQL: "SELECT nope FROM orders"},
	})
	if r := res[0]; r.Outcome != sqlgym.OutcomeCorrect || r.Gold != "" || r.PredPreview != nil || r.GoldPreview != nil {
		t.Fatalf("a correct answer carries previews: %+v", r)
	}
	w := res[1]
	if w.Outcome != sqlgym.OutcomeWrong || w.Gold != tasks[0].SQL {
		t.Fatalf("wrong answer: %s gold %q", w.Outcome, w.Gold)
	}
	// Two rows of three shown, so both previews say there is more.
	if g := w.GoldPreview; g == nil || len(g.Rows) != 2 || !g.More || g.Columns[0] != "order_id" || g.Rows[0][0] != "1" || g.Rows[1][0] != "2" {
		t.Fatalf("gold preview %+v", w.GoldPreview)
	}
	if p := w.PredPreview; p == nil || len(p.Columns) != 2 || len(p.Rows) != 2 || !p.More || p.Rows[0][1] != "NULL" || p.Rows[0][0] == "1" {
		t.Fatalf("prediction preview %+v", w.PredPreview)
	}
	e := res[2]
	if e.Outcome != sqlgym.OutcomeError || e.PredPreview != nil || e.GoldPreview == nil || e.Gold != tasks[0].SQL {
		t.Fatalf("error answer: %s pred %+v gold %+v", e.Outcome, e.PredPreview, e.GoldPreview)
	}
	// Without the option nothing is added: verify's own output is unchanged.
	plain := verify.New(cat, tasks, verify.Config{}).Verify(context.Background(), verify.Answer{TaskID: "top", SQL: "SELECT 1"})
	if plain.Outcome != sqlgym.OutcomeWrong || plain.Gold != "" || plain.PredPreview != nil || plain.GoldPreview != nil {
		t.Fatalf("previews without Config.Previews: %+v", plain)
	}
}
