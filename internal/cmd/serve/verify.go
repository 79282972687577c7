package serve

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	goio "io"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/internal/atomicfile"
	"github.com/sqlgym/sqlgym/shopdb"
	"github.com/sqlgym/sqlgym/verify"

	"github.com/sqlgym/sqlgym/internal/cmd/cmdkit"
)

type verifyOptions struct {
	Tasks        string
	Predictions  string
	Mode         string
	Order        string
	AllModes     bool
	KeepDistinct bool
	Reward       string
	Timeout      time.Duration
	VMSteps      int64
	SafetyNet    time.Duration
	Out          string
	Replace      bool
	JSON         bool
	DB           cmdkit.DBFlags
}

func NewVerifyCmd(io cmdkit.IO) *cobra.Command {
	var opts verifyOptions
	cmd := &cobra.Command{
		Use:   "verify",
		Short: "Run predicted SQL in the sandbox and judge it against the gold",
		Long: `Run each prediction read-only in its task's database, compare its rows with
the gold's under a comparison mode, and give it an outcome and a reward.

Predictions are JSONL: {"task_id", "sample"?, "sql" | "completion", "finish_reason"?}.
A "sql" is run as it is; a "completion" goes through extraction (the last
fenced sql block, tags, or a bare statement; reasoning dropped). A reply
with finish_reason "length" is truncated and gets no reward.

Modes: multiset (default), bird, strict, testsuite, spider2, f1; see
docs/verifier.md for each rule. Outcomes: correct, wrong, error, timeout,
too_large, no_query, truncated, gold_error, infra_error. Default rewards:
correct=1,wrong=0.1,error=0,timeout=0,too_large=0,no_query=0, and null for
truncated, gold_error and infra_error (a trainer ignores those).

Results go to --out as JSONL in input order (to stdout when --out is not
given and --json is not set); the summary goes to stdout, or to stderr when
results take stdout.`,
		Example: `  sqlgym verify --tasks tasks.jsonl --predictions preds.jsonl --db shop=sqlite:shop.sqlite --out results.jsonl
  sqlgym verify --tasks spider.jsonl --predictions preds.jsonl --db-dir ../shared/data/spider_dev/database --mode testsuite --json
  sqlgym verify --tasks tasks.jsonl --predictions preds.jsonl --all-modes --reward correct=1,wrong=0 --out r.jsonl --replace`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runVerify(cmd.Context(), io, opts) },
	}
	f := cmd.Flags()
	f.StringVar(&opts.Tasks, "tasks", "", "task file (JSONL), or shop for the built-in shop task set")
	f.StringVar(&opts.Predictions, "predictions", "", "predictions file (JSONL)")
	f.StringVar(&opts.Mode, "mode", "multiset", "comparison mode: "+cmdkit.ModeNames())
	f.StringVar(&opts.Order, "order", "", cmdkit.OrderUsage)
	f.BoolVar(&opts.AllModes, "all-modes", false, "add every mode's verdict to each result")
	f.BoolVar(&opts.KeepDistinct, "keep-distinct", false, "testsuite mode: keep DISTINCT (the official script removes it by default)")
	f.StringVar(&opts.Reward, "reward", "", "reward overrides, e.g. correct=1,wrong=0.1,truncated=null")
	f.DurationVar(&opts.Timeout, "timeout", sqlgym.DefaultTimeout, "time limit per statement on PostgreSQL and DuckDB (on SQLite only with --vm-steps -1)")
	f.Int64Var(&opts.VMSteps, "vm-steps", 0, "SQLite: deterministic budget in virtual-machine steps that decides timeout, whatever the load (0: the default 200,000,000; -1: off, --timeout decides)")
	f.DurationVar(&opts.SafetyNet, "safety-net", 0, "SQLite with a step budget: wall-clock time after which a statement is stopped as infra_error, never scored (0: the default 300s)")
	f.StringVar(&opts.Out, "out", "", "results file (JSONL)")
	f.BoolVar(&opts.JSON, "json", false, "print the summary as JSON")
	cmdkit.AddDBFlags(cmd, &opts.DB)
	cmdkit.AddVariantsFlag(cmd, &opts.DB)
	_ = cmd.MarkFlagRequired("tasks")
	_ = cmd.MarkFlagRequired("predictions")
	cmdkit.AddReplaceFlag(cmd, &opts.Replace)
	return cmd
}

// verifyChunk bounds how many answers are planned and deduplicated at once,
// so memory stays flat on large prediction files.
const verifyChunk = 2048

