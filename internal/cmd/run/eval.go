package run

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	goio "io"
	"path/filepath"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/baseline"
	"github.com/sqlgym/sqlgym/catalog"
	"github.com/sqlgym/sqlgym/dataset"
	"github.com/sqlgym/sqlgym/eval"
	"github.com/sqlgym/sqlgym/ledger"
	"github.com/sqlgym/sqlgym/model"
	"github.com/sqlgym/sqlgym/prompt"
	"github.com/sqlgym/sqlgym/report"
	"github.com/sqlgym/sqlgym/rundir"
	"github.com/sqlgym/sqlgym/schema"
	"github.com/sqlgym/sqlgym/shopdb"
	"github.com/sqlgym/sqlgym/verify"

	"github.com/sqlgym/sqlgym/internal/cmd/cmdkit"
)

type EvalOptions struct {
	Tasks          string
	Split          string
	Policy         string
	BaseURLs       []string
	Model          string
	APIKeyEnv      string
	K              int
	Temperature    float64
	TopP           float64
	Seed           int
	MaxTokens      int
	Stop           []string
	Extra          string
	Out            string
	Mode           string
	Order          string
	Reward         string
	PromptTemplate string
	Schema         string
	Linker         cmdkit.LinkerFlags
	Concurrency    int
	JSON           bool
	DB             cmdkit.DBFlags
	Agent          agentOptions
	RetryFailed    string
	Hint           string
	Yes            bool

	TopPSet, SeedSet bool
}

const evalLong = `Sample each task k times through a model server (any OpenAI-compatible
chat completions API) or the offline baseline policy, judge every sample with
the same verifier as 'sqlgym verify' and the reward server, and write a run
folder:

  samples.jsonl   one line per sample, appended as samples finish
  manifest.json   what was run: version, commit, task and database digests,
                  policy, model, decoding, mode, rewards, prompt hash
  summary.json    pass@1, pass@K and pass^K with 95% bootstrap intervals,
                  outcome counts, missing samples

Running the same command again continues where it stopped, after a crash or
a kill -9 too: no sample is lost or drawn twice. A folder holding a run of
other settings is refused. Samples the database could not judge (infra_error)
are judged again from their kept completions.

A model server that fails past the client's retries never costs the model a
point: those samples stay missing, the run goes on, and the command exits 3
saying to run it again. A server that stops answering at all (connections
refused for a few seconds, on every --base-url) ends the run at once, with exit
3 and "the model server went away; run the same command again". With --seed each sample is drawn with seed+index, so a
resumed run asks for exactly what an uninterrupted one would.

--split takes the tasks marked holdout or train by 'sqlgym split', or all.
Left out, it is holdout when the task file marks splits (a notice on stderr
says so, as the BIRD and Spider scripts score the test split), else all.
Progress goes to stderr about once a second; the summary to stdout (--json:
summary.json's content). Each finished run is appended to ledger.jsonl in the
run folder's parent. See docs/benchmark.md.

--agent makes each sample a multi-turn episode instead of one completion: the
model may list and describe tables and run queries in the sandbox, reading
their rows or errors, for up to --max-turns turns, then submits one query,
which is judged like any answer. --protocol tools uses OpenAI tool calls (a
server with a tool parser, e.g. vLLM --tool-call-parser hermes); --protocol
text uses <sql> and <solution> tags. Samples keep the whole trajectory; the
report adds turns, queries, crashes fixed by revision and failures that do
not run vs run with wrong rows. See docs/agent.md.

--schema linked shows each prompt only the tables the schema linker keeps for
its question (what 'sqlgym link' measures; with --agent the tools still see
every table); --schema oracle shows the gold's own tables, a diagnostic upper
bound that reports mark as such. The choice is in the manifest and the
configuration hash. See docs/link.md.`

func NewEvalCmd(io cmdkit.IO) *cobra.Command { return EvalCmd(io, new(EvalOptions)) }

