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

// A password in --db or --base-url and a key in --extra never reach the
// ledger, the manifest or the report (issue 15: runs/ledger.jsonl kept a
// --db password in plain text).
func TestEvalRecordsNoSecrets(t *testing.T) {
	t.Setenv("SQLGYM_CACHE", t.TempDir())
	srv := evaltest.New(evaltest.ShopReplies(), 0)
	defer srv.Close()
	dir := t.TempDir()
	tasksPath := filepath.Join(dir, "tasks.jsonl")
	f, _ := os.Create(tasksPath)
	sqlgym.WriteTasks(f, evaltest.ShopTasks())
	f.Close()
	out := filepath.Join(dir, "runs", "base")
	baseURL := strings.Replace(srv.BaseURL(), "http://", "http://me:hunter2-url@", 1)
	code, _, errOut := run(t, "eval", "--tasks", tasksPath, "--policy", "openai", "--base-url", baseURL, "--model", "scripted",
		"--k", "1", "--out", out,
		"--db", "unused=postgres://reader:hunter2-db@127.0.0.1:1/x?sslmode=disable",
		"--extra", `{"api_key":"sk-hunter2hunter2"}`)
	if code != cmdkit.ExitOK {
		t.Fatalf("eval: exit %d\n%s", code, errOut)
	}
	code, rep, errOut := run(t, "report", out, "--json")
	if code != cmdkit.ExitOK {
		t.Fatalf("report: exit %d\n%s", code, errOut)
	}
	html := filepath.Join(dir, "r.html")
	if code, _, errOut := run(t, "report", out, "--html", html); code != cmdkit.ExitOK {
		t.Fatalf("report --html: exit %d\n%s", code, errOut)
	}
	files := map[string]string{"report --json": rep}
	for _, p := range []string{ledger.PathFor(out), filepath.Join(out, "manifest.json"), html} {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		files[p] = string(b)
	}
	for name, body := range files {
		if strings.Contains(body, "hunter2") {
			t.Errorf("%s holds a secret:\n%s", name, body)
		}
	}
	if !strings.Contains(files[ledger.PathFor(out)], "reader:xxxxx@127.0.0.1:1/x") {
		t.Errorf("ledger lost the non-secret part of --db:\n%s", files[ledger.PathFor(out)])
	}
}
