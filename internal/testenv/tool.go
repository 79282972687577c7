package testenv

import (
	"os/exec"
	"strings"
	"testing"
)

// debianPackage names the Debian package that installs a command, for the
// hint of a missing tool; a command not listed is its own package.
var debianPackage = map[string]string{
	"chromium-browser": "chromium",
	"psql":             "postgresql-client",
}

// Tool returns the path of the first of names found on PATH (alternatives
// for one tool, such as chromium and chromium-browser). When none is
// there the test is skipped, or fails when SQLGYM_REQUIRE_TOOLS=1, which
// .ci/run sets after installing the tools: a test that compares with an
// outside program must not pass in CI by not running.
func Tool(t testing.TB, names ...string) string {
	t.Helper()
	if len(names) == 0 {
		t.Fatal("testenv.Tool: no command named")
	}
	for _, name := range names {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	pkg := names[0]
	if p, ok := debianPackage[pkg]; ok {
		pkg = p
	}
	missing(t, "SQLGYM_REQUIRE_TOOLS", "no "+strings.Join(names, " or ")+
		" on PATH (install it: apt-get install -y "+pkg+")")
	return ""
}
