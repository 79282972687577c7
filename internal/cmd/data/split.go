package data

import (
	"fmt"
	goio "io"

	"github.com/spf13/cobra"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/dataset"
	"github.com/sqlgym/sqlgym/internal/atomicfile"
	"github.com/sqlgym/sqlgym/shopdb"

	"github.com/sqlgym/sqlgym/internal/cmd/cmdkit"
)

type splitOptions struct {
	Tasks       string
	Out         string
	HoldoutFrac float64
	Salt        string
	GroupBy     string
	JSON        bool
	Replace     bool
}

func NewSplitCmd(io cmdkit.IO) *cobra.Command {
	var opts splitOptions
	cmd := &cobra.Command{
		Use:   "split",
		Short: "Mark each task train or holdout by a hash of its id, keeping tasks with one gold together",
		Long: `Mark each task "train" or "holdout" by a hash of its id.

A task is held out when sha256(salt + id), read as a fraction, is below
--holdout-frac. Tasks with the same gold are kept in one split, so that no
held-out question has its answer in the training data (Spider asks most of
its questions twice, in other words, with one gold): a group of tasks is
placed by the hash of its smallest id. --group-by chooses the groups:

  gold  same normalised gold SQL on the same database (the default)
  sql   same normalised gold SQL on any database
  db    every task of a database in one split
  none  no groups: each task by its own id (how split worked before groups)

A task alone in its group lands where its own id puts it, so adding tasks
moves none of them, unless a new task joins a group with a smaller id than
the group's. Held-out tasks are never exported for training. split warns
when the input's existing splits share a gold.`,
		Example: `  sqlgym split --tasks tasks.jsonl --holdout-frac 0.2 --out tasks.split.jsonl
  sqlgym split --tasks shop --out shop.split.jsonl --group-by db
  sqlgym split --tasks tasks.jsonl --holdout-frac 0.19 --salt v2 --out tasks.split.jsonl --replace --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runSplit(io, opts) },
	}
	f := cmd.Flags()
	f.StringVar(&opts.Tasks, "tasks", "", "task file (JSONL)")
	f.StringVar(&opts.Out, "out", "", "task file to write (not --tasks itself)")
	f.Float64Var(&opts.HoldoutFrac, "holdout-frac", 0.2, "share of tasks to hold out, in [0, 1]")
	f.StringVar(&opts.Salt, "salt", "", "salt mixed into the hash (changes which tasks are held out)")
	f.StringVar(&opts.GroupBy, "group-by", dataset.GroupGoldDB, "keep together tasks with the same: gold (on one database), sql (on any database), db, or none")
	f.BoolVar(&opts.JSON, "json", false, "print JSON")
	_ = cmd.MarkFlagRequired("tasks")
	cmdkit.AddReplaceFlag(cmd, &opts.Replace)
	_ = cmd.MarkFlagRequired("out")
	return cmd
}

type SplitResult struct {
	Tasks   int     `json:"tasks"`
	Train   int     `json:"train"`
	Holdout int     `json:"holdout"`
	Frac    float64 `json:"holdout_frac"`
	Salt    string  `json:"salt"`
	GroupBy string  `json:"group_by"`
	// Grouped counts tasks that share their group with another task.
	Grouped int `json:"grouped"`
	// Moved counts tasks of the input that had a split and now have the
	// other one.
	Moved int    `json:"moved"`
	Out   string `json:"out"`
	// SharedBefore and SharedAfter count held-out tasks with a train task
	// of the same gold on the same database, in the input and the output.
	SharedBefore int `json:"shared_gold_holdout_before"`
	SharedAfter  int `json:"shared_gold_holdout_after"`
}

func runSplit(io cmdkit.IO, opts splitOptions) error {
	if opts.HoldoutFrac < 0 || opts.HoldoutFrac > 1 {
		return cmdkit.Usagef("--holdout-frac %v: must be between 0 and 1", opts.HoldoutFrac)
	}
	var groups []string
	if opts.GroupBy != "none" {
		var err error
		if groups, err = dataset.SplitGroups(nil, opts.GroupBy); err != nil {
			return cmdkit.Usagef("--group-by %q: gold, sql, db or none", opts.GroupBy)
		}
	}
	if err := cmdkit.CheckOutput("--out", opts.Out, opts.Replace, opts.Tasks); err != nil {
		return err
	}
	tasks, err := shopdb.LoadTasks(opts.Tasks)
	if err != nil {
		return err
	}
	before := dataset.SharedGolds(tasks)
	if w := dataset.SharedGoldWarning(before); w != "" {
		fmt.Fprintf(io.ErrOut, "warning: %s: %s\n", opts.Tasks, w)
	}
	prev := make([]string, len(tasks))
	for i, t := range tasks {
		prev[i] = t.Split
	}
	if opts.GroupBy != "none" {
		groups, _ = dataset.SplitGroups(tasks, opts.GroupBy)
	}
	train, hold := sqlgym.AssignSplitGroups(tasks, groups, opts.Salt, opts.HoldoutFrac)
	after := dataset.SharedGolds(tasks)
	res := SplitResult{Tasks: len(tasks), Train: train, Holdout: hold, Frac: opts.HoldoutFrac, Salt: opts.Salt,
		GroupBy: opts.GroupBy, Grouped: grouped(groups), Out: opts.Out,
		SharedBefore: sharedHoldout(before), SharedAfter: sharedHoldout(after)}
	for i, t := range tasks {
		if prev[i] != "" && prev[i] != t.Split {
			res.Moved++
		}
	}
	if err := writeTaskFile(opts.Out, tasks); err != nil {
		return err
	}
	if w := dataset.SharedGoldWarning(after); w != "" {
		fmt.Fprintf(io.ErrOut, "warning: %s: %s\n", opts.Out, w)
	}
	if opts.JSON {
		return cmdkit.WriteJSON(io.Out, res)
	}
	fmt.Fprintf(io.Out, "%d tasks: %d train, %d holdout -> %s\n", res.Tasks, res.Train, res.Holdout, res.Out)
	_, err = fmt.Fprintf(io.Out, "grouped by %s: %d tasks share a group; %d tasks changed split; held-out tasks with a train twin: %d before, %d after\n",
		res.GroupBy, res.Grouped, res.Moved, res.SharedBefore, res.SharedAfter)
	return err
}

// grouped counts the tasks whose group holds another task too.
func grouped(groups []string) int {
	n := map[string]int{}
	for _, g := range groups {
		n[g]++
	}
	c := 0
	for _, g := range groups {
		if n[g] > 1 {
			c++
		}
	}
	return c
}

func sharedHoldout(shared []dataset.SharedGold) int {
	n := 0
	for _, g := range shared {
		n += len(g.Holdout)
	}
	return n
}

// writeTaskFile writes tasks atomically: to a temporary file beside the
// target, then renamed, so an interrupted write never leaves half a file
// (and --out may be the input file).
func writeTaskFile(path string, tasks []sqlgym.Task) error {
	return atomicfile.Write(path, func(w goio.Writer) error { return sqlgym.WriteTasks(w, tasks) })
}
