package root

import (
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/sqlgym/sqlgym/internal/cmd/cmdkit"
)

// The golden files pin what a user sees: every command's --help and the
// --json of the commands that work offline. They exist so that moving the
// commands between packages is checked to change nothing a user can see.
// -update (or SQLGYM_UPDATE_GOLDEN=1) rewrites them from the current output.
var updateGolden = flag.Bool("update", false, "rewrite testdata/**/*.golden from the current output")

func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", filepath.FromSlash(name)+".golden")
	if *updateGolden || os.Getenv("SQLGYM_UPDATE_GOLDEN") == "1" {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -run %s -update to write it)", err, t.Name())
	}
	if got != string(want) {
		t.Errorf("%s differs from %s (go test -update rewrites it if the change is meant):\n%s",
			name, path, firstDiff(string(want), got))
	}
}

// firstDiff shows the first line where want and got part, with its neighbours.
func firstDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(w) || i < len(g); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			return "line " + strconv.Itoa(i+1) + ":\n  want: " + wl + "\n  got:  " + gl
		}
	}
	return "(same lines, different line endings)"
}

// commandPaths lists every command of the tree by its words after "sqlgym",
// the root as the empty path. cobra's own "help" and "completion" commands
// are added when the tree runs, so they are not in it; the root's help
// lists them, which its golden file covers.
func commandPaths(c *cobra.Command, prefix []string) [][]string {
	paths := [][]string{prefix}
	for _, sub := range c.Commands() {
		if sub.Hidden {
			continue
		}
		paths = append(paths, commandPaths(sub, append(append([]string(nil), prefix...), sub.Name()))...)
	}
	return paths
}

func TestHelpGolden(t *testing.T) {
	paths := commandPaths(NewRoot(cmdkit.IO{}), nil)
	if len(paths) < 25 {
		t.Fatalf("only %d commands in the tree", len(paths))
	}
	for _, p := range paths {
		name := "sqlgym"
		if len(p) > 0 {
			name = strings.Join(p, "_")
		}
		t.Run(name, func(t *testing.T) {
			code, out, errOut := run(t, append(append([]string(nil), p...), "--help")...)
			if code != cmdkit.ExitOK || errOut != "" {
				t.Fatalf("exit %d, stderr %q", code, errOut)
			}
			checkGolden(t, "help/"+name, out)
		})
	}
}

var (
	timeRE    = regexp.MustCompile(`"(started|ended|created|time|at|written)": "[0-9]{4}-[0-9]{2}-[0-9]{2}T[^"]*"`)
	goRE      = regexp.MustCompile(`"go": "go[^"]*"`)
	versionRE = regexp.MustCompile(`"(version|sqlgym_version|commit|git_commit)": "[^"]*"`)
	// modifiedRE is the checkout's state, present only when it has changes.
	modifiedRE = regexp.MustCompile(`\n *"modified": (true|false),`)
)

// normalise replaces what varies between runs of the test and nothing
// else: the temporary folder, wall-clock times, the toolchain and the
// build's version.
func normalise(s, tmp string) string {
	s = strings.ReplaceAll(s, tmp, "$TMP")
	s = timeRE.ReplaceAllString(s, `"$1": "$$TIME"`)
	s = goRE.ReplaceAllString(s, `"go": "$$GO"`)
	s = versionRE.ReplaceAllString(s, `"$1": "$$VERSION"`)
	s = modifiedRE.ReplaceAllString(s, "")
	return s
}

func TestJSONGolden(t *testing.T) {
	tmp := t.TempDir()
	runs := filepath.Join(tmp, "runs")
	steps := []struct {
		name string
		args []string
	}{
		{"version", []string{"version", "--json"}},
		{"db_schema_shop", []string{"db", "schema", "shop", "--json"}},
		{"split", []string{"split", "--tasks", "shop", "--out", filepath.Join(tmp, "split.jsonl"), "--json"}},
		{"screen", []string{"screen", "--tasks", "shop", "--json"}},
		{"eval_base", []string{"eval", "--tasks", "shop", "--policy", "baseline", "--k", "2", "--seed", "1",
			"--out", filepath.Join(runs, "base"), "--json"}},
		{"eval_treat", []string{"eval", "--tasks", "shop", "--policy", "baseline", "--k", "2", "--seed", "2",
			"--out", filepath.Join(runs, "treat"), "--json"}},
		{"report", []string{"report", filepath.Join(runs, "base"), "--json"}},
		{"power", []string{"power", "--run", filepath.Join(runs, "base"), "--delta", "0.03", "--json"}},
		{"compare", []string{"compare", "--base", filepath.Join(runs, "base"), "--treat", filepath.Join(runs, "treat"), "--json"}},
		{"band", []string{"band", filepath.Join(runs, "base"), "--out", filepath.Join(tmp, "band.jsonl"), "--json"}},
		{"runs", []string{"runs", runs, "--json"}},
	}
	for _, s := range steps {
		code, out, errOut := run(t, s.args...)
		if code != cmdkit.ExitOK {
			t.Fatalf("%v: exit %d\n%s", s.args, code, errOut)
		}
		checkGolden(t, "json/"+s.name, normalise(out, tmp))
	}
}
