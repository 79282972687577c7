package data

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/sqlgym/sqlgym/dataset"
	"github.com/sqlgym/sqlgym/rundir"
	"github.com/sqlgym/sqlgym/shopdb"

	"github.com/sqlgym/sqlgym/internal/cmd/cmdkit"
)

type BandOptions struct {
	Out     string
	Replace bool
	Tasks   string
	JSON    bool
}

func NewBandCmd(io cmdkit.IO) *cobra.Command { return BandCmd(io, new(BandOptions)) }

// BandCmd is band with its flags bound to opts (see evalCmd).
func BandCmd(io cmdkit.IO, opts *BandOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "band RUN",
		Short: "Pick the tasks a run got right sometimes but not always (the RL band)",
		Long: `Pick the tasks of an evaluation run that the model answered correctly in some
samples and not in all (0 < c < n of the scored samples). Those are the
questions where a group of sampled answers differs in reward, so GRPO-style
training learns from them; tasks always right or always wrong teach nothing.

Samples that are not scored (gold_error, infra_error) count for neither;
a truncated reply counts as not right. The output is a task file (JSONL):
the run's tasks, unchanged, each with a "pass_rate" field, ready for
'sqlgym export --band' and 'sqlgym serve --tasks'. The task file is the one
the run's manifest names, unless --tasks gives it.`,
		Example: `  sqlgym band runs/base-k16 --out band.jsonl
  sqlgym band runs/base-k16 --out band.jsonl --replace --json
  sqlgym export --tasks shop --band band.jsonl --format trl --out train.jsonl`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return runBand(io, args[0], *opts) },
	}
	f := cmd.Flags()
	f.StringVar(&opts.Out, "out", "", "band task file to write (JSONL)")
	f.StringVar(&opts.Tasks, "tasks", "", "the run's task file (default: the one its manifest names), or shop")
	f.BoolVar(&opts.JSON, "json", false, "print the counts as JSON")
	cmdkit.AddReplaceFlag(cmd, &opts.Replace)
	_ = cmd.MarkFlagRequired("out")
	return cmd
}

type BandResult struct {
	Run string `json:"run"`
	dataset.BandStats
	Out string `json:"out"`
}

func runBand(io cmdkit.IO, run string, opts BandOptions) error {
	res, err := Band(run, opts)
	if err != nil {
		return err
	}
	if opts.JSON {
		return cmdkit.WriteJSON(io.Out, res)
	}
	st := res.BandStats
	fmt.Fprintf(io.Out, "%d tasks in %s (%d samples): %d in the band (right sometimes) -> %s\n",
		st.Tasks, run, st.SamplesTotal, st.Band, opts.Out)
	_, err = fmt.Fprintf(io.Out, "always right %d, always wrong %d, no scored sample %d\n", st.AlwaysRight, st.AlwaysWrong, st.Unscored)
	return err
}

// Band writes the band of run to opts.Out and returns its counts.
func Band(run string, opts BandOptions) (BandResult, error) {
	if st, err := os.Stat(run); err != nil || !st.IsDir() {
		return BandResult{}, cmdkit.Usagef("%s: not a run folder (give the --out folder of sqlgym eval)", run)
	}
	if err := cmdkit.CheckOutput("--out", opts.Out, opts.Replace, append(cmdkit.RunInputs(run), opts.Tasks)...); err != nil {
		return BandResult{}, err
	}
	tasksFile := opts.Tasks
	if tasksFile == "" {
		var err error
		if tasksFile, err = dataset.RunTasksFile(run); err != nil {
			return BandResult{}, err
		}
	}
	tasks, err := shopdb.LoadTasks(tasksFile)
	if err != nil {
		return BandResult{}, fmt.Errorf("the run's task file: %w", err)
	}
	samples, err := rundir.ReadSamples(run)
	if err != nil {
		return BandResult{}, err
	}
	if len(samples) == 0 {
		return BandResult{}, cmdkit.Usagef("%s has no samples yet", run)
	}
	band, st, err := dataset.Band(tasks, samples)
	if err != nil {
		return BandResult{}, err
	}
	if err := writeTaskFile(opts.Out, band); err != nil {
		return BandResult{}, err
	}
	return BandResult{Run: run, BandStats: st, Out: opts.Out}, nil
}
