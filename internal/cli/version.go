package cli

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// Version is set at build time with -ldflags "-X github.com/sqlgym/sqlgym/internal/cli.Version=v1.2.3".
var Version = "dev"

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
	return bi
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
