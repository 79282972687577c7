package verify_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/catalog"
	"github.com/sqlgym/sqlgym/engine/sqlite"
	"github.com/sqlgym/sqlgym/verify"
)

// An answer right on the original and wrong on a variant names the
// variant and shows that variant's rows: the original's equal rows
// (issue 26: [["8"]] against [["8"]]) would contradict "wrong".
func TestVariantThatDecidedIsNamedWithItsRows(t *testing.T) {
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
	tasks := []sqlgym.Task{{ID: "big", DB: "toy", SQL: "SELECT COUNT(*) FROM orders WHERE amount > 40", DBVariants: []string{"sqlite:" + v1}}}
	v := verify.New(dbs, tasks, verify.Config{Variants: true, Previews: 5, Failures: true})
	r := v.Verify(ctx, verify.Answer{TaskID: "big", SQL: "SELECT COUNT(*) FROM orders WHERE amount >= 40"})
	if r.Outcome != sqlgym.OutcomeWrong {
		t.Fatalf("outcome %s (%s), want wrong on the variant", r.Outcome, r.Detail)
	}
	if !strings.HasSuffix(r.Variant, "toy_v1.sqlite") || !strings.Contains(r.Detail, "on variant toy_v1.sqlite") {
		t.Errorf("variant %q, detail %q: want toy_v1.sqlite named", r.Variant, r.Detail)
	}
	if r.PredPreview == nil || r.GoldPreview == nil || fmt.Sprint(r.PredPreview.Rows) == fmt.Sprint(r.GoldPreview.Rows) {
		t.Errorf("previews %+v against %+v: want the variant's differing rows", r.PredPreview, r.GoldPreview)
	}
	// The original decides an answer wrong there: no variant named.
	r = v.Verify(ctx, verify.Answer{TaskID: "big", SQL: "SELECT COUNT(*) FROM orders"})
	if r.Outcome != sqlgym.OutcomeWrong || r.Variant != "" || strings.Contains(r.Detail, "variant") {
		t.Errorf("wrong on the original: %s variant %q detail %q", r.Outcome, r.Variant, r.Detail)
	}
}
