package data

import (
	"context"
	"fmt"
	goio "io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/catalog"
	"github.com/sqlgym/sqlgym/constraints"
	"github.com/sqlgym/sqlgym/schema"
	"github.com/sqlgym/sqlgym/screen"
	"github.com/sqlgym/sqlgym/shopdb"
	"github.com/sqlgym/sqlgym/verify"

	"github.com/sqlgym/sqlgym/internal/cmd/cmdkit"
)

type screenOptions struct {
	Tasks        string
	Out          string
	DropWeak     bool
	Mode         string
	KeepDistinct bool
	Kinds        string
	MaxPerKind   int
	Timeout      time.Duration
	JSON         bool
	DB           cmdkit.DBFlags
	Replace      bool
}

func NewScreenCmd(io cmdkit.IO) *cobra.Command {
	var opts screenOptions
	cmd := &cobra.Command{
		Use:   "screen",
		Short: "Find weak tasks: golds whose data cannot tell a near miss from the answer",
		Long: `Screen a task set for weak tasks. For each gold, write near-miss mutants that
change its meaning (a WHERE condition dropped, a comparison flipped, ASC and
DESC swapped, DISTINCT dropped or added, COUNT(x) and COUNT(DISTINCT x), LIMIT
off by one, INNER and LEFT JOIN, SUM/AVG and MIN/MAX swapped, and the mistakes
models make: a wrong column, join key or grain, a GROUP BY key missing, a
compared literal off by one, the wrong sort key) and judge each
against the gold with the verifier, under --mode, exactly as a reward would.
A mutant judged correct is a mistake the reward cannot see on this data: the
task is marked "weak": true with its "weak_mutants" [{"kind","sql"}].

Mutants whose only effect the mode ignores by design are not judged: row
order under bird and f1, duplicates of the outer result under bird and f1,
DISTINCT under testsuite (its scorer strips DISTINCT from both queries).

--out writes the tasks back with their marks (--drop-weak leaves weak tasks
out); without --out only the report is printed. --kinds limits the mutants,
e.g. --kinds drop_conjunct,flip_comparison. See docs/authoring.md, "The
weak-task screen".`,
		Example: `  sqlgym screen --tasks shop --out shop.screened.jsonl
  sqlgym screen --tasks tasks.jsonl --db mydb=sqlite:my.sqlite --drop-weak --out strong.jsonl --json
  sqlgym screen --tasks spider.jsonl --db-dir spider/database --mode testsuite`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runScreen(cmd.Context(), io, opts) },
	}
	f := cmd.Flags()
	f.StringVar(&opts.Tasks, "tasks", "", "task file (JSONL), or shop for the built-in shop task set")
	f.StringVar(&opts.Out, "out", "", "write the screened tasks here (JSONL)")
	f.BoolVar(&opts.DropWeak, "drop-weak", false, "leave weak tasks out of --out")
	f.StringVar(&opts.Mode, "mode", "multiset", "comparison mode: "+cmdkit.ModeNames())
	f.BoolVar(&opts.KeepDistinct, "keep-distinct", false, "testsuite mode: keep DISTINCT (the official script removes it by default)")
	f.StringVar(&opts.Kinds, "kinds", "", "mutant kinds, comma-separated (default all): "+kindNames())
	f.IntVar(&opts.MaxPerKind, "max-per-kind", screen.DefaultMaxPerKind, "most mutants of one kind per gold")
	f.DurationVar(&opts.Timeout, "timeout", sqlgym.DefaultTimeout, "time limit per statement on PostgreSQL and DuckDB (SQLite: its default step budget decides)")
	f.BoolVar(&opts.JSON, "json", false, "print the report as JSON")
	cmdkit.AddDBFlags(cmd, &opts.DB)
	cmdkit.AddVariantsFlag(cmd, &opts.DB)
	_ = cmd.MarkFlagRequired("tasks")
	cmdkit.AddReplaceFlag(cmd, &opts.Replace)
	return cmd
}

