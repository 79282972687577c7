package run

import (
	"errors"
	"fmt"
	goio "io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/ledger"
	"github.com/sqlgym/sqlgym/report"
	"github.com/sqlgym/sqlgym/stats"

	"github.com/sqlgym/sqlgym/internal/cmd/cmdkit"
)

type CompareOptions struct {
	Base          []string
	Treat         []string
	Cluster       string
	Criterion     string
	AllowMismatch bool
	HTML          string
	Markdown      bool
	JSON          bool
	Replace       bool
}

func NewCompareCmd(io cmdkit.IO) *cobra.Command { return CompareCmd(io, new(CompareOptions)) }

// CompareCmd is compare with its flags bound to opts (see evalCmd).
func CompareCmd(io cmdkit.IO, opts *CompareOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "compare",
		Short: "Paired comparison of runs: is the treatment really better?",
		Long: `Compare treatment runs with baseline runs on the tasks they share, task by
task, and say whether the difference is proven.

Each task's rate p = c/n is averaged over a side's replicate runs; delta is
the mean over tasks of p_treat - p_base with a 95% paired bootstrap interval
(2000 resamples, fixed seed). --cluster db resamples whole databases instead,
for tasks that share a database. The verdict is "proven gain" when the whole
interval is above 0, "proven loss" when below, else "not proven". A side with
a single run is marked unreplicated: score each side three times. The
p-value is exact McNemar when every per-task rate is 0 or 1 and each side is
one run, else the sign-flip permutation test. pass@k and pass^k differences
are paired on the per-task unbiased estimators.

Runs whose task sets, tasks hashes, database digests or modes differ are
refused; --allow-mismatch pairs them on their common tasks anyway (and says
so). --criterion checks a pre-registered bar: delta, lo or hi, then >=, >, <=
or <, then a fraction or points ("delta>=0.05", "lo>0", "delta>=5%"). A bar
from below (>=, >) passes only with a proven gain, as in round: an estimate
over it inside an interval that holds zero fails. A bar not met exits 4 after
the comparison is printed and recorded.

Each comparison is appended to the ledger, ledger.jsonl in the first
treatment run's parent folder (runs/ledger.jsonl for runs/NAME). See
docs/benchmark.md, "Comparing runs".`,
		Example: `  sqlgym compare --base runs/base --treat runs/round1
  sqlgym compare --base runs/base-1,runs/base-2,runs/base-3 --treat runs/r1-1,runs/r1-2,runs/r1-3 --criterion 'delta>=0.03'
  sqlgym compare --base runs/base --treat runs/round1 --cluster db --md
  sqlgym compare --base runs/base --treat runs/round1 --html runs/round1/compare.html --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runCompare(io, *opts, cmdkit.CompareCommandLine(cmd))
		},
	}
	f := cmd.Flags()
	f.StringSliceVar(&opts.Base, "base", nil, "baseline run folder(s), comma-separated or repeated")
	f.StringSliceVar(&opts.Treat, "treat", nil, "treatment run folder(s), comma-separated or repeated")
	f.StringVar(&opts.Cluster, "cluster", "", `resample clusters instead of tasks: "db"`)
	f.StringVar(&opts.Criterion, "criterion", "", `pre-registered bar on the pass@1 delta, e.g. "delta>=0.05"`)
	f.BoolVar(&opts.AllowMismatch, "allow-mismatch", false, "pair runs with different tasks, hashes, digests or modes on their common tasks")
	f.StringVar(&opts.HTML, "html", "", "write a self-contained HTML page to this file")
	f.BoolVar(&opts.Markdown, "md", false, "print Markdown instead of the terminal table")
	f.BoolVar(&opts.JSON, "json", false, "print JSON")
	cmd.MarkFlagsMutuallyExclusive("md", "json")
	_ = cmd.MarkFlagRequired("base")
	_ = cmd.MarkFlagRequired("treat")
	cmdkit.AddReplaceFlag(cmd, &opts.Replace)
	return cmd
}

func runCompare(io cmdkit.IO, opts CompareOptions, argv []string) error {
	c, err := CompareRuns(opts, argv)
	if err != nil {
		return err
	}
	if err := printComparison(io, opts, c); err != nil {
		return err
	}
	if c.CriterionMet != nil && !*c.CriterionMet {
		return &cmdkit.CriterionError{Criterion: c.Criterion, Delta: c.Pass1().Delta, Why: c.CriterionWhy}
	}
	return nil
}

// CompareRuns compares the runs, writes --html and appends the comparison
// to the ledger; argv is the command line the ledger records.
func CompareRuns(opts CompareOptions, argv []string) (*report.Comparison, error) {
	if err := sameRunBothSides(opts.Base, opts.Treat); err != nil {
		return nil, err
	}
	var inputs []string
	for _, dir := range append(append([]string{}, opts.Base...), opts.Treat...) {
		inputs = append(inputs, cmdkit.RunInputs(dir)...)
	}
	if err := cmdkit.CheckOutput("--html", opts.HTML, opts.Replace, inputs...); err != nil {
		return nil, err
	}
	var ropts report.CompareOptions
	switch opts.Cluster {
	case "":
	case "db":
		ropts.ClusterByDB = true
	default:
		return nil, cmdkit.Usagef("--cluster %q: the only cluster is \"db\"", opts.Cluster)
	}
	if opts.Criterion != "" {
		c, err := stats.ParseCriterion(opts.Criterion)
		if err != nil {
			return nil, cmdkit.Usagef("--criterion: %w", err)
		}
		ropts.Criterion = &c
	}
	ropts.AllowMismatch = opts.AllowMismatch
	base, err := loadRuns(opts.Base)
	if err != nil {
		return nil, err
	}
	treat, err := loadRuns(opts.Treat)
	if err != nil {
		return nil, err
	}
	c, err := report.Compare(base, treat, ropts)
	var me *report.MismatchError
	if errors.As(err, &me) {
		var what []string
		for _, m := range me.Mismatches {
			what = append(what, m.What)
		}
		return nil, sqlgym.Userf(fmt.Sprintf("the runs differ in %s, so their numbers are not comparable; re-run them alike, or pass --allow-mismatch to pair them on their common tasks anyway",
			strings.Join(cmdkit.Dedupe(what), ", ")), "%w", err)
	}
	var few *report.FewDatabasesError
	if errors.As(err, &few) {
		return nil, sqlgym.Userf("drop --cluster db: it is for task sets over many databases (Spider, BIRD); one database's tasks are resampled by task", "%w", err)
	}
	if err != nil {
		return nil, sqlgym.Userf("compare runs of the same tasks; --allow-mismatch pairs runs on their common tasks", "%w", err)
	}
	if opts.HTML != "" {
		if err := WriteReportFile(opts.HTML, func(w goio.Writer) error { return report.CompareHTML(w, c) }); err != nil {
			return nil, err
		}
	}
	if err := appendCompareLedger(c, base[0], treat, argv, opts.HTML); err != nil {
		return nil, err
	}
	return c, nil
}

func printComparison(io cmdkit.IO, opts CompareOptions, c *report.Comparison) error {
	switch {
	case opts.JSON:
		return cmdkit.WriteJSON(io.Out, c)
	case opts.Markdown:
		return report.CompareMarkdown(io.Out, c)
	default:
		if err := report.CompareText(io.Out, c); err != nil {
			return err
		}
		if opts.HTML != "" {
			_, err := fmt.Fprintf(io.Out, "wrote %s\n", opts.HTML)
			return err
		}
		return nil
	}
}

func loadRuns(dirs []string) ([]*report.Run, error) {
	var runs []*report.Run
	for _, d := range dirs {
		if d = strings.TrimSpace(d); d == "" {
			continue
		}
		r, err := loadRun(d)
		if err != nil {
			return nil, err
		}
		runs = append(runs, r)
	}
	if len(runs) == 0 {
		return nil, cmdkit.Usagef("--base and --treat each need at least one run folder")
	}
	return runs, nil
}

func appendCompareLedger(c *report.Comparison, base *report.Run, treat []*report.Run, argv []string, out string) error {
	p1 := c.Pass1()
	e := ledger.Entry{
		Kind: ledger.KindCompare, Command: argv, GitCommit: cmdkit.BuildCommit(),
		ConfigHash: treat[0].Manifest.ConfigHash, TasksHash: base.Manifest.TasksHash, Split: base.Manifest.Split,
		Output: out, Inputs: map[string][]string{"base": c.Base.Runs, "treat": c.Treat.Runs},
		Headline: map[string]float64{
			"tasks": float64(c.Tasks), "base.pass@1": c.Base.Pass1, "treat.pass@1": c.Treat.Pass1,
			"delta": p1.Delta.Value, "delta.lo": p1.Delta.Lo, "delta.hi": p1.Delta.Hi, "p_value": c.PValue,
		},
		Verdict: c.VerdictLine(),
	}
	if err := ledger.Append(ledger.PathFor(treat[0].Dir), e); err != nil {
		return fmt.Errorf("record the comparison in the ledger: %w", err)
	}
	return nil
}

// sameRunBothSides refuses a run folder given as base and as treatment: a
// run compared with itself proves nothing, and says "not proven" as if
// something had been measured.
func sameRunBothSides(base, treat []string) error {
	seen := map[string]bool{}
	for _, b := range base {
		seen[absOr(strings.TrimSpace(b))] = true
	}
	for _, t := range treat {
		if seen[absOr(strings.TrimSpace(t))] {
			return cmdkit.Usagef("--base and --treat both name %s: compare a run with another", t)
		}
	}
	return nil
}
