package run

import (
	"fmt"
	goio "io"
	"os"

	"github.com/spf13/cobra"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/internal/atomicfile"
	"github.com/sqlgym/sqlgym/report"
	"github.com/sqlgym/sqlgym/rundir"
	"github.com/sqlgym/sqlgym/shopdb"
	"github.com/sqlgym/sqlgym/verify"

	"github.com/sqlgym/sqlgym/internal/cmd/cmdkit"
)

type reportOptions struct {
	HTML     string
	Markdown bool
	JSON     bool
	Replace  bool
}

func NewReportCmd(io cmdkit.IO) *cobra.Command {
	var opts reportOptions
	cmd := &cobra.Command{
		Use:   "report RUN",
		Short: "Show what a run folder scored: pass@k with intervals, outcomes, failures",
		Long: `Show what an evaluation run scored, recomputed from its samples.jsonl:
pass@1, pass@K and pass^K (K the run's samples per task) with 95% bootstrap
intervals over tasks, the outcome breakdown (SQL errors by kind, wrong answers
by why), the difficulty histogram (tasks by how many of K samples were right),
pass@1 per database and per complexity, and the failures with predicted and
gold SQL.

gold_error and infra_error samples are nobody's answer: they are left out of
every score and shown as missing, never counted as wrong. A single run is
marked unreplicated; compare replicate runs with 'sqlgym compare'.

By default a terminal table; --md prints Markdown for a pull request; --html F
writes a self-contained page (inline SVG charts, no script, no external
asset) and prints its path. See docs/benchmark.md, "Reports".`,
		Example: `  sqlgym report runs/qwen-base
  sqlgym report runs/qwen-base --md > report.md
  sqlgym report runs/qwen-base --html runs/qwen-base/report.html
  sqlgym report runs/qwen-base --json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return runReport(io, args[0], opts) },
	}
	f := cmd.Flags()
	f.StringVar(&opts.HTML, "html", "", "write a self-contained HTML page to this file")
	f.BoolVar(&opts.Markdown, "md", false, "print Markdown instead of the terminal table")
	f.BoolVar(&opts.JSON, "json", false, "print JSON")
	cmd.MarkFlagsMutuallyExclusive("md", "json")
	cmdkit.AddReplaceFlag(cmd, &opts.Replace)
	return cmd
}

// ReportJSON is report --json: the recomputed summary beside the run's
// identity, the per-task counts and every failure.
type ReportJSON struct {
	Run           string              `json:"run"`
	Manifest      rundir.Manifest     `json:"manifest"`
	Summary       rundir.Summary      `json:"summary"`
	StoredSummary bool                `json:"stored_summary"`
	AbsentTasks   int                 `json:"absent_tasks"`
	Notes         []string            `json:"notes,omitempty"`
	Tasks         []report.TaskResult `json:"tasks"`
	Failures      []report.Failure    `json:"failures"`
	Classes       []report.ClassCount `json:"failure_classes"`
	Hint          *report.HintSummary `json:"hint,omitempty"`
	BrokenGolds   []verify.BrokenGold `json:"broken_golds"`
	HTML          string              `json:"html,omitempty"`
}

func runReport(io cmdkit.IO, dir string, opts reportOptions) error {
	// A page report wrote before is its own derived file: rewriting it
	// is what running report again means, so it needs no --replace.
	replace := opts.Replace || ownReportPage(opts.HTML)
	if err := cmdkit.CheckOutput("--html", opts.HTML, replace, cmdkit.RunInputs(dir)...); err != nil {
		return err
	}
	run, err := loadRun(dir)
	if err != nil {
		return err
	}
	if opts.HTML != "" {
		if err := WriteReportFile(opts.HTML, func(w goio.Writer) error { return report.HTML(w, run) }); err != nil {
			return err
		}
	}
	switch {
	case opts.JSON:
		return cmdkit.WriteJSON(io.Out, ReportJSON{Run: dir, Manifest: run.Manifest, Summary: run.Summary,
			StoredSummary: run.Stored != nil, AbsentTasks: run.AbsentTasks, Notes: run.Notes,
			Tasks: run.Tasks, Failures: run.Failures, Classes: run.Classes, Hint: run.Hint, BrokenGolds: run.BrokenGolds(), HTML: opts.HTML})
	case opts.Markdown:
		return report.Markdown(io.Out, run)
	case opts.HTML != "":
		_, err := fmt.Fprintln(io.Out, opts.HTML)
		return err
	default:
		return report.Text(io.Out, run)
	}
}

// loadRun loads a run folder, turning "not a run" into an error with a hint.
func loadRun(dir string) (*report.Run, error) {
	st, err := os.Stat(dir)
	if err != nil || !st.IsDir() {
		return nil, sqlgym.Userf("give the folder 'sqlgym eval --out' wrote, e.g. runs/NAME",
			"%s: no such run folder", dir)
	}
	run, err := report.Load(dir, shopdb.LoadTasks)
	if err != nil {
		if _, serr := os.Stat(dir + "/" + rundir.ManifestFile); serr != nil {
			return nil, sqlgym.Userf("a run folder holds manifest.json and samples.jsonl, written by 'sqlgym eval --out'",
				"%s is not a run folder (no %s)", dir, rundir.ManifestFile)
		}
		return nil, fmt.Errorf("load run %s: %w", dir, err)
	}
	return run, nil
}

// WriteReportFile writes a page atomically, so a reader never sees half of
// one and a failed render leaves the old page in place.
// ownReportPage reports whether the regular file at path is an HTML page
// report wrote (report.IsReportHTML on its first bytes).
func ownReportPage(path string) bool {
	if path == "" {
		return false
	}
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return false
	}
	head := make([]byte, 512)
	n, _ := goio.ReadFull(f, head)
	return report.IsReportHTML(head[:n])
}

func WriteReportFile(path string, render func(goio.Writer) error) error {
	return atomicfile.Write(path, render)
}
