package root

import (
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/internal/cmd/cmdkit"
)

func TestScaleHelpShowsExamples(t *testing.T) {
	_, out, _ := run(t, "serve", "--help")
	for _, want := range []string{"--replica-id", "--unready-delay", "/readyz"} {
		if !strings.Contains(out, want) {
			t.Errorf("serve --help does not mention %s", want)
		}
	}
}

// Bad settings for many replicas are usage errors that name the fix.
func TestScaleFlagsRefused(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"serve", "--tasks", "shop", "--replica-id", "node.1"}, "DNS label"},
		{[]string{"eval", "--tasks", "shop", "--model", "m", "--out", "OUT", "--base-url", "http://a:8000/v1", "--base-url", "http://a:8000"}, "twice"},
	} {
		for i, a := range c.args {
			if a == "OUT" {
				c.args[i] = t.TempDir()
			}
		}
		code, _, errOut := run(t, c.args...)
		if code == cmdkit.ExitOK || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want it to mention %q", c.args, code, errOut, c.want)
		}
	}
}
