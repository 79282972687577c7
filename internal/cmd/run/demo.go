package run

import (
	"context"
	"fmt"
	goio "io"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/catalog"
	"github.com/sqlgym/sqlgym/eval"
	"github.com/sqlgym/sqlgym/report"
	"github.com/sqlgym/sqlgym/rundir"
	"github.com/sqlgym/sqlgym/shopdb"
	"github.com/sqlgym/sqlgym/verify"

	"github.com/sqlgym/sqlgym/internal/cmd/cmdkit"
)

type demoOptions struct {
	Out         string
	K           int
	Temperature float64
	Seed        int
	JSON        bool
	Agent       agentOptions
}

// DemoJSON is demo --json: where the run went and what it scored.
type DemoJSON struct {
	Run         string              `json:"run"`
	HTML        string              `json:"html"`
	Summary     rundir.Summary      `json:"summary"`
	BrokenGolds []verify.BrokenGold `json:"broken_golds"`
}

const demoLong = `Run the whole benchmark loop offline, with no model: the baseline policy
(BM25 retrieval of the most similar training question on the same database,
its query's literals adapted to the new question) answers every held-out task
of the built-in shop task set k times, each answer runs read-only in the
SQLite sandbox of the built-in shop database and is judged against the gold,
and the run is written and reported exactly as 'sqlgym eval' and 'sqlgym
report' do it: the same runner, run folder, summary and report.

The run folder goes under the cache ($SQLGYM_CACHE, default the user cache
dir's sqlgym folder) in runs/demo-TIME, or to --out. The terminal report is
printed and the HTML report written beside the samples. 'sqlgym runs' lists the
demo's runs; 'sqlgym runs prune' removes the old ones, asking first.

--agent plays the same tasks as multi-turn episodes, offline: the baseline
describes the tables its retrieved query reads, runs that query in the
sandbox, and when it fails or returns nothing tries the query with its
literals spelt as the database spells them, or the next retrieved query,
before it submits (see docs/agent.md).`

func NewDemoCmd(io cmdkit.IO) *cobra.Command {
	var opts demoOptions
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Benchmark the offline baseline on the built-in shop tasks and show the report",
		Long:  demoLong,
		Example: `  sqlgym demo
  sqlgym demo --out runs/demo --k 8 --temperature 1
  sqlgym demo --agent --protocol text --max-turns 4
  sqlgym demo --k 1 --json
  sqlgym report runs/demo --md`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := opts.Agent.check(cmd); err != nil {
				return err
			}
			return runDemo(cmd.Context(), io, opts, cmdkit.CompareCommandLine(cmd))
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.Out, "out", "", "run folder (default: runs/demo-TIME under the cache)")
	f.IntVar(&opts.K, "k", 4, "samples per task")
	f.Float64Var(&opts.Temperature, "temperature", 0.7, "sampling temperature of the baseline (0: always the best match)")
	f.IntVar(&opts.Seed, "seed", 1, "seed of the baseline's draws")
	f.BoolVar(&opts.JSON, "json", false, "print the run folder, the HTML page and the summary as JSON instead of the report")
	addAgentFlags(cmd, &opts.Agent)
	return cmd
}

func runDemo(ctx context.Context, io cmdkit.IO, opts demoOptions, argv []string) error {
	if opts.K < 1 {
		return cmdkit.Usagef("--k %d: at least 1", opts.K)
	}
	if opts.Temperature < 0 {
		return cmdkit.Usagef("--temperature %v: 0 or more", opts.Temperature)
	}
	out := opts.Out
	if out == "" {
		cache, err := catalog.CacheDir("")
		if err != nil {
			return err
		}
		out = filepath.Join(cache, "runs", "demo-"+time.Now().Format("20060102-150405"))
	}
	tasks, err := shopdb.Tasks()
	if err != nil {
		return fmt.Errorf("read the built-in shop tasks: %w", err)
	}
	held := 0
	for _, t := range tasks {
		if t.Split == sqlgym.SplitHoldout {
			held++
		}
	}
	intro := io.Out
	if opts.JSON {
		intro = io.ErrOut // stdout holds the one JSON document
	}
	fmt.Fprintf(intro, "sqlgym demo: the offline baseline answers the %d held-out shop tasks (of %d) k=%d times at T=%g;\n"+
		"every answer runs in the SQLite sandbox and is judged against the gold.\n", held, len(tasks), opts.K, opts.Temperature)
	if opts.Agent.On {
		fmt.Fprintf(intro, "Agent mode: each answer is an episode of up to %d turns (%s protocol): describe the tables,\n"+
			"run the query, revise it when it fails or returns nothing, then submit.\n", opts.Agent.MaxTurns, opts.Agent.Protocol)
	}
	fmt.Fprintln(intro)

	// The eval command itself runs the benchmark; its short summary is
	// left out because the full report follows.
	ev := EvalOptions{
		Tasks: shopdb.Name, Split: sqlgym.SplitHoldout, Policy: "baseline",
		K: opts.K, Temperature: opts.Temperature, Seed: opts.Seed, SeedSet: true,
		Out: out, Mode: "multiset", Concurrency: eval.DefaultConcurrency, Agent: opts.Agent,
	}
	if err := RunEval(ctx, cmdkit.IO{In: io.In, Out: goio.Discard, ErrOut: io.ErrOut}, ev, argv); err != nil {
		return err
	}
	run, err := loadRun(out)
	if err != nil {
		return err
	}
	html := filepath.Join(out, "report.html")
	if err := WriteReportFile(html, func(w goio.Writer) error { return report.HTML(w, run) }); err != nil {
		return err
	}
	if opts.JSON {
		return cmdkit.WriteJSON(io.Out, DemoJSON{Run: out, HTML: html, Summary: run.Summary, BrokenGolds: run.BrokenGolds()})
	}
	if err := report.Text(io.Out, run); err != nil {
		return err
	}
	_, err = fmt.Fprintf(io.Out, "\nrun folder:  %s\nHTML report: %s\n", out, html)
	return err
}