// EvalCmd is eval with its flags bound to opts: round fills and renders
// options through it (roundcmds.go).
func EvalCmd(io cmdkit.IO, opts *EvalOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "eval",
		Short: "Benchmark a model: sample each task k times, verify, write a resumable run",
		Long:  evalLong,
		Example: `  sqlgym eval --tasks tasks.jsonl --split holdout --base-url http://127.0.0.1:8000/v1 --model Qwen/Qwen3-8B \
      --k 4 --temperature 0.7 --seed 1 --out runs/qwen3-8b
  sqlgym eval --tasks tasks.jsonl --policy baseline --k 4 --out runs/baseline
  sqlgym eval --tasks bird.jsonl --db-dir bird/dev_databases --base-url http://127.0.0.1:8080 \
      --extra '{"chat_template_kwargs":{"enable_thinking":false}}' --max-tokens 2048 --out runs/bird-nothink
  sqlgym eval --tasks tasks.jsonl --split train --policy baseline --retry-failed runs/base --hint shape --out runs/base-hint`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts.TopPSet = cmd.Flags().Changed("top-p")
			opts.SeedSet = cmd.Flags().Changed("seed")
			if err := opts.Agent.check(cmd); err != nil {
				return err
			}
			return RunEval(cmd.Context(), io, *opts, cmdkit.CompareCommandLine(cmd))
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.Tasks, "tasks", "", "task file (JSONL)")
	f.StringVar(&opts.Split, "split", "", "tasks to evaluate: holdout, train or all (default: holdout when the file marks splits, else all)")
	f.StringVar(&opts.Policy, "policy", "openai", "openai (a model server) or baseline (offline retrieval)")
	f.StringArrayVar(&opts.BaseURLs, "base-url", nil, "OpenAI-compatible base URL, e.g. http://127.0.0.1:8000/v1; repeat it for replicas of one model (each request goes to the one with the fewest in flight; a failing one is taken out and retried later)")
	f.StringVar(&opts.Model, "model", "", "model name the server serves")
	f.StringVar(&opts.APIKeyEnv, "api-key-env", "", "environment variable holding the API key (default OPENAI_API_KEY)")
	f.IntVar(&opts.K, "k", 4, "samples per task")
	f.Float64Var(&opts.Temperature, "temperature", 0.7, "sampling temperature")
	f.Float64Var(&opts.TopP, "top-p", 0, "nucleus sampling top_p (default: the server's)")
	f.IntVar(&opts.Seed, "seed", 0, "base seed: sample i of a task is drawn with seed+i (default: unseeded)")
	f.IntVar(&opts.MaxTokens, "max-tokens", 0, "completion token limit (default: the server's)")
	f.StringArrayVar(&opts.Stop, "stop", nil, "stop sequence; repeatable")
	f.StringVar(&opts.Extra, "extra", "", `JSON object merged into every request body, e.g. '{"top_k":20}'`)
	f.StringVar(&opts.Out, "out", "", "run folder, e.g. runs/NAME")
	f.StringVar(&opts.Mode, "mode", "multiset", "comparison mode: "+cmdkit.ModeNames())
	f.StringVar(&opts.Order, "order", "", cmdkit.OrderUsage)
	f.StringVar(&opts.Reward, "reward", "", "reward overrides, e.g. correct=1,wrong=0")
	f.StringVar(&opts.PromptTemplate, "prompt-template", "", "prompt template file (default: the built-in one)")
	f.StringVar(&opts.RetryFailed, "retry-failed", "", "ask again only the tasks this run folder failed (no scored sample right)")
	f.StringVar(&opts.Hint, "hint", "", "with --retry-failed: shape adds the expected result's column count and names and row count to each prompt")
	f.StringVar(&opts.Schema, "schema", "full", "prompt schema: full, linked (sqlgym link's choice) or oracle (the gold's tables: a diagnostic, marked in reports)")
	cmdkit.AddLinkerFlags(cmd, &opts.Linker)
	f.IntVar(&opts.Concurrency, "concurrency", eval.DefaultConcurrency, "tasks sampled at once and model requests in flight")
	f.BoolVar(&opts.JSON, "json", false, "print summary.json's content as JSON")
	f.BoolVar(&opts.Yes, "yes", false, fmt.Sprintf("run more than %d samples (k x tasks) without refusing", maxEvalSamples))
	cmdkit.AddDBFlags(cmd, &opts.DB)
	cmdkit.AddVariantsFlag(cmd, &opts.DB)
	addAgentFlags(cmd, &opts.Agent)
	_ = cmd.MarkFlagRequired("tasks")
	_ = cmd.MarkFlagRequired("out")
	return cmd
}

