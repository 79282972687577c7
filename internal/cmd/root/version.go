package root

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/sqlgym/sqlgym/internal/cmd/cmdkit"
)

type versionOptions struct{ JSON bool }

func newVersionCmd(io cmdkit.IO) *cobra.Command {
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

func runVersion(io cmdkit.IO, opts versionOptions) error {
	bi := cmdkit.ReadBuildInfo()
	if opts.JSON {
		return cmdkit.WriteJSON(io.Out, bi)
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
