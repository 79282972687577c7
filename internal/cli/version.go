package cli

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
)

// Version is set at build time with -ldflags "-X github.com/sqlgym/sqlgym/internal/cli.Version=v1.2.3".
var Version = "dev"

// Commit is set at build time with -ldflags "-X
// github.com/sqlgym/sqlgym/internal/cli.Commit=SHA" where the toolchain
// cannot record it (a container build without .git); the commit the
// toolchain records (-buildvcs) wins.
var Commit = ""

// BuildInfo describes the running binary.
type BuildInfo struct {
	Version  string `json:"version"`
	Commit   string `json:"commit,omitempty"`
	Modified bool   `json:"modified,omitempty"`
	Go       string `json:"go"`
}

// ReadBuildInfo reports the version and the git commit the binary was built
// from, when the Go toolchain recorded it (-buildvcs).
func ReadBuildInfo() BuildInfo {
	bi := BuildInfo{Version: Version, Go: runtime.Version()}
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				bi.Commit = s.Value
			case "vcs.modified":
				bi.Modified = s.Value == "true"
			}
		}
	}
	if bi.Commit == "" {
		bi.Commit = Commit
	}
	if bi.Commit == "" {
		bi.Commit, bi.Modified = gitFallback()
	}
	return bi
}

// gitFallback finds the commit when the toolchain recorded none (go run,
// or GOFLAGS=-buildvcs=false): if the working directory is inside a
// checkout of sqlgym itself, it asks git. In any other directory it
// reports nothing rather than another project's commit.
func gitFallback() (commit string, modified bool) {
	top, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		return "", false
	}
	root := strings.TrimSpace(string(top))
	mod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil || !strings.HasPrefix(string(mod), "module github.com/sqlgym/sqlgym\n") {
		return "", false
	}
	head, err := exec.Command("git", "-C", root, "rev-parse", "HEAD").Output()
	if err != nil {
		return "", false
	}
	status, _ := exec.Command("git", "-C", root, "status", "--porcelain", "--untracked-files=no").Output()
	return strings.TrimSpace(string(head)), len(strings.TrimSpace(string(status))) > 0
}

type versionOptions struct{ JSON bool }

func newVersionCmd(io IO) *cobra.Command {
	var opts versionOptions
	cmd := &cobra.Command{
		Use:     "version",
		Short:   "Print the sqlgym version and the commit it was built from",
		Args:    cobra.NoArgs,
		Example: "  sqlgym version\n  sqlgym version --json",
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runVersion(io, opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print JSON")
	return cmd
}

func runVersion(io IO, opts versionOptions) error {
	bi := ReadBuildInfo()
	if opts.JSON {
		return writeJSON(io.Out, bi)
	}
	commit := bi.Commit
	if commit == "" {
		commit = "unknown commit"
	} else if bi.Modified {
		commit += " (modified)"
	}
	_, err := fmt.Fprintf(io.Out, "sqlgym %s (%s, %s)\n", bi.Version, commit, bi.Go)
	return err
}