func RunEval(ctx context.Context, io cmdkit.IO, opts EvalOptions, argv []string) error {
	mode, err := cmdkit.ParseMode(opts.Mode)
	if err != nil {
		return err
	}
	order, err := cmdkit.ParseOrder(opts.Order, mode, false)
	if err != nil {
		return err
	}
	if opts.K < 1 {
		return cmdkit.Usagef("--k %d: at least 1", opts.K)
	}
	if opts.Concurrency < 1 {
		return cmdkit.Usagef("--concurrency %d: at least 1", opts.Concurrency)
	}
	rewards, err := verify.ParseRewards(opts.Reward)
	if err != nil {
		return err
	}
	var extra map[string]any
	if strings.TrimSpace(opts.Extra) != "" {
		if err := json.Unmarshal([]byte(opts.Extra), &extra); err != nil || extra == nil {
			return cmdkit.Usagef(`--extra %q: not a JSON object (e.g. '{"top_k":20}')`, opts.Extra)
		}
	}
	tmpl := prompt.Default()
	if opts.PromptTemplate != "" {
		if tmpl, err = prompt.Load(opts.PromptTemplate); err != nil {
			return err
		}
	}
	src, err := cmdkit.SchemaSource(opts.Schema, opts.Linker)
	if err != nil {
		return err
	}
	all, tasksHash, err := readTasksHashed(opts.Tasks)
	if err != nil {
		return err
	}
	if opts.Split == "" {
		opts.Split = defaultSplit(io.ErrOut, all, opts.Tasks)
	}
	tasks, err := selectSplit(all, opts.Split, opts.Tasks)
	if err != nil {
		return err
	}
	if tasks, err = retryTasks(tasks, opts); err != nil {
		return err
	}
	if err := checkSampleBound(opts.K, len(tasks), opts.Yes); err != nil {
		return err
	}
	if w := dataset.SharedGoldWarning(dataset.SharedGolds(all)); w != "" && opts.Split != sqlgym.SplitTrain {
		fmt.Fprintf(io.ErrOut, "warning: %s: %s\n", opts.Tasks, w)
	}
	cat, err := opts.DB.CatalogFor(ctx, tasks)
	if err != nil {
		return err
	}
	defer cat.Close()

	dec := rundir.Decoding{K: opts.K, Temperature: opts.Temperature, MaxTokens: opts.MaxTokens, Stop: opts.Stop, Extra: extra}
	if opts.TopPSet {
		dec.TopP = opts.TopP
	}
	if opts.SeedSet {
		s := opts.Seed
		dec.Seed = &s
	}
	bi := cmdkit.ReadBuildInfo()
	cfg := eval.Config{
		Out: opts.Out, Tasks: tasks, TasksFile: manifestTasksPath(opts.Tasks), TasksHash: tasksHash, Split: opts.Split,
		DBs: cat, PostgresSchema: opts.DB.PGSchema, Decoding: dec,
		Verify:   verify.Config{Mode: mode, Order: order, Rewards: rewards, Variants: opts.DB.Variants},
		Template: tmpl, Schema: src, Concurrency: opts.Concurrency,
		Version: bi.Version, GitCommit: cmdkit.BuildCommit(),
		Command: argv, Ledger: ledger.PathFor(opts.Out),
		Progress: io.ErrOut, Hint: opts.Hint, RetryOf: opts.RetryFailed,
	}
	var replicaStats func() []model.ReplicaStats
	switch opts.Policy {
	case "openai":
		if replicaStats, err = openAIPolicy(ctx, &cfg, opts); err != nil {
			return err
		}
	case "baseline":
		if err := baselinePolicy(ctx, &cfg, opts, all, cat); err != nil {
			return err
		}
	default:
		return cmdkit.Usagef("--policy %q: openai or baseline", opts.Policy)
	}
	if opts.Agent.On {
		if err := agentSetup(ctx, &cfg, opts, cat); err != nil {
			return err
		}
	}

	res, err := eval.Run(ctx, cfg)
	if err != nil {
		return err
	}
	if opts.JSON {
		if err := cmdkit.WriteJSON(io.Out, res.Summary); err != nil {
			return err
		}
	} else if err := PrintEvalSummary(io.Out, res); err != nil {
		return err
	}
	if replicaStats != nil {
		printReplicaStats(io.ErrOut, replicaStats()) // stderr: --json's stdout stays one document
	}
	var broken []verify.BrokenGold
	if res.Summary.Outcomes[string(sqlgym.OutcomeGoldError)] > 0 {
		// Named on stderr, so --json's stdout stays one document; report
		// --json lists them all.
		if run, err := loadRun(res.Dir); err == nil {
			broken = run.BrokenGolds()
			cmdkit.PrintBroken(io.ErrOut, broken)
		}
	}
	if err := missingError(res); err != nil {
		return err
	}
	judged := 0
	for _, n := range res.Summary.Outcomes {
		judged += n
	}
	if res.Summary.Tasks == 0 && judged > 0 {
		return cmdkit.NothingScored("eval", res.Summary.Outcomes[string(sqlgym.OutcomeGoldError)], res.Summary.Outcomes[string(sqlgym.OutcomeInfraError)], broken)
	}
	return nil
}

