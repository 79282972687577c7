package data

import (
	"context"
	"fmt"
	goio "io"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/link"
	"github.com/sqlgym/sqlgym/shopdb"

	"github.com/sqlgym/sqlgym/internal/cmd/cmdkit"
)

type linkOptions struct {
	Tasks  string
	Task   []string
	Schema string
	Report bool
	JSON   bool
	DB     cmdkit.DBFlags
	Linker cmdkit.LinkerFlags
}

const linkLong = `Choose each task's schema as --schema linked would and measure the choice
against the tables and columns its gold query reads.

The linker matches question and evidence words to table and column names
(split at CamelCase and snake_case, stop words dropped, plurals folded,
multi-word names matched as phrases) and question phrases to the distinct
values of text columns (so "Paris" finds city.name), keeps the tables
scoring at least a fifth of the best one (--link-keep), adds a table one
foreign key away when it has evidence of its own, bridges two kept tables, or
hangs off one of the best tables (declared keys, or keys inferred from names
when none are declared), fills up to --link-min-tables, and with
--link-max-chars drops whole tables past the budget.

Per task it prints the kept tables and why, and the gold tables it missed;
then table recall, column recall (gold columns the prompt shows, and those the
linker marked), the share of tasks with every gold table kept, and the
tables and characters kept against the full schema; a footer defines these
terms. --report prints the summary and the misses only. --schema oracle measures the gold's own tables
(a diagnostic: recall 1 by construction, the size of the smallest prompt).

'sqlgym link merge' writes one wide database of many (tables prefixed by
their database's name) and its task file, to measure linking at scale.
See docs/link.md.`

