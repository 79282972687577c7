package bench

import (
	"github.com/spf13/cobra"

	"github.com/sqlgym/sqlgym/internal/cmd/cmdkit"
)

// Main runs sqlgym-bench with args and returns the process exit code.
// A CPU burner started by verify --load becomes one here, before any
// command is parsed.
func Main(args []string, io cmdkit.IO) int {
	BurnIfAsked()
	return cmdkit.Execute(NewRoot(io), args, io)
}

// NewRoot builds sqlgym-bench's command tree: the bench commands, which
// measure sqlgym and are kept out of the user's binary.
func NewRoot(io cmdkit.IO) *cobra.Command {
	root := newBenchCmd(io)
	root.Use = "sqlgym-bench"
	// cobra's own check for a root: an unknown command is a usage error,
	// not the help and exit 0.
	root.Args = nil
	root.SilenceUsage, root.SilenceErrors = true, true
	root.CompletionOptions.DisableDefaultCmd = true // a measuring tool, not typed often enough
	root.SetIn(io.In)
	root.SetOut(io.Out)
	root.SetErr(io.ErrOut)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return cmdkit.UsageError(err) })
	cmdkit.MarkRuns(root)
	return root
}
