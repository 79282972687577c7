package root

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// docCommands returns the sqlgym command lines of the fenced sh blocks of
// README.md and docs/*.md, continuation lines joined.
func docCommands(t *testing.T) map[string][]string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join("..", "..", "..", "docs", "*.md"))
	files = append(files, filepath.Join("..", "..", "..", "README.md"))
	out := map[string][]string{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		in, cur := false, ""
		for _, line := range strings.Split(string(b), "\n") {
			switch {
			case strings.HasPrefix(line, "```sh"), strings.HasPrefix(line, "```bash"):
				in = true
				continue
			case strings.HasPrefix(line, "```"):
				in = false
				continue
			}
			if !in {
				continue
			}
			cur += strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(line), "\\")) + " "
			if strings.HasSuffix(strings.TrimSpace(line), "\\") {
				continue
			}
			if c := strings.TrimSpace(cur); strings.HasPrefix(c, "sqlgym ") {
				out[f] = append(out[f], c)
			}
			cur = ""
		}
	}
	return out
}

// Every documented `sqlgym eval` that asks a model server names it: the
// default policy is openai, and without --base-url it fails (issue 26:
// docs/training.md's first example).
func TestDocumentedEvalsNameTheirServer(t *testing.T) {
	for f, cmds := range docCommands(t) {
		for _, c := range cmds {
			if !strings.HasPrefix(c, "sqlgym eval ") || strings.Contains(c, "--policy baseline") || strings.Contains(c, "[") || strings.Contains(c, "...") {
				continue
			}
			if !strings.Contains(c, "--base-url") {
				t.Errorf("%s: %q has no --base-url (the openai policy needs one)", f, c)
			}
		}
	}
}
