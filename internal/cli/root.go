package cli

import (
	"github.com/spf13/cobra"
)

// Main runs sqlgym with args and returns the process exit code.
func Main(args []string, io IO) int { return Execute(NewRoot(io), args, io) }

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
		Long:          rootLong + "\n\n" + ExitCodesHelp(),
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
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return UsageError(err) })
	root.AddCommand(
		newVersionCmd(io),
		NewDBCmd(io),
		NewSplitCmd(io),
		NewVerifyCmd(io),
		NewEvalCmd(io),
		NewDemoCmd(io),
		NewImportCmd(io),
		NewReportCmd(io),
		NewCompareCmd(io),
		NewPowerCmd(io),
		NewAuthorCmd(io),
		NewScreenCmd(io),
		NewVariantsCmd(io),
		NewServeCmd(io),
		NewBandCmd(io),
		NewExportCmd(io),
		NewCurateCmd(io),
		NewLinkCmd(io),
		NewRoundCmd(io),
		NewRunsCmd(io),
	)
	MarkRuns(root)
	return root
}
