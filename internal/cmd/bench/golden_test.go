package bench

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/sqlgym/sqlgym/internal/cmd/cmdkit"
)

// The help of every sqlgym-bench command, pinned as internal/cmd/root pins
// sqlgym's: -update (or SQLGYM_UPDATE_GOLDEN=1) rewrites testdata/help.
var updateGolden = flag.Bool("update", false, "rewrite testdata/help/*.golden from the current output")

func TestHelpGolden(t *testing.T) {
	var walk func(c *cobra.Command, path []string)
	var paths [][]string
	walk = func(c *cobra.Command, path []string) {
		paths = append(paths, path)
		for _, sub := range c.Commands() {
			if !sub.Hidden {
				walk(sub, append(append([]string(nil), path...), sub.Name()))
			}
		}
	}
	walk(NewRoot(cmdkit.IO{}), nil)
	if len(paths) != 6 { // the root, serve, verify, cluster, variants-cost, bounds
		t.Fatalf("sqlgym-bench has %d visible commands, want 6: %v", len(paths), paths)
	}
	for _, p := range paths {
		name := strings.Join(append([]string{"sqlgym-bench"}, p...), "_")
		code, out, errOut := run(t, append(append([]string(nil), p...), "--help")...)
		if code != cmdkit.ExitOK || errOut != "" {
			t.Fatalf("%s --help: exit %d, stderr %q", name, code, errOut)
		}
		golden := filepath.Join("testdata", "help", name+".golden")
		if *updateGolden || os.Getenv("SQLGYM_UPDATE_GOLDEN") == "1" {
			if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(golden, []byte(out), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatalf("%v (go test -run TestHelpGolden -update writes it)", err)
		}
		if out != string(want) {
			t.Errorf("%s --help differs from %s (go test -update rewrites it if the change is meant):\n%s", name, golden, out)
		}
	}
}
