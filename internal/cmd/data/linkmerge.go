package data

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/internal/atomicfile"
	"github.com/sqlgym/sqlgym/link"
	"github.com/sqlgym/sqlgym/shopdb"

	"github.com/sqlgym/sqlgym/internal/cmd/cmdkit"
)

type linkMergeOptions struct {
	Tasks    string
	Out      string
	TasksOut string
	Replace  bool
	Name     string
	JSON     bool
	DB       cmdkit.DBFlags
}

func newLinkMergeCmd(io cmdkit.IO) *cobra.Command {
	var opts linkMergeOptions
	cmd := &cobra.Command{
		Use:   "merge",
		Short: "Merge the task file's databases into one wide database, tables prefixed by database",
		Long: `Write one SQLite database holding every table of the databases a task file
uses, renamed DB__TABLE (concert_singer__singer), with columns, keys, foreign
keys and rows, and the task file moved onto it: each task's db becomes --name
and its golds' table references are renamed with the SQL tokenizer (aliases,
columns and literals untouched). Spider dev merged is 80 tables: the wide
schema linking is measured on (docs/link.md). --out must not exist.`,
		Example: `  sqlgym link merge --tasks spider_dev.jsonl --db-dir ../shared/data/spider_dev/database \
      --out spider_wide.sqlite --tasks-out spider_wide.jsonl
  sqlgym link --tasks spider_wide.jsonl --db spider_wide=sqlite:spider_wide.sqlite --report`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runLinkMerge(cmd.Context(), io, opts) },
	}
	f := cmd.Flags()
	f.StringVar(&opts.Tasks, "tasks", "", "task file (JSONL) whose databases to merge")
	f.StringVar(&opts.Out, "out", "", "SQLite file to write")
	f.StringVar(&opts.TasksOut, "tasks-out", "", "task file to write, on the merged database")
	f.StringVar(&opts.Name, "name", "spider_wide", "the merged database's name in the task file")
	f.BoolVar(&opts.JSON, "json", false, "print JSON")
	cmdkit.AddDBFlags(cmd, &opts.DB)
	_ = cmd.MarkFlagRequired("tasks")
	_ = cmd.MarkFlagRequired("out")
	_ = cmd.MarkFlagRequired("tasks-out")
	cmdkit.AddReplaceFlag(cmd, &opts.Replace)
	return cmd
}

type LinkMergeResult struct {
	Databases int    `json:"databases"`
	Tables    int    `json:"tables"`
	Tasks     int    `json:"tasks"`
	Out       string `json:"out"`
	TasksOut  string `json:"tasks_out"`
	Name      string `json:"name"`
}

func runLinkMerge(ctx context.Context, io cmdkit.IO, opts linkMergeOptions) error {
	inputs := append([]string{opts.Tasks}, opts.DB.Inputs()...)
	if err := cmdkit.CheckOutput("--out", opts.Out, opts.Replace, inputs...); err != nil {
		return err
	}
	if err := cmdkit.CheckOutput("--tasks-out", opts.TasksOut, opts.Replace, append(inputs, opts.Out)...); err != nil {
		return err
	}
	tasks, err := shopdb.LoadTasks(opts.Tasks)
	if err != nil {
		return err
	}
	cat, err := opts.DB.CatalogFor(ctx, tasks)
	if err != nil {
		return err
	}
	defer cat.Close()
	var names []string
	seen := map[string]bool{}
	for _, t := range tasks {
		if !seen[t.DB] {
			seen[t.DB] = true
			names = append(names, t.DB)
		}
	}
	var schemas map[string]*sqlgym.Schema
	err = atomicfile.Build(opts.Out, func(tmp string) error {
		var err error
		schemas, err = link.Merge(ctx, cat, names, tmp)
		return err
	})
	if err != nil {
		return err
	}
	out := make([]sqlgym.Task, len(tasks))
	res := LinkMergeResult{Databases: len(names), Tasks: len(tasks), Out: opts.Out, TasksOut: opts.TasksOut, Name: opts.Name}
	for _, s := range schemas {
		res.Tables += len(s.Tables)
	}
	for i, t := range tasks {
		out[i] = link.MergeTask(t, schemas[t.DB], opts.Name)
	}
	if err := writeTaskFile(opts.TasksOut, out); err != nil {
		return err
	}
	if opts.JSON {
		return cmdkit.WriteJSON(io.Out, res)
	}
	_, err = fmt.Fprintf(io.Out, "merged %d databases (%d tables) -> %s; %d tasks -> %s\nuse: --db %s=sqlite:%s\n",
		res.Databases, res.Tables, res.Out, res.Tasks, res.TasksOut, res.Name, res.Out)
	return err
}
