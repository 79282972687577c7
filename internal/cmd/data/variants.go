package data

import (
	"context"
	"errors"
	"fmt"
	goio "io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/catalog"
	"github.com/sqlgym/sqlgym/internal/atomicfile"
	"github.com/sqlgym/sqlgym/internal/jsonl"
	"github.com/sqlgym/sqlgym/internal/redact"
	"github.com/sqlgym/sqlgym/screen"
	"github.com/sqlgym/sqlgym/shopdb"
	"github.com/sqlgym/sqlgym/variants"

	"github.com/sqlgym/sqlgym/internal/cmd/cmdkit"
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
	AllVariants bool
	CostRounds  int
	Shard       string
	Verbose     bool
	Progress    time.Duration
	DB          cmdkit.DBFlags
}

func NewVariantsCmd(io cmdkit.IO) *cobra.Command {
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
column holds one or in a declared foreign key that may be NULL (unless a gold
reads that column through NOT IN), a repeated name only where names repeat
(--unseen-values lifts that). Every gold still runs, deterministically, on every variant.

--out DIR receives DIR/NAME/NAME_vK.sqlite beside DIR/NAME/NAME.sqlite, a
hard link to the original, not a copy (Spider's test-suite layout; no link
where the filesystem has none); a DuckDB database's are DIR/NAME/NAME_vK.duckdb
and DIR/NAME/NAME.duckdb. A PostgreSQL
database's variants are schemas NAME_vK in its own database, made by the
role of --pg-admin (default: the --db URL's role) and readable by the roles
that read the original schema; their URLs end in schema=NAME_vK. A MySQL or
MariaDB database's variants are databases NAME_vK on its server, made by the
account of --mysql-admin (default: the --db URL's) and granted to the --db
URL's account for SELECT; their URLs name database NAME_vK. DIR also
receives DIR/tasks.jsonl (the tasks with "db_variants": each task's the
variants that kill one of its own mutants and those that leave NULL a foreign
key its gold reads, or its database alone, so judging stays cheap;
--all-variants lists every variant; and their weak marks judged on them), DIR/manifest.json (seeds,
digests, each variant's statements, per task the mutants killed) and
DIR/report.md; paths in them are relative to DIR, which can be moved.

stderr shows a progress line per database with an ETA (--verbose adds the
generator's traces). DIR/NAME is finished once DIR/NAME/done.json is
written: the same command run again (after Ctrl-C, a crash, or to merge
shards) resumes finished folders whose settings, data and files still
match, makes again unfinished or changed ones, and refuses, without
--replace, a folder made with other settings. A PostgreSQL or MySQL
database's folder holds only done.json: it is resumed the same way (its
schemas' digests read on the server), and the NAME_vK and NAME_cK a stopped
run left are dropped; ones no folder of DIR accounts for are refused without
--replace. --shard I/N makes every N-th database from the
I-th (docs/deploy.md). Judge on the variants with --variants in verify,
eval, serve and screen. See docs/authoring.md, "Variant databases".`,
		Example: `  sqlgym variants --tasks shop --out shop-variants
  sqlgym variants --tasks tasks.jsonl --db mydb=sqlite:my.sqlite --out variants --max-variants 3 --seed 7
  sqlgym variants --tasks tasks.jsonl --db mydb=duckdb:my.duckdb --out variants
  sqlgym variants --tasks tasks.jsonl --db 'mydb=postgres://reader@db:5432/app?schema=shop' --pg-admin postgres://owner@db:5432/app --out variants
  sqlgym variants --tasks tasks.jsonl --db 'mydb=mysql://reader:PASS@db:3306/app' --mysql-admin 'mysql://root:PASS@db:3306/' --out variants
  sqlgym variants --tasks tasks.jsonl --db-dir databases --out variants --shard 0/4   # then 1/4..3/4, then without --shard
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
	f.StringVar(&opts.Mode, "mode", "multiset", "comparison mode the mutants are judged under: "+cmdkit.ModeNames())
	f.IntVar(&opts.MaxPerKind, "max-per-kind", screen.DefaultMaxPerKind, "most mutants of one kind per gold")
	f.BoolVar(&opts.Replace, "replace", false, "overwrite the variants of a database already in --out")
	f.DurationVar(&opts.Timeout, "timeout", sqlgym.DefaultTimeout, "time limit per statement (SQLite: its default step budget decides)")
	f.BoolVar(&opts.JSON, "json", false, "print the report as JSON")
	f.StringVar(&opts.MySQLAdmin, "mysql-admin", "", "mysql:// URL of an account that may create the variant databases NAME_vK on the server and grant the reader SELECT on them (default: the database's own)")
	f.StringVar(&opts.PGAdmin, "pg-admin", "", "PostgreSQL DSN of a role that may create the variant schemas in the database (default: the database's own)")
	f.BoolVar(&opts.ImpliedKeys, "implied-keys", true, "keep the keys and foreign keys the data and names imply, as well as the declared ones (false: declared only)")
	f.BoolVar(&opts.Unseen, "unseen-values", false, "let NULLs and namesakes go into any nullable column, not only those whose data already holds a NULL or a repeated value")
	f.BoolVar(&opts.AllVariants, "all-variants", false, "list every variant in every task's db_variants (default: only the variants that kill one of the task's own mutants, which keeps judging cheap)")
	f.IntVar(&opts.CostRounds, "cost-rounds", 0, "rounds of the judging-cost measure in the report, a 512-answer batch on the original alone and with the variants, alternated (0: 2, none for a sampled original of over a million rows; -1: skip it)")
	f.StringVar(&opts.Shard, "shard", "", "I/N: vary only the I-th of N parts of the databases (0 <= I < N; one Kubernetes indexed Job or Ray task each), then merge with the same command without --shard (docs/deploy.md)")
	f.BoolVar(&opts.Verbose, "verbose", false, "print the generator's traces (each trial) on stderr, not only the progress")
	f.DurationVar(&opts.Progress, "progress", 30*time.Second, "how often the progress line names the current database's step (0: only when a database starts and ends)")
	cmdkit.AddDBFlags(cmd, &opts.DB)
	_ = cmd.MarkFlagRequired("tasks")
	_ = cmd.MarkFlagRequired("out")
	return cmd
}

func runVariants(ctx context.Context, io cmdkit.IO, opts variantsOptions) error {
	mode, err := cmdkit.ParseMode(opts.Mode)
	if err != nil {
		return err
	}
	if opts.MaxVariants < 1 {
		return cmdkit.Usagef("--max-variants must be at least 1")
	}
	shard := variants.Shard{I: 0, N: 1}
	if opts.Shard != "" {
		if shard, err = variants.ParseShard(opts.Shard); err != nil {
			return err
		}
	}
	allTasks, err := shopdb.LoadTasks(opts.Tasks)
	if err != nil {
		return err
	}
	byDB := map[string][]sqlgym.Task{}
	var names []string
	for _, t := range allTasks {
		if _, ok := byDB[t.DB]; !ok {
			names = append(names, t.DB)
		}
		byDB[t.DB] = append(byDB[t.DB], t)
	}
	// A shard opens and varies its own databases only: the others may
	// not even be on its machine.
	names = shard.Pick(names)
	var tasks []sqlgym.Task
	for _, n := range names {
		tasks = append(tasks, byDB[n]...)
	}
	cat, err := opts.DB.CatalogFor(ctx, tasks)
	if err != nil {
		return err
	}
	defer cat.Close()
	// Every database the tasks use, wherever --db or --db-dir put it.
	inputs := append([]string{opts.Tasks}, opts.DB.Inputs()...)
	for _, name := range names {
		if url, err := cat.Resolve(name); err == nil {
			for _, scheme := range []string{"sqlite:", "duckdb:"} {
				if p, ok := strings.CutPrefix(url, scheme); ok {
					inputs = append(inputs, p)
				}
			}
		}
	}
	if err := cmdkit.CheckOutputDir("--out", opts.Out, inputs...); err != nil {
		return err
	}
	out, err := filepath.Abs(opts.Out)
	if err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	vopt := variants.Options{MaxVariants: opts.MaxVariants, Candidates: opts.Candidates, Seed: opts.Seed, Mode: mode,
		MaxPerKind: opts.MaxPerKind, Limits: sqlgym.Limits{Timeout: opts.Timeout},
		PostgresAdmin: opts.PGAdmin, MySQLAdmin: opts.MySQLAdmin, PostgresSchema: opts.DB.PGSchema, Replace: opts.Replace,
		DeclaredOnly: !opts.ImpliedKeys, UnseenValues: opts.Unseen, AllVariants: opts.AllVariants, CostRounds: opts.CostRounds}
	if opts.Verbose {
		vopt.Log = func(format string, args ...any) { fmt.Fprintf(io.ErrOut, format+"\n", args...) }
	}
	if !opts.Replace && shard.N == 1 {
		if err := checkTopFiles(out); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	// Everything is checked before any work: each database's folder is
	// resumed, made again or refused now, not after an hour of others.
	plans, unlock, err := planVariants(ctx, cat, out, names, byDB, vopt, opts.Replace)
	defer unlock()
	if err != nil {
		return err
	}
	prog := variants.NewProgress(io.ErrOut, len(names), len(tasks), opts.Progress)
	defer prog.Close()
	vopt.Step = prog.Step
	var results []*variants.DBResult
	skipped := map[string]string{}
	var after []sqlgym.Task
	for _, p := range plans {
		name := p.name
		if p.resume != nil {
			results = append(results, p.resume.Result)
			after = append(after, p.resume.Tasks...)
			prog.Done(name, len(byDB[name]), "resumed from the finished folder of an earlier run")
			continue
		}
		if p.note != "" {
			fmt.Fprintf(io.ErrOut, "variants: %s: %s\n", name, p.note)
		}
		prog.Start(name, len(byDB[name]))
		gopt := vopt
		gopt.Replace = gopt.Replace || p.dropLeft
		g, err := variants.NewGenerator(ctx, cat, name, p.url, byDB[name], gopt)
		if errors.Is(err, variants.ErrNoEngine) {
			skipped[name] = err.Error()
			after = append(after, byDB[name]...)
			prog.Done(name, len(byDB[name]), "skipped: "+err.Error())
			continue
		}
		if err != nil {
			return err
		}
		// Every database gets its folder before its work starts, a
		// server's too (it then holds only done.json): a run stopped
		// halfway leaves it without done.json, which the next run reads
		// as a folder to make again.
		dir := filepath.Join(out, name)
		if err := os.RemoveAll(dir); err != nil {
			return fmt.Errorf("--out: %w", err)
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("--out: %w", err)
		}
		gdir := dir
		if !p.file {
			gdir = ""
		}
		res, err := g.Run(ctx, gdir)
		if err != nil {
			return err
		}
		res.Relative(out)
		key, err := variants.RunKey(vopt, name, res.Digest, byDB[name])
		if err != nil {
			return err
		}
		// done.json keeps no password: the catalog gives it again.
		forgetPasswords(&variants.Report{Databases: []*variants.DBResult{res}}, res.TasksAfter())
		if err := variants.WriteDone(dir, &variants.Done{Key: key, Result: res, Tasks: res.TasksAfter()}); err != nil {
			return err
		}
		results = append(results, res)
		after = append(after, res.TasksAfter()...)
		prog.Done(name, len(byDB[name]), "")
	}
	prog.Close()
	if shard.N > 1 {
		// Each shard writes only its databases' folders; the run that
		// merges them is the same command without --shard over one
		// folder holding them all, which resumes every database.
		_, err := fmt.Fprintf(io.Out, "shard %d/%d: %d databases in %s (%s)\nwhen every shard is done, gather their folders into one and merge:\n  %s\n",
			shard.I, shard.N, len(names), out, strings.Join(names, ", "), nextCommand(opts, "merge"))
		return err
	}
	if len(results) == 0 {
		return fmt.Errorf("no database could be varied (%d skipped)", len(skipped))
	}
	rep := variants.Summarize(mode, opts.Seed, opts.MaxVariants, results, skipped)
	rep.Next = nextCommand(opts, "judge")
	// The variants' URLs are written down to be used again: without the
	// reader's password, which the reader of the files gives again.
	forgetPasswords(rep, after)
	if err := writeTaskFile(filepath.Join(out, "tasks.jsonl"), inTaskOrder(allTasks, after)); err != nil {
		return err
	}
	if err := atomicfile.Write(filepath.Join(out, "manifest.json"), func(w goio.Writer) error { return cmdkit.WriteJSON(w, rep) }); err != nil {
		return err
	}
	if err := atomicfile.Write(filepath.Join(out, "report.md"), rep.WriteMarkdown); err != nil {
		return err
	}
	if opts.JSON {
		return cmdkit.WriteJSON(io.Out, rep)
	}
	return rep.WriteText(io.Out)
}

// variantsPlan is what a run does with one database: resume its finished
// folder, or make it (again).
type variantsPlan struct {
	name, url string
	file      bool // its variants are files in DIR/NAME (not PostgreSQL schemas)
	resume    *variants.Done
	note      string // why a folder left there is made again
	// dropLeft drops a server database's variants left by the run that
	// made its folder (Options.Replace for it alone).
	dropLeft bool
}

// planVariants decides, before any work, what becomes of each database's
// folder in out: a finished one made with the same settings, data and
// tasks, whose files are as written, is resumed; one left by a stopped
// run (no done.json, only files a generation writes) is made again; one
// made otherwise is refused without --replace. Each database's folder is
// locked (out/.NAME.lock) until unlock, so two runs never write one
// folder; a crash leaves no lock held.
func planVariants(ctx context.Context, cat *catalog.Catalog, out string, names []string, byDB map[string][]sqlgym.Task, vopt variants.Options, replace bool) ([]variantsPlan, func(), error) {
	var locks []*jsonl.Lock
	unlock := func() {
		for _, l := range locks {
			_ = l.Release()
		}
	}
	var plans []variantsPlan
	for _, name := range names {
		url, err := cat.Resolve(name)
		if err != nil {
			return nil, unlock, err
		}
		d := sqlgym.URLDialect(url) // PostgreSQL and MySQL variants are schemas and databases, not files
		p := variantsPlan{name: name, url: url, file: d != sqlgym.DialectPostgres && d != sqlgym.DialectMySQL}
		dir := filepath.Join(out, name)
		l, err := jsonl.Acquire(jsonl.LockPath(dir), false)
		if err != nil {
			return nil, unlock, fmt.Errorf("variants of %s (wait for the other run to end, or give another --out): %w", name, err)
		}
		locks = append(locks, l)
		if _, err := os.Stat(dir); err != nil || replace {
			plans = append(plans, p)
			continue
		}
		done, err := variants.ReadDone(dir)
		if err != nil {
			return nil, unlock, err
		}
		if done == nil {
			ours, err := variants.Ours(dir, name)
			if err != nil {
				return nil, unlock, fmt.Errorf("--out: %w", err)
			}
			if !ours {
				return nil, unlock, sqlgym.Userf("give --replace to overwrite it, or another --out", "%s holds files that are not variants of %s", dir, name)
			}
			p.note = "its folder was left unfinished by a run that stopped: made again"
			// A server's schemas or databases NAME_vK, NAME_cK are
			// that run's: dropped, not refused (variants/resume.go).
			p.dropLeft = !p.file
			plans = append(plans, p)
			continue
		}
		digest, err := variants.OriginalDigest(ctx, url, vopt)
		if err != nil {
			return nil, unlock, fmt.Errorf("database %s: %w", name, err)
		}
		key, err := variants.RunKey(vopt, name, digest, byDB[name])
		if err != nil {
			return nil, unlock, err
		}
		if key != done.Key {
			return nil, unlock, sqlgym.Userf("give --replace to make them again, or another --out",
				"%s already holds variants of %s made with other settings, data or tasks", dir, name)
		}
		stale, err := done.StaleOn(ctx, out, url, vopt)
		if err != nil {
			return nil, unlock, fmt.Errorf("database %s: %w", name, err)
		}
		if stale != "" {
			p.note = stale + ": made again"
			p.dropLeft = !p.file
			plans = append(plans, p)
			continue
		}
		p.resume = done
		plans = append(plans, p)
	}
	return plans, unlock, ctx.Err()
}

// checkTopFiles refuses an --out whose tasks.jsonl or report.md a
// variants run did not write (no manifest.json beside them): they would
// be overwritten.
func checkTopFiles(out string) error {
	if _, err := os.Stat(filepath.Join(out, "manifest.json")); err == nil {
		return nil
	}
	for _, f := range []string{"tasks.jsonl", "report.md"} {
		p := filepath.Join(out, f)
		if _, err := os.Stat(p); err == nil {
			return sqlgym.Userf("give --replace to overwrite it, or another --out", "%s exists and is not the output of sqlgym variants", p)
		}
	}
	return nil
}

// nextCommand is the command a person runs next: after a shard, the same
// command without --shard (it merges); after a whole run, a verify of
// predictions on the variants.
func nextCommand(opts variantsOptions, what string) string {
	db := ""
	for _, r := range opts.DB.Refs {
		name, url, _ := strings.Cut(r, "=")
		db += " --db " + shellQuote(name+"="+redact.DropPassword(url))
	}
	if opts.DB.DBDir != "" {
		db += " --db-dir " + shellQuote(opts.DB.DBDir)
	}
	if what == "merge" {
		args := []string{"sqlgym variants --tasks", shellQuote(opts.Tasks) + db, "--out DIR"}
		if opts.MaxVariants != 5 {
			args = append(args, fmt.Sprintf("--max-variants %d", opts.MaxVariants))
		}
		if opts.Seed != 1 {
			args = append(args, fmt.Sprintf("--seed %d", opts.Seed))
		}
		return strings.Join(args, " ") + " (the flags of the shards, without --shard)"
	}
	return fmt.Sprintf("sqlgym verify --tasks %s%s --variants --predictions PREDICTIONS.jsonl", shellQuote(filepath.Join(opts.Out, "tasks.jsonl")), db)
}

func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r == '/' || r == '.' || r == '-' || r == '_' || r == '=' || r == ':' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
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
