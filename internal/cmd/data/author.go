package data

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/author"
	"github.com/sqlgym/sqlgym/author/goldfilter"
	"github.com/sqlgym/sqlgym/author/teacher"
	"github.com/sqlgym/sqlgym/engine"
	"github.com/sqlgym/sqlgym/internal/jsonl"
	"github.com/sqlgym/sqlgym/internal/redact"
	"github.com/sqlgym/sqlgym/screen"
	"github.com/sqlgym/sqlgym/shopdb"

	"github.com/sqlgym/sqlgym/internal/cmd/cmdkit"
)

type authorOptions struct {
	Teacher     string
	N           int
	Out         string
	Seed        uint64
	Concurrency int
	MinRows     int
	MaxRows     int
	Resume      bool
	JSON        bool
	DB          cmdkit.DBFlags
	TF          teacherFlags
}

func NewAuthorCmd(io cmdkit.IO) *cobra.Command {
	var opts authorOptions
	cmd := &cobra.Command{
		Use:   "author",
		Short: "Write tasks (questions with gold SQL) for a database",
		Long: `Write tasks for a database: a teacher proposes questions with their gold
SQL, and an execution filter keeps a gold only when it runs twice, on two
separately opened connections, returning --min-rows to --max-rows rows and
the same rows both times. Questions whose ORDER BY ... LIMIT cuts through a
tie are dropped, and so are duplicates (same normalised SQL or question).

--teacher synth needs no model: it samples SQL from the schema, its foreign
keys and real values over eight levels (filter, join, aggregate, group_by,
order_limit, subquery, date, window) and words each as a question. The same
--seed gives the same tasks; ids are <db>_<level>_<hash of the SQL>.

--teacher openai:MODEL asks any OpenAI-compatible server (--base-url, default
https://api.openai.com/v1; key from OPENAI_API_KEY or --api-key-env), and
--teacher anthropic:MODEL Anthropic's Messages API (key from ANTHROPIC_API_KEY
or --api-key-env). The model sees the schema with sample values and writes
batches of question/SQL pairs as JSON; malformed replies are counted and
skipped, the same filter decides, and tasks record source
teacher:PROVIDER:MODEL. A server that stays down stops the run with the tasks
kept so far in --out: --resume continues.

--screen marks weak tasks in --out when the run ends (see sqlgym screen).

Each kept task is appended to --out as soon as it is kept. --resume continues
an interrupted run: the tasks in --out stay, and generation goes on until
--n tasks are there. Progress goes to stderr; --json prints the counts.`,
		Example: `  sqlgym author --teacher synth --db shop --n 1000 --out shop_tasks.jsonl
  sqlgym author --teacher synth --db concert_singer --db-dir spider/database --n 50 --out cs.jsonl --json
  sqlgym author --teacher synth --db mydb=postgres://me@localhost/mydb --n 500 --out t.jsonl --resume
  sqlgym author --teacher openai:Qwen/Qwen3-32B --base-url http://127.0.0.1:8000/v1 --db shop --n 200 --out q.jsonl --screen
  sqlgym author --teacher anthropic:claude-sonnet-4-5 --db shop --n 200 --out c.jsonl`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runAuthor(cmd.Context(), io, opts) },
	}
	f := cmd.Flags()
	f.StringVar(&opts.Teacher, "teacher", "synth", "who proposes tasks: synth (offline, no model), openai:MODEL or anthropic:MODEL")
	f.IntVar(&opts.N, "n", 100, "number of tasks the output ends with")
	f.StringVar(&opts.Out, "out", "", "task file to write (JSONL, appended one task at a time)")
	f.Uint64Var(&opts.Seed, "seed", 1, "random seed: the same seed gives the same tasks")
	f.IntVar(&opts.Concurrency, "concurrency", 4, "golds run by the filter at once")
	f.IntVar(&opts.MinRows, "min-rows", 1, "fewest rows a gold may return")
	f.IntVar(&opts.MaxRows, "max-rows", 50, "most rows a gold may return")
	f.BoolVar(&opts.Resume, "resume", false, "continue the run whose tasks are in --out")
	f.BoolVar(&opts.JSON, "json", false, "print the counts as JSON")
	f.StringVar(&opts.TF.BaseURL, "base-url", "", "openai teacher: the OpenAI-compatible base URL; anthropic: the API root")
	f.StringVar(&opts.TF.APIKeyEnv, "api-key-env", "", "environment variable holding the teacher's API key")
	f.BoolVar(&opts.TF.Screen, "screen", false, "screen the tasks for weak ones when the run ends and mark them in --out")
	f.StringVar(&opts.TF.ScreenMode, "screen-mode", "multiset", "comparison mode of --screen")
	cmdkit.AddDBFlags(cmd, &opts.DB)
	_ = cmd.MarkFlagRequired("out")
	_ = cmd.MarkFlagRequired("db")
	return cmd
}

