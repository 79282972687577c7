package bench

import (
	"context"
	"fmt"
	goio "io"
	"os"
	"runtime"
	"slices"

	"github.com/spf13/cobra"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/catalog"
	"github.com/sqlgym/sqlgym/internal/cmd/cmdkit"
	"github.com/sqlgym/sqlgym/internal/proccpu"
	"github.com/sqlgym/sqlgym/shopdb"
	"github.com/sqlgym/sqlgym/variants"
	"github.com/sqlgym/sqlgym/verify"
)

type benchVariantsCostOptions struct {
	Tasks  string
	Refs   []string
	DBDir  string
	DB     string
	NTasks int
	Rounds int
	Seed   uint64
	Mode   string
	All    bool
	JSON   bool
}

func newBenchVariantsCostCmd(io cmdkit.IO) *cobra.Command {
	var opts benchVariantsCostOptions
	cmd := &cobra.Command{
		Use:   "variants-cost",
		Short: "Time judging a GRPO batch on the original plus its variants against the original alone",
		Long: `Judge a 512-answer GRPO batch (--n-tasks tasks of the task file, 16 answers
each: the gold, the gold wrapped in a subquery, the first row only, a count,
DISTINCT added, a broken statement) on the originals alone and on the
originals with their variants (verify --variants: each task on its
db_variants), the two alternated batch by batch for --rounds rounds in this
process after one warm-up batch each. It prints the wall and CPU time
(getrusage, this process) of each side and their ratios, and the statements
each side ran per batch. Give it the tasks.jsonl that sqlgym variants wrote;
--all-variants judges every task on every variant its database has among
the task file's db_variants, as the task files before per-task variants
did. --tasks shop judges the built-in shop on its shipped variants.`,
		Example: `  sqlgym-bench variants-cost --tasks out/tasks.jsonl --db world_1=sqlite:world_1.sqlite --only world_1
  sqlgym-bench variants-cost --tasks out/tasks.jsonl --db bench=sqlite:bench10.sqlite --all-variants --json
  sqlgym-bench variants-cost --tasks shop`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runBenchVariantsCost(cmd.Context(), io, opts) },
	}
	f := cmd.Flags()
	f.StringVar(&opts.Tasks, "tasks", "", "task file with db_variants (the tasks.jsonl of sqlgym variants), or shop")
	f.StringArrayVar(&opts.Refs, "db", nil, "NAME=URL of an original database (repeatable)")
	f.StringVar(&opts.DBDir, "db-dir", "", "folder of NAME/NAME.sqlite originals")
	f.StringVar(&opts.DB, "only", "", "judge only the tasks of this database")
	f.IntVar(&opts.NTasks, "n-tasks", 32, "tasks in the batch (16 answers each), the first of the file")
	f.IntVar(&opts.Rounds, "rounds", 5, "alternated rounds of the two batches")
	f.Uint64Var(&opts.Seed, "seed", 1, "seed of the batch")
	f.StringVar(&opts.Mode, "mode", "multiset", "comparison mode: "+cmdkit.ModeNames())
	f.BoolVar(&opts.All, "all-variants", false, "judge each task on every variant of its database named anywhere in the file")
	f.BoolVar(&opts.JSON, "json", false, "print the report as JSON")
	_ = cmd.MarkFlagRequired("tasks")
	return cmd
}

type benchVariantsCostReport struct {
	Tasks    int    `json:"tasks"`
	Load     string `json:"load_average"`
	CPUs     int    `json:"cpus"`
	Variants int    `json:"variants_per_task_mean_x1000"`
	variants.Cost
	WallRatio float64 `json:"wall_ratio"`
	CPURatio  float64 `json:"cpu_ratio"`
}

