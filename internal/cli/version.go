package cli

import (
	"fmt"

	"github.com/spf13/cobra"
)

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
		return WriteJSON(io.Out, bi)
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
