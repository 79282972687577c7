package run

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/report"
	"github.com/sqlgym/sqlgym/stats"

	"github.com/sqlgym/sqlgym/internal/cmd/cmdkit"
)

type powerOptions struct {
	Run   string
	Delta string
	JSON  bool
}

func NewPowerCmd(io cmdkit.IO) *cobra.Command {
	var opts powerOptions
	var runs []string
	cmd := &cobra.Command{
		Use:   "power",
		Short: "How many tasks a benchmark needs for a given precision",
		Long: `Say how precise a run's pass@1 is and how many tasks would make its 95%
interval's half-width (the "plus or minus") fall below --delta.

It measures the spread of the run's per-task rates p_i = c_i/n_i and uses the
normal approximation: half-width = 1.96 * sd / sqrt(N), so N tasks for a
half-width of delta is (1.96 * sd / delta)^2, checked by a bootstrap at that N.
--delta is a fraction (0.03) or points (3%).

The lesson this is built on: 140 held-out tasks gave a band of about +-6
points, so a real 3-point gain could never be proven; 459 tasks brought it to
about +-3.5. A paired comparison of two models on the same tasks is usually
tighter than this, since task difficulty cancels. See docs/benchmark.md,
"Power".`,
		Example: `  sqlgym power --run runs/qwen-base --delta 0.03
  sqlgym power --run runs/qwen-base --delta 3% --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			// A repeated --run kept only the last; two runs are a paired
			// comparison, which compare measures.
			if len(runs) != 1 {
				return cmdkit.Usagef("--run given %d times: power measures one run; for two runs of the same tasks, compare --base A --treat B gives the paired interval", len(runs))
			}
			opts.Run = runs[0]
			return runPower(io, opts)
		},
	}
	f := cmd.Flags()
	f.StringArrayVar(&runs, "run", nil, "run folder")
	f.StringVar(&opts.Delta, "delta", "", "target 95% half-width: a fraction (0.03) or points (3%)")
	f.BoolVar(&opts.JSON, "json", false, "print JSON")
	_ = cmd.MarkFlagRequired("run")
	_ = cmd.MarkFlagRequired("delta")
	return cmd
}

// PowerJSON is power --json.
type PowerJSON struct {
	Run string `json:"run"`
	stats.Power
	// CurrentBootstrapHalfWidth is half the run's own pass@1 interval.
	CurrentBootstrapHalfWidth float64 `json:"current_bootstrap_half_width"`
	Pass1                     float64 `json:"pass@1"`
}

func runPower(io cmdkit.IO, opts powerOptions) error {
	delta, err := parsePowerDelta(opts.Delta)
	if err != nil {
		return err
	}
	run, err := loadRun(opts.Run)
	if err != nil {
		return err
	}
	rates := run.Rates()
	if len(rates) < 2 {
		return sqlgym.Userf("power needs a run with at least two scored tasks",
			"%s: %d scored tasks", opts.Run, len(rates))
	}
	p, err := stats.Plan(rates, delta, report.Resamples, report.Seed)
	if err != nil {
		return err
	}
	m := run.Summary.Metrics["pass@1"]
	res := PowerJSON{Run: opts.Run, Power: p, CurrentBootstrapHalfWidth: (m.CI[1] - m.CI[0]) / 2, Pass1: m.Value}
	if opts.JSON {
		return cmdkit.WriteJSON(io.Out, res)
	}
	pts := func(x float64) string { return fmt.Sprintf("+-%.1f points", 100*x) }
	fmt.Fprintf(io.Out, "run %s: pass@1 %.1f%% over %d tasks, per-task sd %.3f\n", run.Name(), 100*m.Value, p.N, p.SD)
	fmt.Fprintf(io.Out, "now:    95%% half-width %s (normal), %s (this run's bootstrap interval)\n", pts(p.HalfWidth), pts(res.CurrentBootstrapHalfWidth))
	fmt.Fprintf(io.Out, "target: %s needs %d tasks", pts(delta), p.NeededN)
	if p.BootstrapChecked {
		fmt.Fprintf(io.Out, " (bootstrap at %d tasks: %s)", p.NeededN, pts(p.BootstrapHalfWidth))
	}
	fmt.Fprintln(io.Out)
	switch {
	case p.NeededN <= p.N:
		fmt.Fprintf(io.Out, "this run already has enough tasks\n")
	default:
		fmt.Fprintf(io.Out, "that is %d more tasks like these (%.1fx)\n", p.NeededN-p.N, float64(p.NeededN)/float64(p.N))
	}
	return nil
}

// parsePowerDelta reads 0.03 or 3% as the fraction 0.03.
func parsePowerDelta(s string) (float64, error) {
	num, percent := strings.CutSuffix(strings.TrimSpace(s), "%")
	v, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
	if err != nil {
		return 0, cmdkit.Usagef("--delta %q: want a fraction such as 0.03 or points such as 3%%", s)
	}
	if percent {
		v /= 100
	}
	if !(v > 0 && v < 1) {
		return 0, cmdkit.Usagef("--delta %q: the half-width must be between 0 and 1 (0.03, or 3%%)", s)
	}
	return v, nil
}
