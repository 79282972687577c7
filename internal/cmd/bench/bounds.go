package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/catalog"
	"github.com/sqlgym/sqlgym/internal/cmd/cmdkit"
	"github.com/sqlgym/sqlgym/internal/proccpu"
	"github.com/sqlgym/sqlgym/internal/redact"
	"github.com/sqlgym/sqlgym/internal/redteam"
	"github.com/sqlgym/sqlgym/verify"
)

type benchBoundsOptions struct {
	RedTeam  string
	Engines  string
	Postgres string
	MySQL    string
	Sample   int
	JSON     bool
}

func newBenchBoundsCmd(io cmdkit.IO) *cobra.Command {
	var opts benchBoundsOptions
	cmd := &cobra.Command{
		Use:   "bounds",
		Short: "Replay the red team's reproductions on each engine and check every answer's cost against the documented per-answer bound",
		Long: `Replay every reproduction of the red team's corpus (--redteam, the
folder of r*.jsonl files and their README: statements and whole replies)
on each engine, one answer at a time through the verifier with its
default limits, on the built-in shop (SQLite and DuckDB files made here;
PostgreSQL and MariaDB/MySQL given as a reader's URL with the shop loaded,
as sqlgym db create shop makes it). Every file runs on every engine: on
the engine it was written for its outcome is checked against the
README's; elsewhere it is hostile input all the same. The 512-answer
files are sampled (--sample answers each, evenly spaced; 0 for all).

Per engine it prints the answers, their outcomes, the largest wall and
CPU time of one answer, and the documented per-answer bound in CPU time
(docs/verifier.md, "Per-answer bounds, by engine"), which the machine's
load hardly changes, unlike the wall clock:
  sqlite    10 s   this process (the statement runs on one of its threads)
  duckdb     6 s   this process and its worker processes (Timeout of CPU and the kill's slack)
  postgres  14 s   this process and the reader's backends, from /proc (two runs of Timeout + 2 s)
  mysql     19 s   this process and the whole server process, other clients included
                   (two runs of 1.5 x Timeout + 2 s)
An engine passes when no answer's CPU time is past its bound, no reward
is null (an infrastructure failure: the answer was not scored) and every
outcome is the one the README expects. It exits 1 when one fails.`,
		Example: `  sqlgym-bench bounds --redteam ../shared/redteam
  sqlgym-bench bounds --engines sqlite,duckdb --sample 0 --json
  sqlgym-bench bounds --postgres 'postgres://reader@127.0.0.1:5432/postgres?schema=shop' --mysql 'mysql://reader:PW@127.0.0.1:3306/shop'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runBenchBounds(cmd.Context(), io, opts) },
	}
	f := cmd.Flags()
	f.StringVar(&opts.RedTeam, "redteam", "../shared/redteam", "the red team's corpus: r*.jsonl, tasks.jsonl, tasks_one.jsonl")
	f.StringVar(&opts.Engines, "engines", "sqlite,duckdb,postgres,mysql", "engines to replay on, comma-separated; postgres and mysql need their URL")
	f.StringVar(&opts.Postgres, "postgres", "", "a PostgreSQL reader's URL with the shop loaded (schema=...); the server must run on this machine for its CPU time")
	f.StringVar(&opts.MySQL, "mysql", "", "a MariaDB/MySQL reader's mysql:// URL with the shop loaded; the server must run on this machine for its CPU time")
	f.IntVar(&opts.Sample, "sample", 8, "answers replayed of each 512-answer file, evenly spaced (0: all)")
	f.BoolVar(&opts.JSON, "json", false, "print the report as JSON")
	return cmd
}

// boundsReport is what bounds prints (--json as is).
type boundsReport struct {
	RedTeam    string         `json:"redteam"`
	CPUs       int            `json:"cpus"`
	LoadAvg    string         `json:"load_avg"`
	LoadAvgEnd string         `json:"load_avg_end"`
	Sample     int            `json:"sample"`
	Engines    []engineBounds `json:"engines"`
}

type engineBounds struct {
	Engine  string `json:"engine"`
	Target  string `json:"target,omitempty"`
	Skipped string `json:"skipped,omitempty"`
	// CPUMeasure says whose CPU time an answer is charged.
	CPUMeasure  string                 `json:"cpu_measure,omitempty"`
	CPUBoundS   float64                `json:"cpu_bound_s"`
	Answers     int                    `json:"answers"`
	Outcomes    map[sqlgym.Outcome]int `json:"outcomes"`
	NullRewards int                    `json:"null_rewards"`
	// LateReadings counts answers whose CPU reading exceeded what their
	// wall time allows on this machine's CPUs (an earlier answer's work,
	// a worker reaped late): each is charged wall x CPUs instead.
	LateReadings int                 `json:"late_cpu_readings"`
	Unexpected   []unexpectedOutcome `json:"unexpected"`
	MaxWallS     float64             `json:"max_wall_s"`
	MaxWallAt    string              `json:"max_wall_at,omitempty"`
	MaxCPUS      float64             `json:"max_cpu_s"`
	MaxCPUAt     string              `json:"max_cpu_at,omitempty"`
	Files        []fileBounds        `json:"files"`
	Pass         bool                `json:"pass"`
	Err          string              `json:"error,omitempty"`
}

type fileBounds struct {
	File     string                 `json:"file"`
	Answers  int                    `json:"answers"`
	Outcomes map[sqlgym.Outcome]int `json:"outcomes"`
	MaxWallS float64                `json:"max_wall_s"`
	MaxCPUS  float64                `json:"max_cpu_s"`
}

type unexpectedOutcome struct {
	File    string           `json:"file"`
	Line    int              `json:"line"`
	Outcome sqlgym.Outcome   `json:"outcome"`
	Want    []sqlgym.Outcome `json:"want"`
	Detail  string           `json:"detail,omitempty"`
}

// boundsWatchdog abandons one answer that runs this long: far past every
// bound, it is there only so that a hang cannot hold the run forever.
const boundsWatchdog = 15 * time.Minute

func runBenchBounds(ctx context.Context, io cmdkit.IO, opts benchBoundsOptions) error {
	if opts.Sample < 0 {
		return cmdkit.Usagef("--sample %d: 0 (all) or more", opts.Sample)
	}
	corpus, err := redteam.Load(opts.RedTeam)
	if err != nil {
		return err
	}
	rep := &boundsReport{RedTeam: opts.RedTeam, CPUs: runtime.NumCPU(), LoadAvg: proccpu.LoadAverage(), Sample: opts.Sample}
	dir, err := os.MkdirTemp("", "sqlgym-bounds-")
	if err != nil {
		return fmt.Errorf("bench bounds: %w", err)
	}
	defer os.RemoveAll(dir)
	for _, name := range strings.Split(opts.Engines, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		t, err := boundsTargetFor(ctx, name, opts, filepath.Join(dir, name))
		if err != nil {
			return err
		}
		eb := engineBounds{Engine: name, Outcomes: map[sqlgym.Outcome]int{}, Unexpected: []unexpectedOutcome{}, Files: []fileBounds{}}
		if t.skip != "" {
			eb.Skipped = t.skip
			rep.Engines = append(rep.Engines, eb)
			continue
		}
		eb.Target, eb.CPUMeasure, eb.CPUBoundS = redact.URL(t.url), t.measure, t.bound.Seconds()
		fmt.Fprintf(io.ErrOut, "%s: replaying the red team's corpus...\n", name)
		if err := replayEngine(ctx, io, corpus, t, opts.Sample, &eb); err != nil {
			eb.Err = err.Error()
		}
		t.close()
		eb.Pass = eb.Err == "" && eb.MaxCPUS <= eb.CPUBoundS && eb.NullRewards == 0 && len(eb.Unexpected) == 0
		rep.Engines = append(rep.Engines, eb)
	}
	rep.LoadAvgEnd = proccpu.LoadAverage()
	if opts.JSON {
		if err := cmdkit.WriteJSON(io.Out, rep); err != nil {
			return err
		}
	} else {
		printBounds(io, rep)
	}
	for _, e := range rep.Engines {
		if e.Skipped == "" && !e.Pass {
			return sqlgym.Userf("--json lists each file's costliest answer and every unexpected outcome; docs/verifier.md states the bounds",
				"%s: an answer past its engine's per-answer bound, unscored or with another outcome than the README expects", e.Engine)
		}
	}
	return nil
}

// replayEngine verifies every answer of the corpus on t, one at a time,
// charging each the CPU time t.cpu reads across it.
func replayEngine(ctx context.Context, io cmdkit.IO, corpus *redteam.Corpus, t *boundsTarget, sample int, eb *engineBounds) error {
	cat, err := catalog.New(catalog.Config{Refs: []string{"shop=" + t.url}})
	if err != nil {
		return fmt.Errorf("%s: %w", eb.Engine, err)
	}
	defer cat.Close()
	v := verify.New(cat, corpus.Tasks, verify.Config{})
	// The golds run first, so that no answer is charged its gold.
	for _, task := range corpus.Tasks {
		if r := v.Verify(ctx, verify.Answer{TaskID: task.ID, SQL: task.SQL}); r.Outcome != sqlgym.OutcomeCorrect {
			return fmt.Errorf("%s: the gold of task %s is %s (%s): is the shop loaded there?", eb.Engine, task.ID, r.Outcome, r.Detail)
		}
	}
	for _, rp := range corpus.Reproductions {
		fb := fileBounds{File: rp.File, Outcomes: map[sqlgym.Outcome]int{}}
		all := rp.Answers
		if len(all) >= 100 {
			all = redteam.Sample(all, sample)
		}
		for i, a := range all {
			if err := ctx.Err(); err != nil {
				return fmt.Errorf("interrupted: %w", err)
			}
			actx, cancel := context.WithTimeout(ctx, boundsWatchdog)
			c0, err := t.cpu()
			if err != nil {
				cancel()
				return fmt.Errorf("%s: read the CPU time: %w", eb.Engine, err)
			}
			start := time.Now()
			r := v.Verify(actx, verify.Answer{TaskID: a.TaskID, SQL: a.SQL, Completion: a.Completion})
			wall := time.Since(start)
			c1, err := t.cpu()
			cancel()
			if err != nil {
				return fmt.Errorf("%s: read the CPU time: %w", eb.Engine, err)
			}
			cpu := c1 - c0
			// More CPU than the wall time allows on this machine's CPUs
			// is an earlier answer's work read late (a worker reaped
			// now): not this answer's.
			if limit := wall*time.Duration(runtime.NumCPU()) + 50*time.Millisecond; cpu > limit {
				eb.LateReadings++
				cpu = limit
			}
			at := fmt.Sprintf("%s answer %d", rp.File, i+1)
			fmt.Fprintf(io.ErrOut, "  %s: %s, %.2f s wall, %.2f s CPU\n", at, r.Outcome, wall.Seconds(), cpu.Seconds())
			eb.Answers++
			fb.Answers++
			eb.Outcomes[r.Outcome]++
			fb.Outcomes[r.Outcome]++
			if r.Reward == nil {
				eb.NullRewards++
			}
			if !rp.Expected(t.dialect, r.Outcome) {
				eb.Unexpected = append(eb.Unexpected, unexpectedOutcome{File: rp.File, Line: i + 1, Outcome: r.Outcome, Want: rp.Expect, Detail: r.Detail})
			}
			if s := wall.Seconds(); s > eb.MaxWallS {
				eb.MaxWallS, eb.MaxWallAt = s, at
			}
			if s := cpu.Seconds(); s > eb.MaxCPUS {
				eb.MaxCPUS, eb.MaxCPUAt = s, at
			}
			fb.MaxWallS, fb.MaxCPUS = max(fb.MaxWallS, wall.Seconds()), max(fb.MaxCPUS, cpu.Seconds())
		}
		eb.Files = append(eb.Files, fb)
	}
	return nil
}

func printBounds(io cmdkit.IO, rep *boundsReport) {
	w := io.Out
	fmt.Fprintf(w, "red team's corpus %s, %d CPUs, load average %s -> %s; 512-answer files sampled to %d answers (0: all)\n",
		rep.RedTeam, rep.CPUs, rep.LoadAvg, rep.LoadAvgEnd, rep.Sample)
	for _, e := range rep.Engines {
		if e.Skipped != "" {
			fmt.Fprintf(w, "%-8s skipped: %s\n", e.Engine, e.Skipped)
			continue
		}
		verdict := "PASS"
		if !e.Pass {
			verdict = "FAIL"
		}
		fmt.Fprintf(w, "%-8s %s: %d answers (%s); null rewards %d, unexpected outcomes %d; max per answer: wall %.2f s (%s), CPU %.2f s (%s), bound %.0f s of CPU [%s]\n",
			e.Engine, verdict, e.Answers, outcomeLine(e.Outcomes), e.NullRewards, len(e.Unexpected), e.MaxWallS, e.MaxWallAt, e.MaxCPUS, e.MaxCPUAt, e.CPUBoundS, e.CPUMeasure)
		if e.Err != "" {
			fmt.Fprintf(w, "         error: %s\n", e.Err)
		}
		for i, u := range e.Unexpected {
			if i == 5 {
				fmt.Fprintf(w, "         ... %d more (see --json)\n", len(e.Unexpected)-5)
				break
			}
			fmt.Fprintf(w, "         %s line %d: %s, the README expects %v (%s)\n", u.File, u.Line, u.Outcome, u.Want, u.Detail)
		}
	}
}
