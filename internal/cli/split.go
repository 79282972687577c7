package cli

import (
	"fmt"
	goio "io"

	"github.com/spf13/cobra"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/internal/atomicfile"
)

type splitOptions struct {
	Tasks       string
	Out         string
	HoldoutFrac float64
	Salt        string
	JSON        bool
	Replace     bool
}

func newSplitCmd(io IO) *cobra.Command {
	var opts splitOptions
	cmd := &cobra.Command{
		Use:   "split",
		Short: "Mark each task train or holdout by a hash of its id",
		Long: `Mark each task "train" or "holdout" by a hash of its id.

A task is held out when sha256(salt + id), read as a fraction, is below
--holdout-frac. Each task's split depends on its own id only, so adding tasks
never moves an existing task between splits. Held-out tasks are never
exported for training.`,
		Example: `  sqlgym split --tasks tasks.jsonl --holdout-frac 0.2 --out tasks.split.jsonl
  sqlgym split --tasks tasks.jsonl --holdout-frac 0.19 --salt v2 --out tasks.split.jsonl --replace --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runSplit(io, opts) },
	}
	f := cmd.Flags()
	f.StringVar(&opts.Tasks, "tasks", "", "task file (JSONL)")
	f.StringVar(&opts.Out, "out", "", "task file to write (not --tasks itself)")
	f.Float64Var(&opts.HoldoutFrac, "holdout-frac", 0.2, "share of tasks to hold out, in [0, 1]")
	f.StringVar(&opts.Salt, "salt", "", "salt mixed into the hash (changes which tasks are held out)")
	f.BoolVar(&opts.JSON, "json", false, "print JSON")
	_ = cmd.MarkFlagRequired("tasks")
	addReplaceFlag(cmd, &opts.Replace)
	_ = cmd.MarkFlagRequired("out")
	return cmd
}

type splitResult struct {
	Tasks   int     `json:"tasks"`
	Train   int     `json:"train"`
	Holdout int     `json:"holdout"`
	Frac    float64 `json:"holdout_frac"`
	Salt    string  `json:"salt"`
	Out     string  `json:"out"`
}

func runSplit(io IO, opts splitOptions) error {
	if opts.HoldoutFrac < 0 || opts.HoldoutFrac > 1 {
		return usagef("--holdout-frac %v: must be between 0 and 1", opts.HoldoutFrac)
	}
	if err := checkOutput("--out", opts.Out, opts.Replace, opts.Tasks); err != nil {
		return err
	}
	tasks, err := sqlgym.ReadTasks(opts.Tasks)
	if err != nil {
		return err
	}
	train, hold := sqlgym.AssignSplits(tasks, opts.Salt, opts.HoldoutFrac)
	if err := writeTaskFile(opts.Out, tasks); err != nil {
		return err
	}
	res := splitResult{Tasks: len(tasks), Train: train, Holdout: hold, Frac: opts.HoldoutFrac, Salt: opts.Salt, Out: opts.Out}
	if opts.JSON {
		return writeJSON(io.Out, res)
	}
	_, err = fmt.Fprintf(io.Out, "%d tasks: %d train, %d holdout -> %s\n", res.Tasks, res.Train, res.Holdout, res.Out)
	return err
}

// writeTaskFile writes tasks atomically: to a temporary file beside the
// target, then renamed, so an interrupted write never leaves half a file
// (and --out may be the input file).
func writeTaskFile(path string, tasks []sqlgym.Task) error {
	return atomicfile.Write(path, func(w goio.Writer) error { return sqlgym.WriteTasks(w, tasks) })
}
