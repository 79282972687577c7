package root

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/internal/cmd/cmdkit"
)

// The command reference's figure for the built-in set's screen is what
// `sqlgym screen --tasks shop` prints today (issue 26: the README said 295
// of 992). The README itself carries no such figure.
func TestDocsScreenFigureIsTheBinarys(t *testing.T) {
	t.Setenv("SQLGYM_CACHE", t.TempDir())
	code, out, errOut := run(t, "screen", "--tasks", "shop")
	if code != cmdkit.ExitOK {
		t.Fatalf("screen: exit %d %s", code, errOut)
	}
	line := ""
	for _, l := range strings.Split(out+errOut, "\n") {
		if strings.HasPrefix(l, "mode multiset: ") {
			line = l
		}
	}
	_, fig, ok := strings.Cut(line, "mode multiset: ")
	fig, _, _ = strings.Cut(fig, " screened tasks")
	if !ok || fig == "" {
		t.Fatalf("no 'mode multiset:' line in:\n%s", out)
	}
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "docs", "commands.md"))
	if err != nil {
		t.Fatal(err)
	}
	readme := strings.Join(strings.Fields(string(b)), " ")
	if !strings.Contains(readme, fig+" screened tasks") {
		t.Errorf("docs/commands.md does not say %q (the binary prints %q)", fig+" screened tasks", line)
	}
}
