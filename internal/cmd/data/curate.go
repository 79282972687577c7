package data

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/agent"
	"github.com/sqlgym/sqlgym/curate"
	"github.com/sqlgym/sqlgym/ledger"
	"github.com/sqlgym/sqlgym/model"
	"github.com/sqlgym/sqlgym/prompt"

	"github.com/sqlgym/sqlgym/internal/cmd/cmdkit"
)

func NewCurateCmd(io cmdkit.IO) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "curate",
		Short: "Training data chosen by a model's failures: SFT sets and DPO pairs",
		Long: `Write training data chosen by what a model gets wrong in eval runs: a
supervised set (curate sft) or preference pairs (curate dpo). Every target
is executed again and checked by the verifier before it is written, held-out
tasks are never written, prompts are rendered by eval's template, and each
dataset gets a manifest beside it (OUT.manifest.json: source runs with
digests, counts per class and source, the settings) and a ledger line. See
docs/curate.md.`,
		Example: `  sqlgym curate sft --run runs/base --out sft.jsonl
  sqlgym curate dpo --run runs/base --out pairs.jsonl`,
	}
	cmd.AddCommand(newCurateSFTCmd(io), newCurateDPOCmd(io))
	return cmd
}

// curateCommon are the flags both datasets take.
type curateCommon struct {
	Runs           []string
	Out            string
	Format         string
	Replace        bool
	Seed           string
	PromptTemplate string
	JSON           bool
	DB             cmdkit.DBFlags
}

func addCurateCommon(cmd *cobra.Command, c *curateCommon) {
	f := cmd.Flags()
	f.StringArrayVar(&c.Runs, "run", nil, "eval run folder (repeatable: a hint run from eval --retry-failed adds its correct answers)")
	f.StringVar(&c.Out, "out", "", "file to write (refused if it exists, unless --replace)")
	f.StringVar(&c.Format, "format", "trl", "trl (JSONL), openai (JSONL) or verl (Parquet, sft only)")
	f.BoolVar(&c.Replace, "replace", false, "overwrite --out and its manifest")
	f.StringVar(&c.Seed, "seed", "sqlgym", "seed of the order tasks are chosen in")
	f.StringVar(&c.PromptTemplate, "prompt-template", "", "prompt template file (default: the built-in one eval uses)")
	f.BoolVar(&c.JSON, "json", false, "print the manifest as JSON")
	cmdkit.AddDBFlags(cmd, &c.DB)
	_ = cmd.MarkFlagRequired("run")
	_ = cmd.MarkFlagRequired("out")
}

type curateSFTOptions struct {
	curateCommon
	N          int
	Replay     float64
	PerClass   int
	TopClasses int
	FailBelow  float64
	Source     string
	Agent      bool
}