// taskSchemas describes each database of the tasks, for the mutant kinds
// that pick another column of the same type. A database that cannot
// describe itself gets none (those kinds then make no mutants of its
// golds); one that cannot be reached is an error.
func taskSchemas(ctx context.Context, cat *catalog.Catalog, tasks []sqlgym.Task) (map[string]*sqlgym.Schema, error) {
	out := map[string]*sqlgym.Schema{}
	for _, t := range tasks {
		if _, done := out[t.DB]; done {
			continue
		}
		out[t.DB] = nil
		eng, err := cat.Engine(ctx, t.DB)
		if err != nil {
			return nil, fmt.Errorf("database %s: %w", t.DB, err)
		}
		if s, err := schema.Load(ctx, eng, 0); err == nil {
			out[t.DB] = s
		} else if sqlgym.IsInfra(err) {
			return nil, fmt.Errorf("database %s: %w", t.DB, err)
		}
	}
	return out, nil
}

// keyedSchemas is taskSchemas with each database's declared keys and the
// keys and column facts its data implies applied (constraints.Set.Apply,
// ApplyFacts), as far as they also hold on every variant it is judged on
// (constraints.Set.HoldsOn): the schemas screen's equivalence proofs read,
// sound whoever made the variants.
func keyedSchemas(ctx context.Context, cat *catalog.Catalog, schemas map[string]*sqlgym.Schema) (map[string]*sqlgym.Schema, error) {
	out := map[string]*sqlgym.Schema{}
	for db, s := range schemas {
		out[db] = s
		if s == nil {
			continue
		}
		cons, err := keysOnAll(ctx, cat, db, s)
		if err != nil {
			if sqlgym.IsInfra(err) {
				return nil, fmt.Errorf("database %s: %w", db, err)
			}
			continue // the declared keys alone
		}
		out[db] = cons.Apply(s, true)
		cons.ApplyFacts(out[db])
	}
	return out, nil
}

// keysOnAll infers db's constraints and keeps what holds on its variants.
func keysOnAll(ctx context.Context, cat *catalog.Catalog, db string, s *sqlgym.Schema) (*constraints.Set, error) {
	eng, err := cat.Engine(ctx, db)
	if err != nil {
		return nil, err
	}
	cons, err := constraints.Infer(ctx, eng, s, constraints.Options{})
	if err != nil {
		return nil, err
	}
	urls, err := cat.Variants(db)
	if err != nil {
		return nil, err
	}
	for _, u := range urls[min(1, len(urls)):] {
		veng, err := cat.EngineURL(ctx, u)
		if err != nil {
			return nil, err
		}
		vs, err := schema.Load(ctx, veng, 0)
		if err != nil {
			return nil, err
		}
		if cons, err = cons.HoldsOn(ctx, veng, vs, constraints.Options{}); err != nil {
			return nil, err
		}
	}
	return cons, nil
}

func kindNames() string {
	var s []string
	for _, k := range screen.Kinds {
		s = append(s, string(k))
	}
	return strings.Join(s, ", ")
}

func parseKinds(s string) ([]screen.Kind, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var out []screen.Kind
	for _, p := range strings.Split(s, ",") {
		k, ok := screen.ParseKind(p)
		if !ok {
			return nil, cmdkit.Usagef("--kinds: unknown kind %q (kinds: %s)", strings.TrimSpace(p), kindNames())
		}
		out = append(out, k)
	}
	return out, nil
}

// ScreenJSON is screen --json.
type ScreenJSON struct {
	screen.Report
	Out     string `json:"out,omitempty"`
	Written int    `json:"written,omitempty"`
}

