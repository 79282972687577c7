package root

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/shopdb"

	"github.com/sqlgym/sqlgym/internal/cmd/cmdkit"
	datacmd "github.com/sqlgym/sqlgym/internal/cmd/data"
)

func TestAuthorSynthShop(t *testing.T) {
	t.Setenv("SQLGYM_CACHE", t.TempDir())
	out := filepath.Join(t.TempDir(), "tasks.jsonl")
	code, stdout, errOut := run(t, "author", "--teacher", "synth", "--db", "shop", "--n", "50", "--out", out, "--json")
	if code != cmdkit.ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var res datacmd.AuthorResult
	if err := json.Unmarshal([]byte(stdout), &res); err != nil {
		t.Fatalf("--json output: %v\n%s", err, stdout)
	}
	if res.Kept != 50 || res.Total != 50 || res.Proposed < 50 || res.Dropped == nil || !strings.Contains(errOut, "kept 50/50") {
		t.Fatalf("counts %+v, stderr %q", res, errOut)
	}
	tasks, err := sqlgym.ReadTasks(out)
	if err != nil {
		t.Fatal(err)
	}
	perLevel := 0
	for _, n := range res.PerLevel {
		perLevel += n
	}
	if len(tasks) != 50 || perLevel != 50 {
		t.Fatalf("%d tasks in the file, %d by level", len(tasks), perLevel)
	}
	for _, tk := range tasks {
		if tk.DB != "shop" || tk.Source != "synth" || tk.Complexity == "" || !strings.HasPrefix(tk.ID, "shop_"+tk.Complexity+"_") {
			t.Fatalf("task %+v", tk)
		}
	}

	// The file exists: without --resume that is an error, with it the run
	// goes on to --n and keeps what was there.
	code, _, errOut = run(t, "author", "--db", "shop", "--n", "60", "--out", out)
	if code != cmdkit.ExitError || !strings.Contains(errOut, "--resume") {
		t.Fatalf("existing file without --resume: exit %d, %q", code, errOut)
	}
	code, _, errOut = run(t, "author", "--db", "shop", "--n", "60", "--out", out, "--resume")
	if code != cmdkit.ExitOK {
		t.Fatalf("resume: exit %d: %s", code, errOut)
	}
	more, err := sqlgym.ReadTasks(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(more) != 60 || !slices.EqualFunc(more[:50], tasks, func(a, b sqlgym.Task) bool { return a.ID == b.ID }) {
		t.Fatalf("after resume: %d tasks", len(more))
	}
	// The same seed from scratch gives the same 60 tasks.
	again := filepath.Join(t.TempDir(), "again.jsonl")
	if code, _, errOut := run(t, "author", "--db", "shop", "--n", "60", "--out", again, "--concurrency", "1"); code != cmdkit.ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	a, _ := os.ReadFile(out)
	b, _ := os.ReadFile(again)
	if string(a) != string(b) {
		t.Fatal("resumed run and fresh run with the same seed differ")
	}
}

func TestAuthorUsage(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"author", "--out", filepath.Join(dir, "x.jsonl")},                                            // no --db
		{"author", "--db", "shop", "--db", "other=sqlite:x.sqlite", "--out", filepath.Join(dir, "x")}, // two databases
		{"author", "--db", "shop", "--teacher", "oracle", "--out", filepath.Join(dir, "x")},
		{"author", "--db", "shop", "--n", "0", "--out", filepath.Join(dir, "x")},
		{"author", "--db", "shop", "--min-rows", "5", "--max-rows", "2", "--out", filepath.Join(dir, "x")},
	} {
		if code, _, errOut := run(t, args...); code != cmdkit.ExitUsage {
			t.Errorf("%v: exit %d, want %d (%s)", args, code, cmdkit.ExitUsage, errOut)
		}
	}
	if code, _, errOut := run(t, "author", "--db", "nosuch", "--out", filepath.Join(dir, "x")); code != cmdkit.ExitError || !strings.Contains(errOut, "unknown database") {
		t.Errorf("unknown database: exit %d, %q", code, errOut)
	}
}

// TestVerifyBuiltinShopTasks: --tasks shop names the embedded task set.
func TestVerifyBuiltinShopTasks(t *testing.T) {
	t.Setenv("SQLGYM_CACHE", t.TempDir())
	tasks, err := shopdb.Tasks()
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for i, tk := range tasks[:20] {
		sql := tk.SQL
		if i%2 == 1 {
			sql = "SELECT 12345"
		}
		line, _ := json.Marshal(map[string]string{"task_id": tk.ID, "sql": sql})
		fmt.Fprintln(&b, string(line))
	}
	preds := writeFile(t, "preds.jsonl", b.String())
	code, out, errOut := run(t, "verify", "--tasks", "shop", "--predictions", preds, "--json")
	if code != cmdkit.ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var sum struct {
		Total    int            `json:"total"`
		Outcomes map[string]int `json:"outcomes"`
	}
	if err := json.Unmarshal([]byte(out), &sum); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if sum.Total != 20 || sum.Outcomes["correct"] != 10 || sum.Outcomes["wrong"] != 10 {
		t.Fatalf("summary %s", out)
	}
}
