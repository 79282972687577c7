package root

import (
	"path/filepath"
	"testing"

	"github.com/sqlgym/sqlgym/internal/cmd/cmdkit"
)

// verify --out records carry each failed answer's failure class, judged on
// the built-in shop database; a correct answer carries none.
func TestVerifyOutRecordsFailureClasses(t *testing.T) {
	t.Setenv("SQLGYM_CACHE", t.TempDir())
	tasks := writeFile(t, "tasks.jsonl", `{"id":"n","db":"shop","question":"How many orders?","sql":"SELECT count(*) FROM orders"}
{"id":"p","db":"shop","question":"Names of products over 100?","sql":"SELECT name FROM products WHERE price > 100"}
`)
	preds := writeFile(t, "preds.jsonl", `{"task_id":"n","sql":"SELECT COUNT(*) FROM orders"}
{"task_id":"n","sql":"SELECT count(*) FROM order_lines"}
{"task_id":"p","sql":"SELECT name FROM products WHERE price > 200"}
{"task_id":"p","sql":"SELECT name, price FROM products WHERE price > 100"}
{"task_id":"p","sql":"SELECT nme FROM products"}
{"task_id":"p","completion":"no idea"}
`)
	out := filepath.Join(t.TempDir(), "r.jsonl")
	if code, _, stderr := run(t, "verify", "--tasks", tasks, "--predictions", preds, "--out", out); code != cmdkit.ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	want := []string{"", "missing_table", "filter_differs", "wrong_columns", "missing_column", "no_query"}
	rows := readRows(t, out)
	if len(rows) != len(want) {
		t.Fatalf("%d records", len(rows))
	}
	for i, r := range rows {
		got := ""
		if f, ok := r["failure"].(map[string]any); ok {
			got, _ = f["class"].(string)
		}
		if got != want[i] {
			t.Errorf("record %d (%v): class %q, want %q", i, r["sql"], got, want[i])
		}
	}
}
