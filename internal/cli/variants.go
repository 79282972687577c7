package cli

import (
	"context"
	"errors"
	"fmt"
	goio "io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/internal/atomicfile"
	"github.com/sqlgym/sqlgym/internal/redact"
	"github.com/sqlgym/sqlgym/screen"
	"github.com/sqlgym/sqlgym/shopdb"
	"github.com/sqlgym/sqlgym/variants"
)

type variantsOptions struct {
	Tasks       string
	Out         string
	MaxVariants int
	Candidates  int
	Seed        uint64
	Mode        string
	MaxPerKind  int
	Replace     bool
	Timeout     time.Duration
	JSON        bool
	PGAdmin     string
	MySQLAdmin  string
	ImpliedKeys bool
	Unseen      bool
	DB          dbFlags
}

func newVariantsCmd(io IO) *cobra.Command {
	var opts variantsOptions
	cmd := &cobra.Command{
		Use:   "variants",
		Short: "Make variant databases on which a reward tells a near miss from the answer",
		Long: `For each database of the task file, make the few variant databases
(--max-variants) that kill the most mutants the original cannot tell from their
golds (sqlgym screen's kinds), as Spider's distilled test suites do. Each weak
task gets edits aimed at its own gold (rows on and next to every literal it
compares against, groups resized to each HAVING threshold, values moved out of
its filter, rows tied with a subquery's value, namesakes, NULLs, extra child
rows), shrunk to those that kill; they are packed into as few variants as they
need, and slots left over get candidates fuzzed from every gold's edits, kept by
greedy set cover. Every change keeps the schema's constraints, the keys and
foreign keys the data implies where none are declared (--implied-keys=false
keeps the declared ones only), and the column's own data: a NULL only where the
column holds one, a repeated name only where names repeat (--unseen-values
lifts that). Every gold still runs, deterministically, on every variant.

--out DIR receives DIR/NAME/NAME.sqlite (a copy of the original) and
DIR/NAME/NAME_vK.sqlite (Spider's test-suite layout); a DuckDB database's
are DIR/NAME/NAME.duckdb and DIR/NAME/NAME_vK.duckdb. A PostgreSQL
database's variants are schemas NAME_vK in its own database, made by the
role of --pg-admin (default: the --db URL's role) and readable by the roles
that read the original schema; their URLs end in schema=NAME_vK. A MySQL or
MariaDB database's variants are databases NAME_vK on its server, made by the
account of --mysql-admin (default: the --db URL's) and granted to the --db
URL's account for SELECT; their URLs name database NAME_vK. DIR also
receives DIR/tasks.jsonl (the tasks with "db_variants", the variants' URLs,
and their weak marks judged on all of them), DIR/manifest.json (seeds,
digests, each variant's statements, per task the mutants killed) and
DIR/report.md. An existing DIR/NAME, or existing NAME_vK schemas, are
refused without --replace. Judge on the variants with --variants in verify,
eval, serve and screen. See docs/authoring.md, "Variant databases".`,
		Example: `  sqlgym variants --tasks shop --out shop-variants
  sqlgym variants --tasks tasks.jsonl --db mydb=sqlite:my.sqlite --out variants --max-variants 3 --seed 7
  sqlgym variants --tasks tasks.jsonl --db mydb=duckdb:my.duckdb --out variants
  sqlgym variants --tasks tasks.jsonl --db 'mydb=postgres://reader@db:5432/app?schema=shop' --pg-admin postgres://owner@db:5432/app --out variants
  sqlgym variants --tasks tasks.jsonl --db 'mydb=mysql://reader:PASS@db:3306/app' --mysql-admin 'mysql://root:PASS@db:3306/' --out variants
  sqlgym verify --tasks variants/tasks.jsonl --db mydb=sqlite:my.sqlite --variants --predictions preds.jsonl`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runVariants(cmd.Context(), io, opts) },
	}
	f := cmd.Flags()
	f.StringVar(&opts.Tasks, "tasks", "", "task file (JSONL), or shop for the built-in shop task set")
	f.StringVar(&opts.Out, "out", "", "folder for the variant databases, tasks.jsonl, manifest.json and report.md")
	f.IntVar(&opts.MaxVariants, "max-variants", 5, "most variants kept per database")
	f.IntVar(&opts.Candidates, "candidates", 0, "variants built and screened per database, aimed and fuzzed (default 4 x --max-variants)")
	f.Uint64Var(&opts.Seed, "seed", 1, "seed of the candidates: the same seed, database and tasks give the same variants")
	f.StringVar(&opts.Mode, "mode", "multiset", "comparison mode the mutants are judged under: "+modeNames())
	f.IntVar(&opts.MaxPerKind, "max-per-kind", screen.DefaultMaxPerKind, "most mutants of one kind per gold")
	f.BoolVar(&opts.Replace, "replace", false, "overwrite the variants of a database already in --out")
	f.DurationVar(&opts.Timeout, "timeout", sqlgym.DefaultTimeout, "time limit per statement (SQLite: its default step budget decides)")
	f.BoolVar(&opts.JSON, "json", false, "print the report as JSON")
	f.StringVar(&opts.MySQLAdmin, "mysql-admin", "", "mysql:// URL of an account that may create the variant databases NAME_vK on the server and grant the reader SELECT on them (default: the database's own)")
	f.StringVar(&opts.PGAdmin, "pg-admin", "", "PostgreSQL DSN of a role that may create the variant schemas in the database (default: the database's own)")
	f.BoolVar(&opts.ImpliedKeys, "implied-keys", true, "keep the keys and foreign keys the data and names imply, as well as the declared ones (false: declared only)")
	f.BoolVar(&opts.Unseen, "unseen-values", false, "let NULLs and namesakes go into any nullable column, not only those whose data already holds a NULL or a repeated value")
	addDBFlags(cmd, &opts.DB)
	_ = cmd.MarkFlagRequired("tasks")
	_ = cmd.MarkFlagRequired("out")
	return cmd
}