type AuthorResult struct {
	DB      string  `json:"db"`
	Teacher string  `json:"teacher"`
	Seed    uint64  `json:"seed"`
	Out     string  `json:"out"`
	N       int     `json:"n"`
	Seconds float64 `json:"seconds"`
	author.Counts
	TeacherStats *teacher.Stats `json:"teacher_stats,omitempty"`
	Screen       *screen.Report `json:"screen,omitempty"`
	// Skipped are the levels the synth teacher had nothing to write from.
	Skipped []author.SkippedLevel `json:"skipped_levels,omitempty"`
}

func runAuthor(ctx context.Context, io cmdkit.IO, opts authorOptions) error {
	switch {
	case opts.N <= 0:
		return cmdkit.Usagef("--n %d: must be at least 1", opts.N)
	case opts.MinRows < 0 || opts.MaxRows < 1 || opts.MinRows > opts.MaxRows:
		return cmdkit.Usagef("--min-rows %d --max-rows %d: need 0 <= min <= max and max >= 1", opts.MinRows, opts.MaxRows)
	case opts.Concurrency < 1:
		return cmdkit.Usagef("--concurrency %d: must be at least 1", opts.Concurrency)
	}
	if err := checkTeacher(opts); err != nil {
		return err
	}
	names := opts.DB.Names()
	if len(names) != 1 || names[0] == "" {
		return cmdkit.Usagef("author writes tasks for one database: give exactly one --db NAME or --db NAME=URL")
	}
	name := names[0]
	cat, err := opts.DB.Catalog()
	if err != nil {
		return err
	}
	defer cat.Close()
	url, err := cat.Resolve(name)
	if err != nil {
		return err
	}
	open := func(ctx context.Context) (sqlgym.Engine, error) {
		return engine.Open(ctx, url, engine.Options{PostgresSchema: opts.DB.PGSchema})
	}
	var lex *author.Lexicon
	if name == shopdb.Name {
		lex = author.ShopLexicon()
	}
	start := time.Now()
	// The teacher and the schema first: a database that cannot be used
	// leaves no --out file behind.
	setup, err := prepareAuthor(ctx, opts, open, lex)
	if err != nil {
		return fmt.Errorf("prepare the %s teacher on %s: %w", opts.Teacher, name, err)
	}
	defer setup.close()
	if setup.schema != nil && len(setup.schema.Tables) == 0 {
		return sqlgym.Userf("check the path, --pg-schema or ?schema= (the tables must be in the database it names): author writes questions about tables",
			"database %s (%s) has no tables", name, redact.URL(url))
	}
	if setup.warning != "" {
		fmt.Fprintf(io.ErrOut, "warning: %s: %s\n", name, setup.warning)
	}
	app, existing, err := openTaskAppender(opts.Out, opts.Resume, name)
	if err != nil {
		return err
	}
	defer app.Close()

	last := time.Now()
	cnt, runErr := author.Run(ctx, author.Config{
		DB: name, Teacher: setup.teacher, Schema: setup.schema, Filter: setup.filter,
		N: opts.N, Seed: opts.Seed, Concurrency: opts.Concurrency, Existing: existing,
		Emit: func(t sqlgym.Task) error { return app.Append(t) },
		Progress: func(c author.Counts) {
			if time.Since(last) >= 500*time.Millisecond {
				last = time.Now()
				fmt.Fprintln(io.ErrOut, progressLine(c, opts.N, time.Since(start)))
			}
		},
	})
	if err := app.Close(); err != nil && runErr == nil {
		runErr = fmt.Errorf("write task file: %w", err)
	}
	elapsed := time.Since(start)
	fmt.Fprintln(io.ErrOut, progressLine(cnt, opts.N, elapsed))
	var stats *teacher.Stats
	if setup.model != nil {
		st := setup.model.Stats()
		stats = &st
		fmt.Fprintf(io.ErrOut, "teacher %s: %d requests, %d retries, %d malformed replies, %d cut replies, %d bad items\n",
			opts.Teacher, st.Requests, st.Retries, st.Malformed, st.Cut, st.BadItems)
	}
	if runErr != nil {
		if errors.Is(runErr, author.ErrExhausted) {
			return sqlgym.Userf("ask for fewer tasks (--n), or widen --min-rows/--max-rows; the tasks kept so far are in "+opts.Out,
				"%w", runErr)
		}
		if teacher.IsInfra(runErr) {
			// The teacher's server failed past its retries: --resume
			// continues from the tasks kept.
			return cmdkit.Incomplete(&sqlgym.UserError{Msg: runErr.Error(), Err: runErr,
				Hint: fmt.Sprintf("when the teacher's server is back, run the same command with --resume: the %d tasks kept so far stay in %s", cnt.Total, opts.Out)})
		}
		return runErr
	}
	res := AuthorResult{DB: name, Teacher: opts.Teacher, Seed: opts.Seed, Out: opts.Out, N: opts.N, Seconds: elapsed.Seconds(), Counts: cnt, TeacherStats: stats}
	if sy, ok := setup.teacher.(*author.Synth); ok {
		res.Skipped = sy.Skipped()
		for _, s := range res.Skipped {
			fmt.Fprintf(io.ErrOut, "skipped level %s: %s\n", s.Level, s.Reason)
		}
	}
	if opts.TF.Screen {
		if res.Screen, err = screenAuthored(ctx, io.ErrOut, cat, opts.Out, opts.TF.ScreenMode); err != nil {
			return err
		}
	}
	if opts.JSON {
		return cmdkit.WriteJSON(io.Out, res)
	}
	_, err = fmt.Fprintf(io.Out, "%d tasks in %s (%d new, %d kept from before) in %.1fs\n", cnt.Total, opts.Out, cnt.Kept, cnt.Resumed, res.Seconds)
	return err
}

