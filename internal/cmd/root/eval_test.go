package root

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/internal/cmd/cmdkit"
)

// The eval command's runs are tested end to end in package eval (scripted
// model server, kill -9, the built binary); these are its command-line
// checks, which fail before any database or server is touched.

func TestEvalUsageErrorsExitTwo(t *testing.T) {
	tasks := writeFile(t, "tasks.jsonl", `{"id":"a","db":"shop","question":"How many orders?","sql":"SELECT count(*) FROM orders"}`+"\n")
	out := filepath.Join(t.TempDir(), "run")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--mode", "fuzzy"}, "--mode"},
		{[]string{"--policy", "oracle"}, "--policy"},
		{[]string{"--k", "0"}, "--k 0"},
		{[]string{"--extra", "[1,2]"}, "--extra"},
		{[]string{"--split", "test"}, "--split"},
		{[]string{"--concurrency", "0"}, "--concurrency"},
		{nil, "needs --base-url"},
		{[]string{"--policy", "baseline", "--base-url", "http://127.0.0.1:1/v1"}, "runs offline"},
	} {
		args := append([]string{"eval", "--tasks", tasks, "--out", out}, c.args...)
		code, _, errOut := run(t, args...)
		if code != cmdkit.ExitUsage || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 naming %q", c.args, code, errOut, c.want)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Fatal("a refused command line created the run folder")
	}
}

func TestEvalSplitWithoutMarksSaysHowToSplit(t *testing.T) {
	tasks := writeFile(t, "tasks.jsonl", `{"id":"a","db":"shop","question":"How many orders?","sql":"SELECT count(*) FROM orders"}`+"\n")
	code, _, errOut := run(t, "eval", "--tasks", tasks, "--split", "holdout", "--policy", "baseline", "--out", filepath.Join(t.TempDir(), "r"))
	if code != cmdkit.ExitError || !strings.Contains(errOut, "no task carries a split") || !strings.Contains(errOut, "hint: mark the tasks first: sqlgym split") {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
}

func TestEvalHelpShowsExamples(t *testing.T) {
	code, out, _ := run(t, "eval", "--help")
	if code != cmdkit.ExitOK || !strings.Contains(out, "Examples:") || !strings.Contains(out, "--seed") || !strings.Contains(out, "samples.jsonl") {
		t.Fatalf("eval --help: exit %d\n%s", code, out)
	}
}

// eval warns when the held-out tasks it scores have a train twin with the
// same gold (issue 15), naming the pair.
func TestEvalWarnsAboutSharedGolds(t *testing.T) {
	t.Setenv("SQLGYM_CACHE", t.TempDir())
	tasks := writeFile(t, "tasks.jsonl",
		`{"id":"a","db":"shop","question":"How many orders?","sql":"SELECT count(*) FROM orders","split":"train"}`+"\n"+
			`{"id":"b","db":"shop","question":"Count the orders.","sql":"select COUNT(*) from orders","split":"holdout"}`+"\n"+
			`{"id":"c","db":"shop","question":"How many customers?","sql":"SELECT count(*) FROM customers","split":"holdout"}`+"\n")
	code, _, errOut := run(t, "eval", "--tasks", tasks, "--split", "holdout", "--policy", "baseline", "--out", filepath.Join(t.TempDir(), "r"))
	if !strings.Contains(errOut, "warning: "+tasks+": 1 held-out tasks have a train task with the same gold") || !strings.Contains(errOut, "holdout b and train a") {
		t.Fatalf("exit %d, no warning naming b and a:\n%s", code, errOut)
	}
}