func runVariants(ctx context.Context, io IO, opts variantsOptions) error {
	mode, err := parseMode(opts.Mode)
	if err != nil {
		return err
	}
	if opts.MaxVariants < 1 {
		return usagef("--max-variants must be at least 1")
	}
	tasks, err := shopdb.LoadTasks(opts.Tasks)
	if err != nil {
		return err
	}
	cat, err := opts.DB.catalogFor(ctx, tasks)
	if err != nil {
		return err
	}
	defer cat.Close()
	byDB := map[string][]sqlgym.Task{}
	var names []string
	for _, t := range tasks {
		if _, ok := byDB[t.DB]; !ok {
			names = append(names, t.DB)
		}
		byDB[t.DB] = append(byDB[t.DB], t)
	}
	sort.Strings(names)
	// Every database the tasks use, wherever --db or --db-dir put it.
	inputs := append([]string{opts.Tasks}, opts.DB.inputs()...)
	for _, name := range names {
		if url, err := cat.Resolve(name); err == nil {
			for _, scheme := range []string{"sqlite:", "duckdb:"} {
				if p, ok := strings.CutPrefix(url, scheme); ok {
					inputs = append(inputs, p)
				}
			}
		}
	}
	if err := checkOutputDir("--out", opts.Out, inputs...); err != nil {
		return err
	}
	out, err := filepath.Abs(opts.Out)
	if err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	// A PostgreSQL database's variants are schemas, which its generator
	// refuses to overwrite itself; the others are files in DIR/NAME.
	files := map[string]bool{}
	for _, name := range names {
		url, err := cat.Resolve(name)
		if err != nil {
			return err
		}
		files[name] = sqlgym.URLDialect(url) != sqlgym.DialectPostgres
	}
	for _, name := range append(append([]string(nil), names...), "tasks.jsonl", "manifest.json", "report.md") {
		if isDB, ok := files[name]; ok && !isDB {
			continue
		}
		dir := filepath.Join(out, name)
		if _, err := os.Stat(dir); err == nil && !opts.Replace {
			return sqlgym.Userf("give --replace to overwrite them, or another --out", "%s already holds variants of %s", dir, name)
		}
	}
	vopt := variants.Options{MaxVariants: opts.MaxVariants, Candidates: opts.Candidates, Seed: opts.Seed, Mode: mode,
		MaxPerKind: opts.MaxPerKind, Limits: sqlgym.Limits{Timeout: opts.Timeout},
		PostgresAdmin: opts.PGAdmin, MySQLAdmin: opts.MySQLAdmin, PostgresSchema: opts.DB.PGSchema, Replace: opts.Replace,
		DeclaredOnly: !opts.ImpliedKeys, UnseenValues: opts.Unseen,
		Log: func(format string, args ...any) { fmt.Fprintf(io.ErrOut, format+"\n", args...) }}
	var results []*variants.DBResult
	skipped := map[string]string{}
	var after []sqlgym.Task
	for _, name := range names {
		url, err := cat.Resolve(name)
		if err != nil {
			return err
		}
		g, err := variants.NewGenerator(ctx, cat, name, url, byDB[name], vopt)
		if errors.Is(err, variants.ErrNoEngine) {
			skipped[name] = err.Error()
			after = append(after, byDB[name]...)
			continue
		}
		if err != nil {
			return err
		}
		dir := ""
		if files[name] {
			dir = filepath.Join(out, name)
			if opts.Replace {
				if err := os.RemoveAll(dir); err != nil {
					return fmt.Errorf("--replace: %w", err)
				}
			}
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return fmt.Errorf("--out: %w", err)
			}
		}
		res, err := g.Run(ctx, dir)
		if err != nil {
			return err
		}
		results = append(results, res)
		after = append(after, res.TasksAfter()...)
	}
	if len(results) == 0 {
		return fmt.Errorf("no database could be varied (%d skipped)", len(skipped))
	}
	rep := variants.Summarize(mode, opts.Seed, opts.MaxVariants, results, skipped)
	// Only PostgreSQL databases may have written no folder under it.
	if err := os.MkdirAll(out, 0o755); err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	// The variants' URLs are written down to be used again: without the
	// reader's password, which the reader of the files gives again.
	forgetPasswords(rep, after)
	if err := writeTaskFile(filepath.Join(out, "tasks.jsonl"), inTaskOrder(tasks, after)); err != nil {
		return err
	}
	if err := atomicfile.Write(filepath.Join(out, "manifest.json"), func(w goio.Writer) error { return writeJSON(w, rep) }); err != nil {
		return err
	}
	if err := atomicfile.Write(filepath.Join(out, "report.md"), rep.WriteMarkdown); err != nil {
		return err
	}
	if opts.JSON {
		return writeJSON(io.Out, rep)
	}
	return rep.WriteText(io.Out)
}

// inTaskOrder returns the judged tasks in the order of the input file.
func inTaskOrder(in, judged []sqlgym.Task) []sqlgym.Task {
	byID := make(map[string]sqlgym.Task, len(judged))
	for _, t := range judged {
		byID[t.ID] = t
	}
	out := make([]sqlgym.Task, 0, len(in))
	for _, t := range in {
		if j, ok := byID[t.ID]; ok {
			t = j
		}
		out = append(out, t)
	}
	return out
}

// forgetPasswords drops the password of every database URL that the
// report and the tasks hold (redact.DropPassword); catalog.Resolve finds it
// again at read time (issue 25: db_variants and manifest.json held the
// PostgreSQL reader's password in clear).
func forgetPasswords(rep *variants.Report, tasks []sqlgym.Task) {
	for _, db := range rep.Databases {
		db.URL = redact.DropPassword(db.URL)
		for i := range db.Variants {
			if db.Variants[i].URL != "" {
				db.Variants[i].URL = redact.DropPassword(db.Variants[i].URL)
			}
		}
	}
	for i := range tasks {
		for j, u := range tasks[i].DBVariants {
			tasks[i].DBVariants[j] = redact.DropPassword(u)
		}
	}
}