// maxEvalSamples is the sanity bound on k x tasks: a run past it is far
// beyond any published evaluation (BIRD dev at k=16 is 24,544 samples) and
// is most likely a typo in --k, so eval asks for --yes first.
const maxEvalSamples = 200_000

func checkSampleBound(k, tasks int, yes bool) error {
	if yes || k <= maxEvalSamples/max(tasks, 1) {
		return nil
	}
	return sqlgym.Userf("lower --k, or add --yes if you mean to draw that many (the run needs no memory per sample up front)",
		"--k %d over %d tasks is %d samples, past the sanity bound of %d", k, tasks, int64(k)*int64(tasks), maxEvalSamples)
}

// openAIPolicy sets cfg's policy to the model server(s) of --base-url;
// stats is the pool's per-replica counts (nil for one server).
func openAIPolicy(ctx context.Context, cfg *eval.Config, opts EvalOptions) (stats func() []model.ReplicaStats, err error) {
	if len(opts.BaseURLs) == 0 {
		return nil, cmdkit.Usagef("--policy openai needs --base-url (e.g. http://127.0.0.1:8000/v1); --policy baseline needs no server")
	}
	key, err := model.APIKeyFromEnv(opts.APIKeyEnv)
	if err != nil {
		return nil, sqlgym.Userf("export the variable, or leave --api-key-env out for a local server that needs no key", "%w", err)
	}
	cfg.Retries = &eval.RetryLog{}
	client, replicas, stats, err := modelClient(opts, key, cfg.Retries.Note)
	if err != nil {
		return nil, err
	}
	// A server that is down or refuses the key stops the run here, not
	// after every sample spent its retries.
	if err := client.Check(ctx); err != nil {
		return nil, err
	}
	d := model.Decoding{Temperature: model.Float(opts.Temperature), MaxTokens: opts.MaxTokens, Stop: opts.Stop, Extra: cfg.Decoding.Extra}
	if opts.TopPSet {
		d.TopP = model.Float(opts.TopP)
	}
	cfg.Policy = model.NewOpenAIPolicy(client, opts.Model, d)
	cfg.Reseed = func(seed int) model.Policy {
		sd := d
		sd.Seed = model.Int(seed)
		return model.NewOpenAIPolicy(client, opts.Model, sd)
	}
	cfg.PolicyKind, cfg.Model, cfg.BaseURL, cfg.ModelReplicas = "openai", opts.Model, client.BaseURL(), replicas
	return stats, nil
}

