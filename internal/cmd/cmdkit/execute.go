package cmdkit

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/sqlgym/sqlgym/engine/duckdb"
)

// Exit codes; exitCodes (exitcode.go) documents them all.
const (
	ExitOK    = 0
	ExitError = 1
	ExitUsage = 2
)

// Execute runs the command tree root with args, Ctrl-C and SIGTERM
// cancelling its context, and returns the process exit code after
// reporting an error on io.ErrOut. cmd/sqlgym-bench runs its own tree
// through it, so both programs report errors and choose exit codes alike.
func Execute(root *cobra.Command, args []string, io IO) int {
	// A process the command started as a DuckDB worker becomes that here
	// and never returns.
	duckdb.MaybeServeWorker()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return ExitOK
	}
	return reportError(ctx, io.ErrOut, root.Name(), err)
}
