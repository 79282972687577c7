package root

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/rundir"

	"github.com/sqlgym/sqlgym/internal/cmd/cmdkit"
)

// eval on a split file without --split scores the held-out tasks and says
// so (issue 26: it scored the train tasks too, silently); --split all
// still scores every task.
func TestEvalDefaultsToTheHeldOutSplit(t *testing.T) {
	t.Setenv("SQLGYM_CACHE", t.TempDir())
	tf := shopTasksN(t, 6, 3)
	for _, c := range []struct {
		flags  []string
		split  string
		tasks  int
		notice bool
	}{{nil, "holdout", 3, true}, {[]string{"--split", "all"}, "all", 9, false}} {
		out := filepath.Join(t.TempDir(), "run")
		code, _, errOut := run(t, append([]string{"eval", "--tasks", tf, "--policy", "baseline", "--k", "1", "--out", out}, c.flags...)...)
		if code != cmdkit.ExitOK {
			t.Fatalf("%v: exit %d %s", c.flags, code, errOut)
		}
		m, err := rundir.ReadManifest(out)
		if err != nil {
			t.Fatal(err)
		}
		if m.Split != c.split || m.TaskCount != c.tasks {
			t.Errorf("%v: split %q with %d tasks, want %q with %d", c.flags, m.Split, m.TaskCount, c.split, c.tasks)
		}
		if got := strings.Contains(errOut, "eval: scoring the 3 held-out tasks"); got != c.notice {
			t.Errorf("%v: notice %v, want %v:\n%s", c.flags, got, c.notice, errOut)
		}
	}
}