// baselineValueSamples is how many distinct values per column the baseline
// learns from each database, to read lower-case value names in questions.
const baselineValueSamples = 50

func baselinePolicy(ctx context.Context, cfg *eval.Config, opts EvalOptions, all []sqlgym.Task, cat *catalog.Catalog) error {
	if len(opts.BaseURLs) > 0 || opts.Model != "" {
		return cmdkit.Usagef("--policy baseline runs offline: leave out --base-url and --model")
	}
	if opts.Temperature < 0 {
		return cmdkit.Usagef("--temperature %v: the baseline needs 0 or more", opts.Temperature)
	}
	values, err := knownValues(ctx, cat, cfg.Tasks)
	if err != nil {
		return err
	}
	// Each database answers in its engine's gold (gold_sql_by_dialect), as
	// eval scores it: SQLite's functions do not run on MySQL.
	dialects := map[string]sqlgym.Dialect{}
	for _, t := range cfg.Tasks {
		if _, done := dialects[t.DB]; done {
			continue
		}
		eng, err := cat.Engine(ctx, t.DB)
		if err != nil {
			return fmt.Errorf("database %s: %w", t.DB, err)
		}
		dialects[t.DB] = eng.Dialect()
	}
	// A negative seed still fixes the draws; the baseline's seed is unsigned.
	p, err := baseline.New(all, baseline.Options{Temperature: opts.Temperature, Seed: uint64(opts.Seed), Values: values, Dialects: dialects})
	if err != nil {
		return cmdkit.Usagef("%w", err)
	}
	cfg.Policy, cfg.Positional = p, true
	cfg.PolicyKind, cfg.Model = "baseline", baseline.PolicyName
	return nil
}

// readTasksHashed reads --tasks by the one task loader, with the SHA-256
// of the file's bytes.
func readTasksHashed(path string) ([]sqlgym.Task, string, error) {
	tasks, b, err := shopdb.LoadTaskFile(path)
	if err != nil {
		return nil, "", err
	}
	sum := sha256.Sum256(b)
	return tasks, hex.EncodeToString(sum[:]), nil
}

// defaultSplit is --split left out: the held-out tasks when the file marks
// splits, as lm-evaluation-harness and the BIRD and Spider scripts score
// the test split (scoring train tasks would measure what the model may
// have been trained on); all tasks when it marks none. A notice says which.
func defaultSplit(w goio.Writer, all []sqlgym.Task, path string) string {
	held := 0
	marked := false
	for _, t := range all {
		marked = marked || t.Split != ""
		if t.Split == sqlgym.SplitHoldout {
			held++
		}
	}
	if !marked || held == 0 {
		return "all"
	}
	fmt.Fprintf(w, "eval: scoring the %d held-out tasks of %s (of %d); --split all scores every task, --split train the train tasks\n", held, path, len(all))
	return sqlgym.SplitHoldout
}

func selectSplit(all []sqlgym.Task, split, path string) ([]sqlgym.Task, error) {
	switch split {
	case "all":
		return all, nil
	case sqlgym.SplitHoldout, sqlgym.SplitTrain:
	default:
		return nil, cmdkit.Usagef("--split %q: holdout, train or all", split)
	}
	var out []sqlgym.Task
	marked := 0
	for _, t := range all {
		if t.Split != "" {
			marked++
		}
		if t.Split == split {
			out = append(out, t)
		}
	}
	if len(out) == 0 {
		if marked == 0 {
			return nil, sqlgym.Userf("mark the tasks first: sqlgym split --tasks "+path+" --holdout-frac 0.2 --out tasks.split.jsonl, or pass --split all",
				"%s: no task carries a split, so --split %s selects nothing", path, split)
		}
		return nil, sqlgym.Userf("pick another --split", "%s: no task is in the %s split", path, split)
	}
	return out, nil
}