func progressLine(c author.Counts, n int, d time.Duration) string {
	var drops []string
	for _, r := range goldfilter.Reasons {
		if c.Dropped[r] > 0 {
			drops = append(drops, fmt.Sprintf("%s %d", r, c.Dropped[r]))
		}
	}
	sort.Strings(drops)
	rate := 0.0
	if s := d.Seconds(); s > 0 {
		rate = float64(c.Kept) / s
	}
	return fmt.Sprintf("kept %d/%d, proposed %d, dropped: %s (%.0f tasks/s)", c.Total, n, c.Proposed, orNone(strings.Join(drops, ", ")), rate)
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// openTaskAppender locks out against a second author run and opens it
// for appending, returning the tasks an interrupted run left there.
// Without --resume, out must not hold tasks already. A last line cut short
// by a crash is dropped (the file is append-only, one write per task).
func openTaskAppender(out string, resume bool, db string) (*jsonl.Appender, []sqlgym.Task, error) {
	if !resume {
		b, err := os.ReadFile(out)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, nil, fmt.Errorf("read task file: %w", err)
		}
		if len(bytes.TrimSpace(b)) > 0 {
			if split := splitMarked(b); split {
				// A split file is an input (sqlgym split's output), never
				// an interrupted author run: --resume would append to it.
				return nil, nil, sqlgym.Userf("choose another --out: author writes a new task file, and --resume continues only author's own",
					"%s already holds tasks marked with splits (a 'sqlgym split' output)", out)
			}
			return nil, nil, sqlgym.Userf("add --resume to continue that run, or choose another --out", "%s already holds tasks", out)
		}
	}
	var dec sqlgym.TaskDecoder
	app, _, err := jsonl.Open(out, jsonl.Options{Policy: jsonl.TornTail, Lock: jsonl.LockOrFail}, dec.Line)
	var locked *jsonl.LockedError
	if errors.As(err, &locked) {
		return nil, nil, &sqlgym.UserError{Msg: fmt.Sprintf("%s: another sqlgym author is writing it (%s)", out, locked.Holder),
			Hint: "wait for that run to finish (or stop it), or choose another --out", Err: err}
	}
	if err != nil {
		return nil, nil, err
	}
	for _, t := range dec.Tasks {
		if t.DB != db {
			app.Close()
			return nil, nil, sqlgym.Userf("resume with the --db the file was written for", "%s: task %s is for database %q, not %q", out, t.ID, t.DB, db)
		}
	}
	return app, dec.Tasks, nil
}

// splitMarked reports whether a task file's lines carry split marks, as
// 'sqlgym split' writes them and author never does.
func splitMarked(b []byte) bool {
	var dec sqlgym.TaskDecoder
	for i, line := range bytes.Split(b, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if dec.Line(i+1, line) != nil {
			return false
		}
	}
	for _, t := range dec.Tasks {
		if t.Split != "" {
			return true
		}
	}
	return false
}