func runBenchVariantsCost(ctx context.Context, io cmdkit.IO, opts benchVariantsCostOptions) error {
	mode, err := cmdkit.ParseMode(opts.Mode)
	if err != nil {
		return err
	}
	if opts.Rounds < 1 || opts.Rounds > maxBenchRepeat {
		return cmdkit.Usagef("--rounds %d: between 1 and %d", opts.Rounds, maxBenchRepeat)
	}
	if opts.NTasks < 1 {
		return cmdkit.Usagef("--n-tasks %d: at least 1", opts.NTasks)
	}
	tasks, err := shopdb.LoadTasks(opts.Tasks)
	if err != nil {
		return err
	}
	if opts.DB != "" {
		tasks = slices.DeleteFunc(tasks, func(t sqlgym.Task) bool { return t.DB != opts.DB })
	}
	if len(tasks) == 0 {
		return cmdkit.Usagef("--tasks %s has no task (of database %q)", opts.Tasks, opts.DB)
	}
	if opts.All {
		allVariants(tasks) // from every task of the file, before the cut
	}
	if len(tasks) > opts.NTasks {
		tasks = tasks[:opts.NTasks]
	}
	cache, err := os.MkdirTemp("", "sqlgym-bench-")
	if err != nil {
		return fmt.Errorf("bench variants-cost: %w", err)
	}
	defer os.RemoveAll(cache)
	cat, err := catalog.New(catalog.Config{Refs: opts.Refs, DBDir: opts.DBDir, CacheDir: cache, ShopVariants: true})
	if err != nil {
		return err
	}
	defer cat.Close()
	dialect := func(db string) sqlgym.Dialect {
		u, err := cat.Resolve(db)
		if err != nil {
			return sqlgym.DialectSQLite
		}
		return sqlgym.URLDialect(u)
	}
	answers := variants.CostBatch(tasks, 0, opts.Seed, dialect)
	fmt.Fprintf(io.ErrOut, "judging %d answers to %d tasks, %d rounds of each side...\n", len(answers), len(tasks), opts.Rounds)
	cost, err := variants.MeasureJudging(ctx, cat, tasks, answers, verify.Config{Mode: mode}, opts.Rounds, selfCPU)
	if err != nil {
		return err
	}
	rep := benchVariantsCostReport{Tasks: len(tasks), Load: proccpu.LoadAverage(), CPUs: runtime.NumCPU(), Cost: cost,
		WallRatio: cost.WallRatio(), CPURatio: cost.CPURatio()}
	n := 0
	for _, t := range tasks {
		for _, u := range t.DBVariants {
			if u != t.DB {
				n++
			}
		}
		if len(t.DBVariants) == 0 {
			// The built-in shop's tasks take their lists from the
			// shipped set (catalog.TaskVariants).
			if us, err := cat.TaskVariants(t.DB, t.ID); err == nil && len(us) > 1 {
				n += len(us) - 1
			}
		}
	}
	rep.Variants = 1000 * n / len(tasks)
	if opts.JSON {
		return cmdkit.WriteJSON(io.Out, rep)
	}
	return printVariantsCost(io.Out, rep)
}

// allVariants gives each task every variant its database has in the file.
func allVariants(tasks []sqlgym.Task) {
	byDB := map[string][]string{}
	for _, t := range tasks {
		for _, u := range t.DBVariants {
			if u != t.DB && !slices.Contains(byDB[t.DB], u) {
				byDB[t.DB] = append(byDB[t.DB], u)
			}
		}
	}
	for i := range tasks {
		slices.Sort(byDB[tasks[i].DB])
		tasks[i].DBVariants = slices.Clone(byDB[tasks[i].DB])
	}
}

func printVariantsCost(w goio.Writer, r benchVariantsCostReport) error {
	_, err := fmt.Fprintf(w, `%d answers to %d tasks, %.2f variants a task on average, %d rounds (load %s, %d CPUs)
original alone:        %8.3fs wall %8.3fs CPU  %5d statements a batch
original + variants:   %8.3fs wall %8.3fs CPU  %5d statements a batch
ratio:                 %8.2fx wall %8.2fx CPU
`, r.Answers, r.Tasks, float64(r.Variants)/1000, r.Rounds, r.Load, r.CPUs,
		r.OriginalWall, r.OriginalCPU, r.OriginalRuns, r.VariantsWall, r.VariantsCPU, r.VariantsRuns, r.WallRatio, r.CPURatio)
	return err
}