func PrintEvalSummary(w goio.Writer, res *eval.Result) error {
	s := res.Summary
	fmt.Fprintf(w, "%s: %d tasks x k=%d", res.Dir, s.Tasks, s.K)
	if res.Resumed {
		fmt.Fprintf(w, " (continued: %d samples kept, %d drawn, %d judged again)", res.Present, res.Drawn, res.Rejudged)
	}
	fmt.Fprintln(w)
	keys := []string{"pass@1", report.PassAtKey(s.K), report.PassHatKey(s.K)}
	if s.K == 1 {
		keys = keys[:1] // pass@1, pass@1 and pass^1 are one number at k=1
	}
	for _, key := range keys {
		if m, ok := s.Metrics[key]; ok {
			fmt.Fprintf(w, "  %-8s %5.1f%%  [%.1f, %.1f]\n", key, 100*m.Value, 100*m.CI[0], 100*m.CI[1])
		}
	}
	var parts []string
	for o, n := range s.Outcomes {
		parts = append(parts, fmt.Sprintf("%s %d", o, n))
	}
	sort.Strings(parts)
	if len(parts) == 0 {
		parts = []string{"none"}
	}
	_, err := fmt.Fprintf(w, "  outcomes: %s; missing %d\n", strings.Join(parts, ", "), s.Missing)
	return err
}

// missingError turns samples the run could not draw into exit code 3 with
// what to do about them.
func missingError(res *eval.Result) error {
	if res.Missing == 0 {
		return nil
	}
	var what []string
	if res.MissingInfra > 0 {
		what = append(what, fmt.Sprintf("%d samples missing (model server failures)", res.MissingInfra))
	}
	if res.MissingDB > 0 {
		what = append(what, fmt.Sprintf("%d samples missing (database unavailable for the prompt's schema)", res.MissingDB))
	}
	if res.MissingRefused > 0 {
		what = append(what, fmt.Sprintf("%d samples missing (the policy refused the request)", res.MissingRefused))
	}
	if res.MissingRefused == res.Missing {
		// A refusal (a prompt too long, a bad request) comes back on every
		// retry: running again will not help until the cause is fixed.
		msg := strings.Join(what, "; ") + ": fix the cause below, then run the same command again to fill them"
		return &sqlgym.UserError{Msg: msg, Hint: "first failure: " + res.FirstFailure}
	}
	msg := strings.Join(what, "; ") + ": run the same command again to fill them"
	return cmdkit.Incomplete(&sqlgym.UserError{Msg: msg, Hint: "first failure: " + res.FirstFailure})
}

// knownValues lists, per database of the tasks, the values the baseline
// recognises in questions (a few per column, from the schema's samples).
func knownValues(ctx context.Context, cat *catalog.Catalog, tasks []sqlgym.Task) (map[string][]string, error) {
	values := map[string][]string{}
	for _, t := range tasks {
		if _, done := values[t.DB]; done {
			continue
		}
		eng, err := cat.Engine(ctx, t.DB)
		if err != nil {
			return nil, fmt.Errorf("database %s: %w", t.DB, err)
		}
		s, err := schema.Load(ctx, eng, baselineValueSamples)
		if err != nil {
			return nil, fmt.Errorf("database %s: %w", t.DB, err)
		}
		values[t.DB] = baseline.KnownValues(s)
	}
	return values, nil
}

// manifestTasksPath is the task file as a run's manifest records it:
// absolute, so report and compare find it from any folder; the built-in
// set keeps its name.
func manifestTasksPath(p string) string {
	if p == shopdb.Name {
		return p
	}
	if abs, err := filepath.Abs(p); err == nil {
		return abs
	}
	return p
}
