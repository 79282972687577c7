package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/dataset"
	"github.com/sqlgym/sqlgym/prompt"
	"github.com/sqlgym/sqlgym/rundir"
)

type exportOptions struct {
	Tasks          string
	Band           string
	Format         string
	Out            string
	IncludeHoldout bool
	PromptTemplate string
	Schema         string
	Linker         linkerFlags
	JSON           bool
	DB             dbFlags
}

func newExportCmd(io IO) *cobra.Command {
	var opts exportOptions
	cmd := &cobra.Command{
		Use:   "export",
		Short: "Write a training dataset for TRL (JSONL) or verl (Parquet)",
		Long: `Write tasks as a training dataset, each prompt rendered by the same prompt
renderer and schema text as 'sqlgym eval'.

  --format trl    JSONL: "prompt" (chat messages), "task_id", "db", "gold_sql",
                  "split", "pass_rate" (band only), "prompt_hash"
  --format verl   Parquet: data_source ("sqlgym"), prompt (list of {role,
                  content}), ability ("sql"), reward_model {style "rule",
                  ground_truth: the gold SQL}, extra_info {index, task_id, db,
                  split, pass_rate (-1: none)}

--band takes a run folder (its band is computed as 'sqlgym band' does) or a
band file, and keeps only those tasks of --tasks. Only train tasks are
exported: held-out tasks are skipped, and a band holding any is refused,
unless --include-holdout. See docs/training.md.`,
		Example: `  sqlgym export --tasks shop --format trl --out train.jsonl
  sqlgym export --tasks shop --band runs/base-k16 --format verl --out train.parquet
  sqlgym export --tasks tasks.jsonl --band band.jsonl --db-dir data/database --format trl --out band.trl.jsonl --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runExport(cmd.Context(), io, opts) },
	}
	f := cmd.Flags()
	f.StringVar(&opts.Tasks, "tasks", "", "task file (JSONL), or shop for the built-in set")
	f.StringVar(&opts.Band, "band", "", "keep only the band: a run folder or a band file (sqlgym band)")
	f.StringVar(&opts.Format, "format", "", "trl (JSONL) or verl (Parquet)")
	f.StringVar(&opts.Out, "out", "", "file to write")
	f.BoolVar(&opts.IncludeHoldout, "include-holdout", false, "also export held-out tasks (they are for evaluation)")
	f.StringVar(&opts.PromptTemplate, "prompt-template", "", "prompt template file (default: the built-in one eval uses)")
	f.BoolVar(&opts.JSON, "json", false, "print the counts as JSON")
	f.StringVar(&opts.Schema, "schema", "full", "prompt schema: full or linked (oracle is refused: see sqlgym link)")
	addLinkerFlags(cmd, &opts.Linker)
	addDBFlags(cmd, &opts.DB)
	_ = cmd.MarkFlagRequired("tasks")
	_ = cmd.MarkFlagRequired("format")
	_ = cmd.MarkFlagRequired("out")
	return cmd
}

type exportResult struct {
	Format       string `json:"format"`
	Out          string `json:"out"`
	Examples     int    `json:"examples"`
	HeldOutSkip  int    `json:"holdout_skipped"`
	PromptHash   string `json:"prompt_template_hash"`
	BandSelected bool   `json:"band"`
}

func runExport(ctx context.Context, io IO, opts exportOptions) error {
	if opts.Format != "trl" && opts.Format != "verl" {
		return usagef("--format %q: trl or verl", opts.Format)
	}
	src, err := schemaSource(opts.Schema, opts.Linker)
	if err != nil {
		return err
	}
	if err := refuseOracle(src, "export"); err != nil {
		return err
	}
	tmpl := prompt.Default()
	if opts.PromptTemplate != "" {
		if tmpl, err = prompt.Load(opts.PromptTemplate); err != nil {
			return err
		}
	}
	tasks, err := loadTasks(opts.Tasks)
	if err != nil {
		return err
	}
	if opts.Band != "" {
		sel, err := bandSelection(opts.Band, tasks)
		if err != nil {
			return err
		}
		if tasks, err = dataset.Select(tasks, sel); err != nil {
			return err
		}
		if !opts.IncludeHoldout {
			for _, t := range tasks {
				if t.Split == sqlgym.SplitHoldout {
					return sqlgym.Userf("held-out tasks are for evaluation: make the band from a run on the train split (eval --split train), or pass --include-holdout",
						"the band holds held-out task %q", t.ID)
				}
			}
		}
	}
	tasks, held := dataset.Split(tasks, opts.IncludeHoldout)
	if len(tasks) == 0 {
		return sqlgym.Userf("check --tasks and --band (held-out tasks are skipped unless --include-holdout)", "nothing to export")
	}
	cat, err := opts.DB.catalogFor(ctx, tasks)
	if err != nil {
		return err
	}
	defer cat.Close()
	exs, err := dataset.RenderSchema(ctx, cat, tmpl, src, tasks)
	if err != nil {
		return err
	}
	switch opts.Format {
	case "trl":
		err = writeTRLFile(opts.Out, exs)
	case "verl":
		err = dataset.WriteVerl(opts.Out, exs)
	}
	if err != nil {
		return err
	}
	res := exportResult{Format: opts.Format, Out: opts.Out, Examples: len(exs), HeldOutSkip: held, PromptHash: tmpl.Hash(), BandSelected: opts.Band != ""}
	if opts.JSON {
		return writeJSON(io.Out, res)
	}
	fmt.Fprintf(io.Out, "%d examples (%s) -> %s\n", res.Examples, res.Format, res.Out)
	if held > 0 {
		fmt.Fprintf(io.ErrOut, "skipped %d held-out tasks (--include-holdout exports them)\n", held)
	}
	return nil
}

// bandSelection reads --band: a run folder, whose band is computed, or a
// band file.
func bandSelection(path string, tasks []sqlgym.Task) ([]sqlgym.Task, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, sqlgym.Userf("give a run folder (sqlgym eval --out) or a band file (sqlgym band --out)", "--band %s: %v", path, err)
	}
	if !st.IsDir() {
		return sqlgym.ReadTasks(path)
	}
	samples, err := rundir.ReadSamples(path)
	if err != nil {
		return nil, err
	}
	band, _, err := dataset.Band(tasks, samples)
	return band, err
}

func writeTRLFile(path string, exs []dataset.Example) error {
	f, err := os.CreateTemp(dirOf(path), ".sqlgym-*.jsonl")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer os.Remove(f.Name())
	if err := dataset.WriteTRL(f, exs); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

func dirOf(path string) string { return filepath.Dir(path) }
