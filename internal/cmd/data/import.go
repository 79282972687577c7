package data

import (
	"fmt"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/importer"

	"github.com/sqlgym/sqlgym/internal/cmd/cmdkit"
)

type importOptions struct {
	Format  string
	Src     string
	Out     string
	Replace bool
	JSON    bool
}

func NewImportCmd(io cmdkit.IO) *cobra.Command {
	var opts importOptions
	cmd := &cobra.Command{
		Use:   "import FORMAT SRC",
		Short: "Turn a public benchmark into a task file (bird, spider, spider2-lite, defog)",
		Long: `Turn a public benchmark into a sqlgym task file, keeping its ids, difficulty,
evidence, database ids, alternative golds and Spider 2.0's condition_cols and
ignore_order.

  bird          dev.json beside dev_databases/
  spider        dev.json beside database/ (or the JSONL question files of ../shared/data)
  spider2-lite  spider2-lite.jsonl and evaluation_suite/gold/ (the SQLite slice: local*)
  defog         sql-eval's questions CSV, {a, b} alternatives expanded (or JSONL)

Then point verify or eval at the databases with --db-dir.`,
		Example: `  sqlgym import spider ../shared/data/spider_dev --out spider_dev.jsonl
  sqlgym import defog ../shared/data/defog/questions_gen_sqlite.jsonl --out defog.jsonl
  sqlgym import bird data/bird/dev --out bird_dev.jsonl --json`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Format, opts.Src = args[0], args[1]
			return runImport(io, opts)
		},
	}
	cmd.Flags().StringVar(&opts.Out, "out", "", "task file to write (JSONL)")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the report as JSON")
	_ = cmd.MarkFlagRequired("out")
	cmdkit.AddReplaceFlag(cmd, &opts.Replace)
	return cmd
}

func runImport(io cmdkit.IO, opts importOptions) error {
	if err := cmdkit.CheckOutput("--out", opts.Out, opts.Replace, opts.Src); err != nil {
		return err
	}
	tasks, rep, err := importer.Import(opts.Format, opts.Src)
	if err != nil {
		return err
	}
	if err := writeTaskFile(opts.Out, tasks); err != nil {
		return err
	}
	if opts.JSON {
		return cmdkit.WriteJSON(io.Out, rep)
	}
	fmt.Fprintf(io.Out, "imported %d tasks over %d databases from %s -> %s\n", rep.Tasks, len(rep.Database), opts.Src, opts.Out)
	var skipped []string
	for why, n := range rep.Skipped {
		skipped = append(skipped, fmt.Sprintf("%d %s", n, why))
	}
	sort.Strings(skipped)
	if len(skipped) > 0 {
		fmt.Fprintf(io.Out, "skipped: %s\n", strings.Join(skipped, ", "))
	}
	if rep.DBDir != "" {
		fmt.Fprintf(io.Out, "databases: --db-dir %s\n", rep.DBDir)
	}
	if rep.MySQLGolds > 0 {
		fmt.Fprintf(io.Out, "%d tasks carry their MySQL gold too (gold_sql_by_dialect.mysql)\n", rep.MySQLGolds)
	}
	if rep.Dialect == sqlgym.DialectMySQL && len(rep.Database) > 0 {
		// BIRD's MySQL edition loads every database's tables into one
		// MySQL database (BIRD_dev.sql into BIRD).
		fmt.Fprintf(io.Out, "golds are MySQL's: name each database on the server that loaded BIRD_dev.sql, e.g. --db %s=mysql://USER:PASS@HOST:3306/BIRD (one --db per name: %s)\n",
			rep.Database[0], strings.Join(rep.Database, ", "))
	}
	return nil
}
