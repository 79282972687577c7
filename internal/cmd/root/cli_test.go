package root

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym"

	"github.com/sqlgym/sqlgym/internal/cmd/cmdkit"
	datacmd "github.com/sqlgym/sqlgym/internal/cmd/data"
)

// run runs sqlgym in-process and returns its exit code, stdout and stderr.
func run(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := Main(args, cmdkit.IO{In: strings.NewReader(""), Out: &out, ErrOut: &errOut})
	return code, out.String(), errOut.String()
}

func TestVersionJSON(t *testing.T) {
	code, out, _ := run(t, "version", "--json")
	if code != cmdkit.ExitOK {
		t.Fatalf("exit %d", code)
	}
	var bi cmdkit.BuildInfo
	if err := json.Unmarshal([]byte(out), &bi); err != nil {
		t.Fatalf("version --json is not JSON: %v\n%s", err, out)
	}
	if bi.Version == "" || !strings.HasPrefix(bi.Go, "go") {
		t.Fatalf("version info %+v", bi)
	}
}

func TestUsageErrorsExitTwo(t *testing.T) {
	for _, args := range [][]string{
		{"no-such-command"},
		{"split", "--no-such-flag"},
		{"split", "--tasks", "x.jsonl"}, // --out missing
		{"version", "extra"},
		{"split", "--tasks", "a", "--out", "b", "--holdout-frac", "1.5"},
	} {
		code, _, errOut := run(t, args...)
		if code != cmdkit.ExitUsage {
			t.Errorf("%v: exit %d, want %d (stderr %q)", args, code, cmdkit.ExitUsage, errOut)
		}
		if !strings.Contains(errOut, "error:") || !strings.Contains(errOut, "--help") {
			t.Errorf("%v: stderr %q lacks the error and the pointer to --help", args, errOut)
		}
	}
}

func TestHelpShowsExamples(t *testing.T) {
	for _, cmd := range []string{"split", "verify", "db create", "version"} {
		args := append(strings.Fields(cmd), "--help")
		code, out, _ := run(t, args...)
		if code != cmdkit.ExitOK || !strings.Contains(out, "Examples:") {
			t.Errorf("%s --help: exit %d, no Examples section:\n%s", cmd, code, out)
		}
	}
}

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestSplitCommand(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 741; i++ {
		fmt.Fprintf(&b, `{"id":"shop_%04d","db":"shop","question":"q","sql":"SELECT %d","keep":true}`+"\n", i, i)
	}
	in := writeFile(t, "tasks.jsonl", b.String())
	outPath := filepath.Join(t.TempDir(), "split.jsonl")
	code, out, errOut := run(t, "split", "--tasks", in, "--holdout-frac", "0.19", "--out", outPath, "--json")
	if code != cmdkit.ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var res datacmd.SplitResult
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("--json output: %v\n%s", err, out)
	}
	if res.Tasks != 741 || res.Train+res.Holdout != 741 || res.Holdout < 110 || res.Holdout > 175 {
		t.Fatalf("split counts %+v, want about 141 of 741 held out", res)
	}
	tasks, err := sqlgym.ReadTasks(outPath)
	if err != nil {
		t.Fatal(err)
	}
	hold := 0
	for _, tk := range tasks {
		if tk.Split == sqlgym.SplitHoldout {
			hold++
		}
		if string(tk.Extra["keep"]) != "true" {
			t.Fatalf("unknown field lost on rewrite: %+v", tk)
		}
	}
	if hold != res.Holdout {
		t.Fatalf("file holds %d holdout tasks, summary says %d", hold, res.Holdout)
	}
	// The text form names the counts.
	code, out, _ = run(t, "split", "--tasks", in, "--holdout-frac", "0.19", "--out", outPath, "--replace")
	if code != cmdkit.ExitOK || !strings.Contains(out, "741 tasks:") || !strings.Contains(out, fmt.Sprintf("%d holdout", res.Holdout)) {
		t.Fatalf("split text output %q", out)
	}
}

func TestSplitBadTaskFileNamesLine(t *testing.T) {
	in := writeFile(t, "bad.jsonl", `{"id":"a","db":"shop","sql":"SELECT 1"}`+"\n"+`{"id":"a","db":"shop","sql":"SELECT 2"}`+"\n")
	code, _, errOut := run(t, "split", "--tasks", in, "--out", filepath.Join(t.TempDir(), "o.jsonl"))
	if code != cmdkit.ExitError || !strings.Contains(errOut, "bad.jsonl:2: duplicate task id") {
		t.Fatalf("exit %d stderr %q", code, errOut)
	}
}

func TestVersionFindsCommitInCheckout(t *testing.T) {
	// The tests run inside the sqlgym checkout, so the commit is known
	// whether or not the toolchain stamped it.
	if _, err := os.Stat("../../../.git"); err != nil {
		t.Skip("not a git checkout")
	}
	if bi := cmdkit.ReadBuildInfo(); len(bi.Commit) != 40 {
		t.Fatalf("commit %q, want a 40-hex git commit", bi.Commit)
	}
	// Elsewhere, no commit is invented.
	t.Chdir(t.TempDir())
	if c, _ := cmdkit.GitFallback(); c != "" {
		t.Fatalf("outside a checkout got commit %q", c)
	}
}
