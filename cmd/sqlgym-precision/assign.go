package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/variants"
)

// assign rewrites the db_variants of a variants folder's tasks as today's
// generator chooses them (variants.AssignVariants: no variant that
// empties a task's gold or makes it depend on tie order), or, with
// --all, every variant of the database for every task (the choice before
// it): two runs of the same variants that tell what the choice costs.
func assign(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("assign", flag.ContinueOnError)
	fs.SetOutput(stderr)
	tasksPath := fs.String("tasks", "", "the tasks.jsonl of a sqlgym variants folder")
	out := fs.String("out", "", "write the tasks here")
	all := fs.Bool("all", false, "every variant for every task of its database")
	if err := fs.Parse(args); err != nil {
		return errUsage
	}
	if *tasksPath == "" || *out == "" {
		return fmt.Errorf("%w: assign needs --tasks and --out", errUsage)
	}
	tasks, err := sqlgym.ReadTasks(*tasksPath)
	if err != nil {
		return err
	}
	dir, err := filepath.Abs(filepath.Dir(*tasksPath))
	if err != nil {
		return err
	}
	byDB := map[string][]int{}
	var dbs []string
	for i, t := range tasks {
		if byDB[t.DB] == nil {
			dbs = append(dbs, t.DB)
		}
		byDB[t.DB] = append(byDB[t.DB], i)
	}
	left := 0
	for _, db := range dbs {
		orig := filepath.Join(dir, db, db+".sqlite")
		if _, err := os.Stat(orig); err != nil {
			return fmt.Errorf("database %s: %w (assign reads a SQLite variants folder: DIR/NAME/NAME.sqlite beside NAME_vK.sqlite)", db, err)
		}
		vs, _ := filepath.Glob(filepath.Join(dir, db, db+"_v*.sqlite"))
		slices.Sort(vs)
		var urls []string
		for _, v := range vs {
			urls = append(urls, "sqlite:"+v)
		}
		var ts []sqlgym.Task
		for _, i := range byDB[db] {
			ts = append(ts, tasks[i])
		}
		if *all || len(urls) == 0 {
			for i := range ts {
				ts[i].DBVariants = slices.Clone(urls)
			}
		} else {
			lo, err := variants.AssignVariants(context.Background(), ts, sqlgym.DialectSQLite, "sqlite:"+orig, urls, sqlgym.Limits{})
			if err != nil {
				return fmt.Errorf("database %s: %w", db, err)
			}
			for _, l := range lo {
				fmt.Fprintf(stderr, "%s: not judged on %s: %s\n", l.Task, filepath.Base(sqlgym.VariantFile(l.Variant)), l.Reason)
			}
			left += len(lo)
		}
		for k, i := range byDB[db] {
			tasks[i] = ts[k]
		}
	}
	f, err := os.Create(*out)
	if err != nil {
		return err
	}
	if err := sqlgym.WriteTasks(f, tasks); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	_, err = fmt.Fprintf(stdout, "%d tasks, %d variants left out of a task -> %s\n", len(tasks), left, *out)
	return err
}