func NewLinkCmd(io cmdkit.IO) *cobra.Command {
	var opts linkOptions
	cmd := &cobra.Command{
		Use:   "link",
		Short: "Schema linking: the tables each question needs, with measured recall",
		Long:  linkLong,
		Example: `  sqlgym link --tasks shop --report
  sqlgym link --tasks spider_dev.jsonl --db-dir ../shared/data/spider_dev/database --report
  sqlgym link --tasks spider_dev.jsonl --db-dir ../shared/data/spider_dev/database --task spider_dev_0042
  sqlgym link --tasks wide.jsonl --db wide=sqlite:wide.sqlite --link-no-values --report --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runLink(cmd.Context(), io, opts) },
	}
	f := cmd.Flags()
	f.StringVar(&opts.Tasks, "tasks", "", "task file (JSONL), or shop for the built-in set")
	f.StringArrayVar(&opts.Task, "task", nil, "only this task id; repeatable")
	f.StringVar(&opts.Schema, "schema", "linked", "what to measure: linked or oracle")
	f.BoolVar(&opts.Report, "report", false, "print the summary and the tasks that missed a gold table only")
	f.BoolVar(&opts.JSON, "json", false, "print JSON")
	cmdkit.AddDBFlags(cmd, &opts.DB)
	cmdkit.AddLinkerFlags(cmd, &opts.Linker)
	_ = cmd.MarkFlagRequired("tasks")
	cmd.AddCommand(newLinkMergeCmd(io))
	return cmd
}

func runLink(ctx context.Context, io cmdkit.IO, opts linkOptions) error {
	src, err := cmdkit.SchemaSource(opts.Schema, opts.Linker)
	if err != nil {
		return err
	}
	if src.Mode() == link.ModeFull {
		return cmdkit.Usagef("--schema full keeps every table: nothing to measure; give linked or oracle")
	}
	tasks, err := shopdb.LoadTasks(opts.Tasks)
	if err != nil {
		return err
	}
	if len(opts.Task) > 0 {
		if tasks, err = pickTasks(tasks, opts.Task, opts.Tasks); err != nil {
			return err
		}
	}
	cat, err := opts.DB.CatalogFor(ctx, tasks)
	if err != nil {
		return err
	}
	defer cat.Close()
	ev, err := link.Evaluate(ctx, cat, src, tasks)
	if err != nil {
		return err
	}
	if opts.Report {
		var missed []link.TaskResult
		for _, t := range ev.Tasks {
			if t.Measured && !t.Score.AllTables {
				missed = append(missed, t)
			}
		}
		ev.Tasks = missed
	}
	if opts.JSON {
		return cmdkit.WriteJSON(io.Out, ev)
	}
	return printLink(io.Out, ev)
}

func pickTasks(tasks []sqlgym.Task, ids []string, path string) ([]sqlgym.Task, error) {
	want := map[string]bool{}
	for _, id := range ids {
		want[id] = true
	}
	var out []sqlgym.Task
	for _, t := range tasks {
		if want[t.ID] {
			out = append(out, t)
			delete(want, t.ID)
		}
	}
	if len(want) > 0 {
		var left []string
		for id := range want {
			left = append(left, id)
		}
		sort.Strings(left)
		return nil, sqlgym.Userf("check the ids in "+path, "no task %s in %s", strings.Join(left, ", "), path)
	}
	return out, nil
}

func printLink(w goio.Writer, ev *link.Evaluation) error {
	for _, t := range ev.Tasks {
		sel := t.Selection
		fmt.Fprintf(w, "%s [%s] %s\n", t.ID, t.DB, t.Question)
		for _, tb := range sel.Tables {
			var why []string
			for _, r := range tb.Why {
				why = append(why, r.String())
			}
			fmt.Fprintf(w, "  keep %s: %s\n", tb.Name, strings.Join(why, "; "))
		}
		if len(sel.Dropped) > 0 {
			fmt.Fprintf(w, "  dropped by the budget: %s\n", strings.Join(sel.Dropped, ", "))
		}
		switch {
		case !t.Measured:
			fmt.Fprintf(w, "  gold names no table of the schema: not measured\n")
		case len(t.Score.Missed) > 0:
			fmt.Fprintf(w, "  MISSED gold tables: %s\n", strings.Join(t.Score.Missed, ", "))
		}
		fmt.Fprintf(w, "  %d of %d tables, %d of %d characters\n", len(sel.Tables), sel.TotalTables, sel.Chars, sel.FullChars)
	}
	s := ev.Summary
	if len(ev.Tasks) > 0 {
		fmt.Fprintln(w)
	}
	mark := ""
	if ev.Mode.Diagnostic() {
		mark = " (DIAGNOSTIC: oracle reads the gold)"
	}
	fmt.Fprintf(w, "schema %s%s: %d tasks (%d with gold tables in the schema)\n", ev.Settings, mark, s.Tasks, s.Measured)
	fmt.Fprintf(w, "  every gold table kept  %5.1f%%\n", 100*s.AllTables)
	fmt.Fprintf(w, "  table recall           %5.1f%% (precision %.1f%%)\n", 100*s.TableRecall, 100*s.Precision)
	fmt.Fprintf(w, "  column recall          %5.1f%% shown, %.1f%% marked\n", 100*s.ColumnRecall, 100*s.MarkedRecall)
	fmt.Fprintf(w, "  tables kept            %5.1f of %.1f (%.1f%%)\n", s.TablesKept, s.TablesTotal, 100*s.TablesShare)
	_, err := fmt.Fprintf(w, "  prompt characters      %5.1f%% of the full schema's\n", 100*s.CharsShare)
	if ev.IndexedColumns > 0 {
		fmt.Fprintf(w, "  value index            %d values of %d text columns (%.1fs to prepare)\n", ev.IndexedValues, ev.IndexedColumns, ev.PrepareSeconds)
	}
	if err == nil {
		_, err = fmt.Fprint(w, linkTerms)
	}
	return err
}

// linkTerms is the footer of link's text output: the numbers above are
// read by people who never opened docs/link.md.
const linkTerms = `
terms: a gold table (column) is one the task's gold SQL reads; kept means in the linked prompt.
  every gold table kept  share of tasks whose prompt holds all their gold tables (a missing one cannot be guessed)
  table recall           mean share of each task's gold tables kept; precision: mean share of kept tables the gold reads
  column recall          gold columns the prompt shows (their table kept); marked: those the linker matched by name, value or key
  tables kept            mean tables in the linked prompt, of the schema's; prompt characters: its size against the full schema
  value index            distinct text values indexed for matching question phrases (--link-values-per-column)
  MISSED gold tables     per task: gold tables the prompt lacks; "not measured": a gold naming no table of the schema
  see docs/link.md
`
