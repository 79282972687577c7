package run

import (
	"errors"
	"fmt"
	goio "io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/catalog"
	"github.com/sqlgym/sqlgym/internal/jsonl"
	"github.com/sqlgym/sqlgym/ledger"
	"github.com/sqlgym/sqlgym/report"
	"github.com/sqlgym/sqlgym/rundir"

	"github.com/sqlgym/sqlgym/internal/cmd/cmdkit"
)

// Statuses of a listed run.
const (
	RunComplete    = "complete"    // ended with every sample drawn
	RunIncomplete  = "incomplete"  // ended with samples missing: run the same command again
	RunInterrupted = "interrupted" // stopped before its end (Ctrl-C, a kill, a crash)
	runRunning     = "running"     // another process holds its lock now
)

// RunRow is one run as `sqlgym runs` lists it.
type RunRow struct {
	ID      string    `json:"id"`
	Dir     string    `json:"dir"`
	Started time.Time `json:"started"`
	Model   string    `json:"model"`
	Tasks   int       `json:"tasks"`
	K       int       `json:"k"`
	// Pass1 and its 95% interval are report's, recomputed from the
	// samples; nil when no task was scored.
	Pass1   *float64   `json:"pass@1,omitempty"`
	Pass1CI []float64  `json:"pass@1_ci,omitempty"`
	Missing int        `json:"missing"`
	Status  string     `json:"status"`
	Ended   *time.Time `json:"ended,omitempty"`
}

type runsOptions struct {
	JSON bool
	Keep int
	Yes  bool
}

const runsLong = `List the eval runs of a folder: those its ledger (DIR/ledger.jsonl) records
and every run folder in it, the ones stopped before their end included. With
no DIR, ./runs when it exists and the demo's runs under the cache
($SQLGYM_CACHE/runs).

Each run shows its id (the folder name), when it started, the model (or
policy), tasks, k, pass@1 with its 95% bootstrap interval (the same numbers
as 'sqlgym report', recomputed from the samples), and a status:
  complete     every sample drawn and judged
  incomplete   ended with samples missing: run its command again to fill them
  interrupted  stopped before its end (Ctrl-C, a kill): run its command again
  running      another sqlgym process is writing it now`

func NewRunsCmd(io cmdkit.IO) *cobra.Command {
	var opts runsOptions
	cmd := &cobra.Command{
		Use:   "runs [DIR]",
		Short: "List eval runs with pass@1 and status; prune old demo runs",
		Long:  runsLong,
		Example: `  sqlgym runs                 # ./runs and the demo's runs
  sqlgym runs runs/           # one folder
  sqlgym runs --json | jq '.[] | select(.status != "complete") | .dir'
  sqlgym runs prune --keep 3  # remove all but the 3 newest demo runs, asking first`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runRuns(io, opts, args)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the runs as a JSON array")
	cmd.AddCommand(newRunsPruneCmd(io))
	return cmd
}

// runsFolders are the folders `sqlgym runs` lists: DIR, else ./runs when
// it exists and the demo's folder under the cache.
func runsFolders(args []string) ([]string, error) {
	if len(args) == 1 {
		st, err := os.Stat(args[0])
		if err != nil || !st.IsDir() {
			return nil, sqlgym.Userf("give the folder holding your run folders (the parent of eval --out), e.g. runs",
				"%s: no such folder", args[0])
		}
		return args, nil
	}
	var dirs []string
	if st, err := os.Stat("runs"); err == nil && st.IsDir() {
		dirs = append(dirs, "runs")
	}
	demo, err := demoRunsDir()
	if err != nil {
		return nil, err
	}
	if st, err := os.Stat(demo); err == nil && st.IsDir() {
		dirs = append(dirs, demo)
	}
	return dirs, nil
}

// demoRunsDir is where `sqlgym demo` puts its runs by default.
func demoRunsDir() (string, error) {
	cache, err := catalog.CacheDir("")
	if err != nil {
		return "", err
	}
	return filepath.Join(cache, "runs"), nil
}

func runRuns(io cmdkit.IO, opts runsOptions, args []string) error {
	dirs, err := runsFolders(args)
	if err != nil {
		return err
	}
	var rows []RunRow
	for _, d := range dirs {
		rs, err := listRuns(d)
		if err != nil {
			return err
		}
		rows = append(rows, rs...)
	}
	if opts.JSON {
		if rows == nil {
			rows = []RunRow{}
		}
		return cmdkit.WriteJSON(io.Out, rows)
	}
	if len(rows) == 0 {
		fmt.Fprintf(io.ErrOut, "no runs in %s; 'sqlgym eval --out runs/NAME' or 'sqlgym demo' makes one\n", runsWhere(dirs))
		return nil
	}
	return printRuns(io.Out, rows)
}

func runsWhere(dirs []string) string {
	if len(dirs) == 0 {
		return "./runs or the cache"
	}
	return strings.Join(dirs, " or ")
}

// listRuns lists the runs of one folder: the eval entries of its ledger
// whose folder still exists, and every run folder in it (a run stopped
// before its end is in no ledger), oldest first.
func listRuns(dir string) ([]RunRow, error) {
	seen := map[string]bool{}
	var paths []string
	add := func(p string) {
		abs, err := filepath.Abs(p)
		if err != nil || seen[abs] {
			return
		}
		if _, err := os.Stat(filepath.Join(abs, rundir.ManifestFile)); err != nil {
			return // deleted since, or not a run folder
		}
		seen[abs] = true
		paths = append(paths, abs)
	}
	entries, _, err := ledger.Read(filepath.Join(dir, ledger.FileName))
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		if e.Kind == ledger.KindEval && e.Output != "" {
			add(e.Output)
		}
	}
	des, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", dir, err)
	}
	for _, de := range des {
		if de.IsDir() {
			add(filepath.Join(dir, de.Name()))
		}
	}
	var rows []RunRow
	for _, p := range paths {
		r, err := runRowOf(p)
		if err != nil {
			return nil, err
		}
		rows = append(rows, r)
	}
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].Started.Before(rows[j].Started) })
	return rows, nil
}