func runScreen(ctx context.Context, io cmdkit.IO, opts screenOptions) error {
	if err := cmdkit.CheckOutput("--out", opts.Out, opts.Replace, append([]string{opts.Tasks}, opts.DB.Inputs()...)...); err != nil {
		return err
	}
	mode, err := cmdkit.ParseMode(opts.Mode)
	if err != nil {
		return err
	}
	kinds, err := parseKinds(opts.Kinds)
	if err != nil {
		return err
	}
	if opts.DropWeak && opts.Out == "" {
		return cmdkit.Usagef("--drop-weak needs --out")
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
	v := verify.New(cat, tasks, verify.Config{Mode: mode, KeepDistinct: opts.KeepDistinct, Variants: opts.DB.Variants,
		Limits: sqlgym.Limits{Timeout: opts.Timeout}})
	schemas, err := taskSchemas(ctx, cat, tasks)
	if err != nil {
		return err
	}
	// On variants the equivalence proofs decide as `sqlgym variants`
	// does: a mutant proved equivalent under the keys every variant
	// keeps is no weakness, and is counted apart.
	if opts.DB.Variants {
		if schemas, err = keyedSchemas(ctx, cat, schemas); err != nil {
			return err
		}
	}
	start := time.Now()
	rep, out, err := screen.Screen(ctx, v, tasks, screen.Options{Dialect: cmdkit.DialectOf(cat), Kinds: kinds, MaxPerKind: opts.MaxPerKind, Schemas: schemas,
		Proofs: opts.DB.Variants,
		Progress: func(done, total int) {
			if total > 256 {
				fmt.Fprintf(io.ErrOut, "screened %d/%d tasks (%.1fs)\n", done, total, time.Since(start).Seconds())
			}
		}})
	if err != nil {
		return err
	}
	res := ScreenJSON{Report: rep, Out: opts.Out}
	if opts.Out != "" {
		if opts.DropWeak {
			out = screen.DropWeak(out)
		}
		if err := writeTaskFile(opts.Out, out); err != nil {
			return err
		}
		res.Written = len(out)
	}
	if opts.JSON {
		err = cmdkit.WriteJSON(io.Out, res)
	} else {
		err = printScreen(io.Out, res, opts.DropWeak)
	}
	if err != nil {
		return err
	}
	if rep.Screened == 0 && rep.Tasks > 0 && rep.NoMutants == 0 {
		return cmdkit.NothingScored("screen", rep.GoldErrors, rep.InfraErrors, rep.Broken)
	}
	return nil
}

func printScreen(w goio.Writer, r ScreenJSON, dropped bool) error {
	fmt.Fprintf(w, "mode %s: %d weak of %d screened tasks (%.1f%%); %d mutants judged\n",
		r.Mode, r.Weak, r.Screened, 100*r.WeakShare, r.Mutants)
	if n := r.Tasks - r.Screened; n > 0 {
		fmt.Fprintf(w, "not screened: %d (%d without a mutant the mode can judge, %d gold errors, %d infra errors)\n",
			n, r.NoMutants, r.GoldErrors, r.InfraErrors)
	}
	if r.Equivalent > 0 || r.EquivalentMutants > 0 {
		fmt.Fprintf(w, "equivalent: %d more tasks weak only by mutants proved equivalent to their gold (%d mutants), not counted weak\n",
			r.Equivalent, r.EquivalentMutants)
	}
	cmdkit.PrintBroken(w, r.Broken)
	fmt.Fprintf(w, "%-18s %7s %10s %11s %16s\n", "kind", "judged", "invisible", "weak tasks", "skipped by mode")
	for _, k := range screen.Kinds {
		t := r.Kinds[k]
		if t == nil {
			continue
		}
		fmt.Fprintf(w, "%-18s %7d %10d %11d %16d\n", k, t.Judged, t.Invisible, t.WeakTasks, t.SkippedByMode)
	}
	if r.Out == "" {
		return nil
	}
	what := "weak ones marked"
	if dropped {
		what = "weak ones left out"
	}
	_, err := fmt.Fprintf(w, "wrote %d tasks to %s (%s)\n", r.Written, r.Out, what)
	return err
}
