package bench

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/engine/duckdb"
	"github.com/sqlgym/sqlgym/internal/cmd/cmdkit"
)

// TestMain lets the test binary be a CPU burner, as sqlgym-bench is:
// startBurners runs its own executable with burnEnv set.
func TestMain(m *testing.M) {
	duckdb.MaybeServeWorker()
	BurnIfAsked()
	os.Exit(m.Run())
}

// run runs sqlgym-bench in-process and returns its exit code, stdout and stderr.
func run(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := Main(args, cmdkit.IO{In: strings.NewReader(""), Out: &out, ErrOut: &errOut})
	return code, out.String(), errOut.String()
}

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