// runRowOf reads one run folder the way `sqlgym report` does.
func runRowOf(dir string) (RunRow, error) {
	run, err := loadRun(dir)
	if err != nil {
		return RunRow{}, err
	}
	m := run.Manifest
	row := RunRow{ID: run.Name(), Dir: dir, Started: m.Started, Model: m.Model, Tasks: m.TaskCount, K: m.Decoding.K,
		Missing: run.Summary.Missing, Ended: m.Ended}
	if row.Model == "" {
		row.Model = m.Policy
	}
	if p, ok := run.Summary.Metrics["pass@1"]; ok && run.Summary.Tasks > 0 {
		v := p.Value
		row.Pass1, row.Pass1CI = &v, []float64{p.CI[0], p.CI[1]}
	}
	row.Status = runStatus(dir, m, run)
	return row, nil
}

func runStatus(dir string, m rundir.Manifest, run *report.Run) string {
	if running(dir) {
		return runRunning
	}
	switch {
	case m.Ended == nil:
		return RunInterrupted
	case run.Summary.Missing > 0:
		return RunIncomplete
	}
	return RunComplete
}

func printRuns(w goio.Writer, rows []RunRow) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSTARTED\tMODEL\tTASKS\tK\tPASS@1 [95% CI]\tSTATUS\tFOLDER")
	for _, r := range rows {
		p := "-"
		if r.Pass1 != nil {
			p = fmt.Sprintf("%.1f%% [%.1f, %.1f]", 100**r.Pass1, 100*r.Pass1CI[0], 100*r.Pass1CI[1])
		}
		status := r.Status
		if r.Missing > 0 && r.Status != runRunning {
			status += fmt.Sprintf(" (%d missing)", r.Missing)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%s\t%s\t%s\n", r.ID, r.Started.Local().Format("2006-01-02 15:04"),
			r.Model, r.Tasks, r.K, p, status, r.Dir)
	}
	return tw.Flush()
}

// running reports whether a process holds the run folder's lock (eval's
// .lock). A folder without the file is not probed: probing would create it.
func running(dir string) bool {
	p := filepath.Join(dir, ".lock")
	if _, err := os.Stat(p); err != nil {
		return false
	}
	l, err := jsonl.Acquire(p, false)
	if err != nil {
		var locked *jsonl.LockedError
		return errors.As(err, &locked)
	}
	l.Release()
	return false
}
