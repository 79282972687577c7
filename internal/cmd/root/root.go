package root

import (
	"github.com/spf13/cobra"

	"github.com/sqlgym/sqlgym/internal/cmd/cmdkit"
	datacmd "github.com/sqlgym/sqlgym/internal/cmd/data"
	roundcmd "github.com/sqlgym/sqlgym/internal/cmd/round"
	runcmd "github.com/sqlgym/sqlgym/internal/cmd/run"
	servecmd "github.com/sqlgym/sqlgym/internal/cmd/serve"
)

// Main runs sqlgym with args and returns the process exit code.
func Main(args []string, io cmdkit.IO) int { return cmdkit.Execute(NewRoot(io), args, io) }

const rootLong = `sqlgym makes a database the teacher of text-to-SQL models.

It runs model-written SQL read-only in a sandbox (SQLite, PostgreSQL, DuckDB,
MySQL/MariaDB), compares the rows with a gold query and turns the verdict into
rewards, benchmarks and training data. The built-in database "shop" works offline.

Databases are named the same way in every command:
  --db NAME=URL     URL is sqlite:PATH, duckdb:PATH, postgres://... or mysql://...
  --db-dir DIR      NAME is DIR/NAME/NAME.sqlite or DIR/NAME.sqlite (BIRD/Spider layout)
  shop              always the built-in shop database`

// NewRoot builds the command tree.
func NewRoot(io cmdkit.IO) *cobra.Command {
	root := &cobra.Command{
		Use:           "sqlgym",
		Short:         "Make a database the teacher of text-to-SQL models",
		Long:          rootLong + "\n\n" + cmdkit.ExitCodesHelp(),
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
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return cmdkit.UsageError(err) })
	root.AddCommand(
		newVersionCmd(io),
		datacmd.NewDBCmd(io),
		datacmd.NewSplitCmd(io),
		servecmd.NewVerifyCmd(io),
		runcmd.NewEvalCmd(io),
		runcmd.NewDemoCmd(io),
		datacmd.NewImportCmd(io),
		runcmd.NewReportCmd(io),
		runcmd.NewCompareCmd(io),
		runcmd.NewPowerCmd(io),
		datacmd.NewAuthorCmd(io),
		datacmd.NewScreenCmd(io),
		datacmd.NewVariantsCmd(io),
		servecmd.NewServeCmd(io),
		datacmd.NewBandCmd(io),
		datacmd.NewExportCmd(io),
		datacmd.NewCurateCmd(io),
		datacmd.NewLinkCmd(io),
		roundcmd.NewRoundCmd(io),
		runcmd.NewRunsCmd(io),
	)
	cmdkit.MarkRuns(root)
	return root
}