func newCurateSFTCmd(io cmdkit.IO) *cobra.Command {
	var opts curateSFTOptions
	cmd := &cobra.Command{
		Use:   "sft",
		Short: "A supervised set of the tasks a model fails, a replay share and extra examples per failure class",
		Long: `Choose a supervised set by a model's failures in one or more eval runs:

  failed     tasks with no correct sample (or, with --fail-below R, a rate
             below R), in a seeded order; with --n N the first N - round(N x replay)
  replay     tasks it solves, round(N x replay) with --n, else the --replay
             share of the result
  extras     --per-class K more examples of each of the --top-classes most
             frequent failure classes (failed tasks --n left out first)

The target is the verified gold (--source gold), the model's own most
frequent correct answer (--source self: self-distillation; a hint run's
correct answers count, and the hint never reaches the written prompt), or
self where there is one and gold elsewhere (--source both). --agent writes
correct agent episodes as multi-turn conversations (loss on the assistant
turns: TRL's assistant_only_loss); give the agent run.

Formats: trl ({"messages", "task_id", "db", "reason", "source",
"failure_class"}), openai ({"messages"}), verl (Parquet "messages" column,
verl's multi-turn SFT layout; not with --agent).`,
		Example: `  sqlgym curate sft --run runs/base --out sft.jsonl
  sqlgym curate sft --run runs/base --n 1500 --replay 0.2 --per-class 50 --out sft.jsonl --format trl
  sqlgym curate sft --run runs/base --run runs/base-hint --source self --out self.jsonl
  sqlgym curate sft --run runs/agent --agent --out episodes.jsonl --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runCurateSFT(cmd.Context(), io, opts, cmdkit.CompareCommandLine(cmd))
		},
	}
	f := cmd.Flags()
	f.IntVar(&opts.N, "n", 0, "failed plus replay examples (0: every failed task and the replay share of that)")
	f.Float64Var(&opts.Replay, "replay", 0.2, "share of the result from tasks the model solves, in [0, 1)")
	f.IntVar(&opts.PerClass, "per-class", 0, "extra examples for each of the most frequent failure classes")
	f.IntVar(&opts.TopClasses, "top-classes", 3, "how many of the most frequent failure classes get --per-class extras")
	f.Float64Var(&opts.FailBelow, "fail-below", 0, "a task is failed below this rate (0: only when no sample is right)")
	f.StringVar(&opts.Source, "source", "gold", "target: gold, self (the model's own verified answer) or both")
	f.BoolVar(&opts.Agent, "agent", false, "write correct agent episodes as multi-turn examples")
	addCurateCommon(cmd, &opts.curateCommon)
	return cmd
}

type curateDPOOptions struct {
	curateCommon
	Cap float64
}

func newCurateDPOCmd(io cmdkit.IO) *cobra.Command {
	var opts curateDPOOptions
	cmd := &cobra.Command{
		Use:   "dpo",
		Short: "Preference pairs from a model's own right and wrong answers",
		Long: `Mine at most one preference pair per task from a run's samples: the most
frequent correct answer (by normalised SQL) is chosen, the most frequent
wrong one rejected; the gold is chosen only when no sample is right, and
those gold-fallback pairs are capped at --gold-fallback-cap of the result.
No pair has two sides that normalise equal, or an empty rejected side. The
chosen side is executed again and must be correct, the rejected side must
still be wrong. The manifest audits the style gap between the sides (the
rate of T1-style aliases on each), so a set that would teach style instead
of correctness shows before training.

Formats: trl (TRL's conversational preference rows: "prompt", "chosen",
"rejected", plus "task_id", "db", "source", "rejected_class"), openai
(preference fine-tuning: "input", "preferred_output", "non_preferred_output").`,
		Example: `  sqlgym curate dpo --run runs/base --out pairs.jsonl
  sqlgym curate dpo --run runs/base --gold-fallback-cap 0.1 --out pairs.jsonl --json
  sqlgym curate dpo --run runs/spider --db-dir ../shared/data/spider_dev/database --out spider.pairs.jsonl`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runCurateDPO(cmd.Context(), io, opts, cmdkit.CompareCommandLine(cmd))
		},
	}
	cmd.Flags().Float64Var(&opts.Cap, "gold-fallback-cap", 0.25, "largest share of the pairs whose chosen side is the gold, in [0, 1)")
	addCurateCommon(cmd, &opts.curateCommon)
	return cmd
}

// curateInputs loads the runs and their tasks and opens the databases.
func curateInputs(ctx context.Context, c curateCommon, tmpl *prompt.Template) ([]*curate.Run, []sqlgym.Task, *curate.Env, func(), error) {
	// The project's output rule, before any work: never an input (a run
	// folder, a database, the prompt template), an existing file only
	// with --replace.
	inputs := append(append(append([]string(nil), c.Runs...), c.DB.Inputs()...), c.PromptTemplate)
	for _, p := range []string{c.Out, curate.ManifestPath(c.Out)} {
		if err := cmdkit.CheckOutput("--out", p, c.Replace, inputs...); err != nil {
			return nil, nil, nil, nil, err
		}
	}
	var runs []*curate.Run
	for _, d := range cmdkit.Dedupe(c.Runs) {
		r, err := curate.LoadRun(d)
		if err != nil {
			return nil, nil, nil, nil, err
		}
		runs = append(runs, r)
	}
	tasks, err := curate.Tasks(runs)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	if len(tasks) == 0 {
		return nil, nil, nil, nil, sqlgym.Userf("give runs with samples (sqlgym eval --out)", "the runs hold no sample of a known task")
	}
	cat, err := c.DB.CatalogFor(ctx, tasks)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	if tmpl == nil && c.PromptTemplate != "" {
		if tmpl, err = prompt.Load(c.PromptTemplate); err != nil {
			cat.Close()
			return nil, nil, nil, nil, err
		}
	}
	env := &curate.Env{DBs: cat, Template: tmpl, GitCommit: cmdkit.BuildCommit()}
	return runs, tasks, env, func() { cat.Close() }, nil
}

func runCurateSFT(ctx context.Context, io cmdkit.IO, opts curateSFTOptions, argv []string) error {
	format, err := curate.ParseFormat("sft", opts.Format)
	if err != nil {
		return err
	}
	src, err := curate.ParseSource(opts.Source)
	if err != nil {
		return err
	}
	if opts.Agent && format == curate.FormatVerl {
		return sqlgym.Userf("use --format trl or openai for agent episodes (their tool calls have no column in the verl layout written here)", "--agent with --format verl")
	}
	var tmpl *prompt.Template
	var agentTools []model.Tool
	if opts.Agent {
		// The opening an agent episode had: the protocol's own template,
		// read from the agent run's manifest below.
		r, err := curate.LoadRun(firstOr(opts.Runs))
		if err != nil {
			return err
		}
		if r.Manifest.Agent == nil {
			return sqlgym.Userf("give a run made with sqlgym eval --agent", "--agent: run %s is not an agent run", r.Dir)
		}
		p, err := agent.ParseProtocol(r.Manifest.Agent.Protocol)
		if err != nil {
			return err
		}
		tmpl = agent.DefaultTemplate(p)
		if p == agent.ProtocolTools {
			agentTools = agent.Tools()
		}
		if opts.PromptTemplate != "" {
			if tmpl, err = prompt.Load(opts.PromptTemplate); err != nil {
				return err
			}
		}
	}
	runs, tasks, env, done, err := curateInputs(ctx, opts.curateCommon, tmpl)
	if err != nil {
		return err
	}
	defer done()
	env.Tools = agentTools
	so := curate.SFTOptions{N: opts.N, Replay: opts.Replay, PerClass: opts.PerClass, TopClasses: opts.TopClasses,
		FailBelow: opts.FailBelow, Source: src, Seed: opts.Seed, Agent: opts.Agent}
	m, err := curate.BuildSFT(ctx, env, runs, tasks, so, curate.Output{Path: opts.Out, Format: format, Replace: opts.Replace})
	if err != nil {
		return err
	}
	return curateDone(io, m, opts.JSON, argv)
}

func runCurateDPO(ctx context.Context, io cmdkit.IO, opts curateDPOOptions, argv []string) error {
	format, err := curate.ParseFormat("dpo", opts.Format)
	if err != nil {
		return err
	}
	runs, tasks, env, done, err := curateInputs(ctx, opts.curateCommon, nil)
	if err != nil {
		return err
	}
	defer done()
	m, err := curate.BuildDPO(ctx, env, runs, tasks, curate.DPOOptions{GoldFallbackCap: opts.Cap, Seed: opts.Seed},
		curate.Output{Path: opts.Out, Format: format, Replace: opts.Replace})
	if err != nil {
		return err
	}
	return curateDone(io, m, opts.JSON, argv)
}

// curateDone records the dataset in the ledger of its first run's folder
// and prints the manifest.
func curateDone(io cmdkit.IO, m *curate.Manifest, asJSON bool, argv []string) error {
	e := ledger.Entry{Kind: ledger.KindCurate, Command: argv, GitCommit: cmdkit.BuildCommit(), Output: m.Out,
		Inputs:   map[string][]string{"runs": runDirs(m)},
		Headline: map[string]float64{"rows": float64(m.Rows), "tasks": float64(m.Tasks), "check_failed": float64(m.CheckFailed)}}
	for s, n := range m.BySource {
		e.Headline["source."+s] = float64(n)
	}
	if err := ledger.Append(ledger.PathFor(m.Runs[0].Dir), e); err != nil {
		return fmt.Errorf("record the dataset in the ledger: %w", err)
	}
	cmdkit.WarnWeak(io.ErrOut, "curate "+m.Kind, m.Weak, m.Tasks) // stderr: --json's stdout stays one document
	if asJSON {
		return cmdkit.WriteJSON(io.Out, m)
	}
	fmt.Fprintf(io.Out, "%d %s rows (%d tasks) -> %s (%s); manifest %s\n", m.Rows, m.Kind, m.Tasks, m.Out, m.Format, curate.ManifestPath(m.Out))
	fmt.Fprintf(io.Out, "by source: %s\n", kv(m.BySource))
	if len(m.ByReason) > 0 {
		fmt.Fprintf(io.Out, "by reason: %s\n", kv(m.ByReason))
	}
	if len(m.ByClass) > 0 {
		fmt.Fprintf(io.Out, "by failure class: %s\n", kv(m.ByClass))
	}
	fmt.Fprintf(io.Out, "checked again: %d queries, %d no longer passed and were left out\n", m.Checked, m.CheckFailed)
	if m.Style != nil {
		fmt.Fprintf(io.Out, "style audit: T1-style aliases on %.1f%% of chosen sides (%.1f%% of mined ones), %.1f%% of rejected\n",
			100*m.Style.AliasRateChosen, 100*m.Style.AliasRateChosenMined, 100*m.Style.AliasRateRejected)
	}
	return nil
}

func runDirs(m *curate.Manifest) []string {
	out := make([]string, len(m.Runs))
	for i, r := range m.Runs {
		out[i] = r.Dir
	}
	return out
}

func kv(m map[string]int) string {
	var parts []string
	for _, k := range sortedKeysOf(m) {
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	return strings.Join(parts, ", ")
}

func sortedKeysOf(m map[string]int) []string { return slices.Sorted(maps.Keys(m)) }

func firstOr(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[0]
}
