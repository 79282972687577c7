package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/sqlgym/sqlgym/engine/sqlite"
	"github.com/sqlgym/sqlgym/internal/cmd/cmdkit"
)

// variants-cost judges the batch on the original alone and with each
// task's variants: a task listing a variant runs the answers that matched
// on the original once more there; one listing its database alone, or
// none, runs nothing more; --all-variants gives every task the variant.
func TestVariantsCostCountsTheVariantsEachTaskLists(t *testing.T) {
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
	mk("toy_v1.sqlite", "UPDATE orders SET amount = 40 WHERE order_id = 13")
	tasks := filepath.Join(dir, "tasks.jsonl")
	if err := os.WriteFile(tasks, []byte(
		`{"id":"a","db":"toy","sql":"SELECT COUNT(*) FROM orders WHERE amount > 40","db_variants":["sqlite:toy/toy_v1.sqlite"]}`+"\n"+
			`{"id":"b","db":"toy","sql":"SELECT order_id FROM orders WHERE amount > 60 ORDER BY order_id","db_variants":["toy"]}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	measure := func(extra ...string) benchVariantsCostReport {
		t.Helper()
		code, out, errOut := run(t, append([]string{"variants-cost", "--tasks", tasks, "--db", "toy=sqlite:" + orig, "--rounds", "1", "--json"}, extra...)...)
		if code != cmdkit.ExitOK {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		var r benchVariantsCostReport
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatalf("%v in %s", err, out)
		}
		return r
	}
	own, all := measure(), measure("--all-variants")
	if own.Answers != 32 || own.OriginalRuns == 0 {
		t.Fatalf("%d answers, %d statements on the original: want 32 and some", own.Answers, own.OriginalRuns)
	}
	if !(own.OriginalRuns < own.VariantsRuns && own.VariantsRuns < all.VariantsRuns) || own.OriginalRuns != all.OriginalRuns {
		t.Errorf("statements: original %d/%d, each task's variants %d, every variant %d: want original < own < all",
			own.OriginalRuns, all.OriginalRuns, own.VariantsRuns, all.VariantsRuns)
	}
}
