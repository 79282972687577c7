package root

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/eval/evaltest"
	"github.com/sqlgym/sqlgym/ledger"

	"github.com/sqlgym/sqlgym/internal/cmd/cmdkit"
)

// A --db password holding a tab, a space and '@' is masked in the ledger
// and the run's manifest like any other (issue 25: white space in it kept
// it in runs/ledger.jsonl).
func TestEvalMasksPasswordsWithWhiteSpace(t *testing.T) {
	t.Setenv("SQLGYM_CACHE", t.TempDir())
	srv := evaltest.New(evaltest.ShopReplies(), 0)
	defer srv.Close()
	dir := t.TempDir()
	tasksPath := filepath.Join(dir, "tasks.jsonl")
	f, err := os.Create(tasksPath)
	if err != nil {
		t.Fatal(err)
	}
	sqlgym.WriteTasks(f, evaltest.ShopTasks())
	f.Close()
	out := filepath.Join(dir, "runs", "base")
	code, _, errOut := run(t, "eval", "--tasks", tasksPath, "--policy", "openai", "--base-url", srv.BaseURL(), "--model", "scripted",
		"--k", "1", "--out", out, "--db", "unused=postgres://reader:hun ter\t2@x@127.0.0.1:1/x?sslmode=disable")
	if code != cmdkit.ExitOK {
		t.Fatalf("eval: exit %d\n%s", code, errOut)
	}
	for _, p := range []string{ledger.PathFor(out), filepath.Join(out, "manifest.json")} {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, part := range []string{"hun ter", "ter\t2", `ter\t2`, "2@x"} {
			if strings.Contains(string(b), part) {
				t.Errorf("%s holds the password (%q):\n%s", p, part, b)
			}
		}
	}
	b, _ := os.ReadFile(ledger.PathFor(out))
	if !strings.Contains(string(b), "reader:xxxxx@127.0.0.1:1/x") {
		t.Errorf("ledger lost the non-secret part of --db:\n%s", b)
	}
}
