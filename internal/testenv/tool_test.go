package testenv

import (
	"fmt"
	"strings"
	"testing"
)

// recorder stands in for a test so that the skip or failure Tool decides
// on can be read instead of ending the calling test.
type recorder struct {
	testing.TB
	calls []string
}

func (r *recorder) Helper()           {}
func (r *recorder) Skip(args ...any)  { r.calls = append(r.calls, "skip: "+fmt.Sprint(args...)) }
func (r *recorder) Fatal(args ...any) { r.calls = append(r.calls, "fatal: "+fmt.Sprint(args...)) }
func (r *recorder) Fatalf(format string, a ...any) {
	r.calls = append(r.calls, "fatal: "+fmt.Sprintf(format, a...))
}

func TestToolFindsACommand(t *testing.T) {
	r := &recorder{}
	if p := Tool(r, "sqlgym-no-such-tool", "sh"); !strings.HasSuffix(p, "/sh") || len(r.calls) != 0 {
		t.Errorf("Tool(no-such, sh) = %q, calls %q", p, r.calls)
	}
}

func TestToolMissingSkipsOrFails(t *testing.T) {
	for _, tc := range []struct{ require, want string }{{"", "skip: "}, {"1", "fatal: "}} {
		t.Setenv("SQLGYM_REQUIRE_TOOLS", tc.require)
		r := &recorder{}
		if p := Tool(r, "psql-no-such", "sqlgym-no-such-tool"); p != "" {
			t.Errorf("found %q", p)
		}
		if len(r.calls) == 0 || !strings.HasPrefix(r.calls[0], tc.want) ||
			!strings.Contains(r.calls[0], "no psql-no-such or sqlgym-no-such-tool on PATH") ||
			!strings.Contains(r.calls[0], "apt-get install -y psql-no-such") {
			t.Errorf("SQLGYM_REQUIRE_TOOLS=%q: calls %q, want first %q with an install hint", tc.require, r.calls, tc.want)
		}
	}
}
