package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
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

// IO is a command's standard streams.
type IO struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer
}

// StdIO is the process's own streams.
func StdIO() IO { return IO{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr} }

// usageError marks an error in how a command was called (exit code 2).
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func usagef(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

// Main runs sqlgym with args and returns the process exit code.
func Main(args []string, io IO) int { return Execute(NewRoot(io), args, io) }

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

const rootLong = `sqlgym makes a database the teacher of text-to-SQL models.

It runs model-written SQL read-only in a sandbox (SQLite, PostgreSQL, DuckDB,
MySQL/MariaDB), compares the rows with a gold query and turns the verdict into
rewards, benchmarks and training data. The built-in database "shop" works offline.

Databases are named the same way in every command:
  --db NAME=URL     URL is sqlite:PATH, duckdb:PATH, postgres://... or mysql://...
  --db-dir DIR      NAME is DIR/NAME/NAME.sqlite or DIR/NAME.sqlite (BIRD/Spider layout)
  shop              always the built-in shop database`

// NewRoot builds the command tree.
func NewRoot(io IO) *cobra.Command {
	root := &cobra.Command{
		Use:           "sqlgym",
		Short:         "Make a database the teacher of text-to-SQL models",
		Long:          rootLong + "\n\n" + exitCodesHelp(),
		SilenceUsage:  true,
		SilenceErrors: true,
		Example: `  sqlgym demo                                      # the whole loop offline
  sqlgym eval --tasks shop --split holdout --policy openai --base-url http://127.0.0.1:8000/v1 \
      --model Qwen/Qwen3-4B --k 4 --temperature 0.7 --out runs/base
  sqlgym compare --base runs/base --treat runs/round1
  sqlgym serve --tasks shop                         # rewards for TRL, verl, OpenRLHF
  sqlgym verify --tasks tasks.jsonl --predictions preds.jsonl --db-dir data/database`,
	}
	root.SetIn(io.In)
	root.SetOut(io.Out)
	root.SetErr(io.ErrOut)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	root.AddCommand(
		newVersionCmd(io),
		newDBCmd(io),
		newSplitCmd(io),
		newVerifyCmd(io),
		newEvalCmd(io),
		newDemoCmd(io),
		newImportCmd(io),
		newReportCmd(io),
		newCompareCmd(io),
		newPowerCmd(io),
		newAuthorCmd(io),
		newScreenCmd(io),
		newVariantsCmd(io),
		newServeCmd(io),
		newBandCmd(io),
		newExportCmd(io),
		newCurateCmd(io),
		newLinkCmd(io),
		newRoundCmd(io),
		newRunsCmd(io),
	)
	markRuns(root)
	return root
}

// writeJSON writes v as indented JSON: the --json convention of every
// command is one JSON document on stdout, nothing else there.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