func runVerify(ctx context.Context, io cmdkit.IO, opts verifyOptions) error {
	if err := cmdkit.CheckOutput("--out", opts.Out, opts.Replace, append([]string{opts.Tasks, opts.Predictions}, opts.DB.Inputs()...)...); err != nil {
		return err
	}
	mode, err := cmdkit.ParseMode(opts.Mode)
	if err != nil {
		return err
	}
	order, err := cmdkit.ParseOrder(opts.Order, mode, opts.AllModes)
	if err != nil {
		return err
	}
	rewards, err := verify.ParseRewards(opts.Reward)
	if err != nil {
		return err
	}
	tasks, err := shopdb.LoadTasks(opts.Tasks)
	if err != nil {
		return err
	}
	answers, err := verify.ReadPredictions(opts.Predictions)
	if err != nil {
		return err
	}
	byID := map[string]bool{}
	for _, t := range tasks {
		byID[t.ID] = true
	}
	for i, a := range answers {
		if !byID[a.TaskID] {
			return sqlgym.Userf("check that --tasks is the task file the predictions were made for",
				"%s: prediction %d names task %q, which is not in %s", opts.Predictions, i+1, a.TaskID, opts.Tasks)
		}
	}
	used := map[string]bool{}
	for _, a := range answers {
		used[a.TaskID] = true
	}
	var needed []sqlgym.Task
	for _, t := range tasks {
		if used[t.ID] {
			needed = append(needed, t)
		}
	}
	cat, err := opts.DB.CatalogFor(ctx, needed)
	if err != nil {
		return err
	}
	defer cat.Close()
	v := verify.New(cat, tasks, verify.Config{
		Mode: mode, Order: order, AllModes: opts.AllModes, Rewards: rewards, KeepDistinct: opts.KeepDistinct, Variants: opts.DB.Variants,
		Limits:   sqlgym.Limits{Timeout: opts.Timeout, VMSteps: opts.VMSteps, SafetyNet: opts.SafetyNet},
		Failures: true,
	})
	cmdkit.BoundGoHeap(v.Config().Budget.Limit())

	var all []verify.Result
	summaryTo := io.Out
	switch {
	case opts.Out != "":
		// The results file appears whole or not at all, and a failed write
		// or flush (a full disk) is an error, never a short file and exit 0.
		err = atomicfile.Write(opts.Out, func(w goio.Writer) error {
			bw := bufio.NewWriter(w)
			var err error
			if all, err = verifyAll(ctx, io.ErrOut, v, answers, bw); err != nil {
				return err
			}
			return bw.Flush()
		})
	case !opts.JSON:
		summaryTo = io.ErrOut
		all, err = verifyAll(ctx, io.ErrOut, v, answers, io.Out)
	default:
		all, err = verifyAll(ctx, io.ErrOut, v, answers, nil)
	}
	if err != nil {
		return err
	}
	sum := verify.Summarize(all)
	broken := verify.Broken(all)
	if opts.JSON {
		if err := cmdkit.WriteJSON(summaryTo, verifyJSON{Summary: sum, BrokenGolds: broken}); err != nil {
			return err
		}
	} else {
		if err := printSummary(summaryTo, sum, v.Config().ModeLabel()); err != nil {
			return err
		}
		cmdkit.PrintBroken(summaryTo, broken)
	}
	if sum.Scored == 0 && sum.Total > 0 {
		return cmdkit.NothingScored("verify", sum.Outcomes[sqlgym.OutcomeGoldError], sum.Outcomes[sqlgym.OutcomeInfraError], broken)
	}
	return nil
}

// verifyAll judges answers in chunks, writing each result as a JSON line
// to out (when not nil) and progress to progress.
func verifyAll(ctx context.Context, progress goio.Writer, v *verify.Verifier, answers []verify.Answer, out goio.Writer) ([]verify.Result, error) {
	var enc *json.Encoder
	if out != nil {
		enc = json.NewEncoder(out)
		enc.SetEscapeHTML(false)
	}
	all := make([]verify.Result, 0, len(answers))
	start := time.Now()
	for lo := 0; lo < len(answers); lo += verifyChunk {
		hi := min(lo+verifyChunk, len(answers))
		res := v.VerifyBatch(ctx, answers[lo:hi])
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("verify interrupted after %d of %d answers: %w", lo, len(answers), err)
		}
		for i := range res {
			if enc != nil {
				if err := enc.Encode(&res[i]); err != nil {
					return nil, fmt.Errorf("write results: %w", err)
				}
			}
		}
		all = append(all, res...)
		if len(answers) > verifyChunk {
			fmt.Fprintf(progress, "verified %d/%d answers (%.1fs)\n", hi, len(answers), time.Since(start).Seconds())
		}
	}
	return all, nil
}

// verifyJSON is verify --json: the summary and every broken gold.
type verifyJSON struct {
	verify.Summary
	BrokenGolds []verify.BrokenGold `json:"broken_golds"`
}

func printSummary(w goio.Writer, s verify.Summary, mode string) error {
	fmt.Fprintf(w, "%d answers, mode %s: accuracy %.1f%% (%d scored), mean reward %.3f\n",
		s.Total, mode, 100*s.Accuracy, s.Scored, s.MeanReward)
	var keys []string
	for o, n := range s.Outcomes {
		keys = append(keys, fmt.Sprintf("%s %d", o, n))
	}
	sort.Strings(keys)
	if _, err := fmt.Fprintf(w, "outcomes: %s\n", strings.Join(keys, ", ")); err != nil || len(s.Failures) == 0 {
		return err
	}
	keys = keys[:0]
	for c, n := range s.Failures {
		keys = append(keys, fmt.Sprintf("%s %d", c, n))
	}
	sort.Strings(keys)
	_, err := fmt.Fprintf(w, "failures: %s\n", strings.Join(keys, ", "))
	return err
}
