package root

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/internal/jsonl"

	"github.com/sqlgym/sqlgym/internal/cmd/cmdkit"
)

// The command reference (docs/commands.md, which the README links for the
// exit codes) holds the exit-code table exactly as exitCodesMarkdown
// renders it, and `sqlgym --help` prints every row.
func TestExitCodeTableIsTheOneInDocsAndHelp(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "docs", "commands.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), exitCodesMarkdown()) {
		t.Errorf("docs/commands.md's exit-code table differs from the one in exitcode.go; paste this:\n%s", exitCodesMarkdown())
	}
	code, out, _ := run(t, "--help")
	for _, c := range cmdkit.ExitCodes {
		want := "  " + strconv.Itoa(c.Code) + " "
		if code != cmdkit.ExitOK || !strings.Contains(out, want) || !strings.Contains(out, c.Name) {
			t.Errorf("--help lacks exit code %d %q", c.Code, c.Name)
		}
	}
}

// exitMention finds "exits 1", "exit code 3", "exit 4" in prose.
var exitMention = regexp.MustCompile(`(?i)\bexit(?:s| code| status)? ([0-9]+)\b`)

// No doc, README line or command help names an exit code the table does
// not have, and none says a failed criterion exits 0 or 1.
func TestDocsNameOnlyTableExitCodes(t *testing.T) {
	known := map[string]bool{}
	for _, c := range cmdkit.ExitCodes {
		known[strconv.Itoa(c.Code)] = true
	}
	files, _ := filepath.Glob(filepath.Join("..", "..", "..", "docs", "*.md"))
	files = append(files, filepath.Join("..", "..", "..", "README.md"))
	texts := map[string]string{}
	for _, f := range files {
		if strings.HasSuffix(f, "sandbox-duckdb.md") {
			continue // its exit statuses are the sandbox worker's, not sqlgym's
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		texts[f] = string(b)
	}
	root := NewRoot(cmdkit.IO{})
	for _, c := range root.Commands() {
		texts["sqlgym "+c.Name()+" --help"] = c.Long
	}
	for name, text := range texts {
		for _, m := range exitMention.FindAllStringSubmatch(text, -1) {
			if !known[m[1]] {
				t.Errorf("%s: %q names an exit code not in the table", name, m[0])
			}
		}
		for _, line := range strings.Split(text, "\n") {
			l := strings.ToLower(line)
			if strings.Contains(l, "criterion") && (strings.Contains(l, "exits 1") || strings.Contains(l, "exit 1") || strings.Contains(l, "stays 0")) {
				t.Errorf("%s: %q: a criterion not met exits %d", name, strings.TrimSpace(line), cmdkit.ExitCriterion)
			}
		}
	}
}

// An eval on a run folder another process is writing exits 11, "locked by
// another run", not 1: a script can wait and try again.
func TestEvalOnALockedRunExitsEleven(t *testing.T) {
	out := filepath.Join(t.TempDir(), "run")
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	held, err := jsonl.Acquire(filepath.Join(out, ".lock"), false)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Release()
	code, _, errOut := run(t, "eval", "--tasks", shopTaskFile(t), "--policy", "baseline", "--k", "1", "--out", out)
	if code != cmdkit.ExitLocked || !strings.Contains(errOut, "another sqlgym eval is writing") {
		t.Fatalf("exit %d, stderr:\n%s", code, errOut)
	}
}

// exitCodesMarkdown is the table as README.md holds it.
func exitCodesMarkdown() string {
	var b strings.Builder
	b.WriteString("| code | meaning |\n|---|---|\n")
	for _, c := range cmdkit.ExitCodes {
		m := c.Name
		if c.Meaning != "" {
			m += ": " + c.Meaning
		}
		fmt.Fprintf(&b, "| %d | %s |\n", c.Code, m)
	}
	return b.String()
}
