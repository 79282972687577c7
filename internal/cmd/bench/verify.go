package bench

import (
	"context"
	"errors"
	"fmt"
	goio "io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/benchdb"
	"github.com/sqlgym/sqlgym/catalog"
	"github.com/sqlgym/sqlgym/internal/atomicfile"
	"github.com/sqlgym/sqlgym/internal/cmd/cmdkit"
	"github.com/sqlgym/sqlgym/internal/proccpu"
	"github.com/sqlgym/sqlgym/sqltext"
	"github.com/sqlgym/sqlgym/verify"
	"github.com/sqlgym/sqlgym/verify/extract"
)

type benchVerifyOptions struct {
	DB      string
	Out     string
	Replace bool
	Size    string
	Seed    uint64
	Answers int
	Mode    string
	Repeat  int
	Load    int
	CFloor  bool
	Spider  string
	JSON    bool
}

func newBenchVerifyCmd(io cmdkit.IO) *cobra.Command {
	var opts benchVerifyOptions
	cmd := &cobra.Command{
		Use:   "verify",
		Short: "Time the verifier at BIRD scale against running each query once in C, and check it on a busy machine",
		Long: `Generate a BIRD-sized SQLite database (a retail schema of six tables,
10 MB by default; --size up to 1GB) and a GRPO batch of BIRD-shaped tasks
on it (--answers, 16 per task: the gold, rewrites, wrong and broken
answers, as a policy samples them), then verify the batch with the real
verifier, golds cached as in a training loop, and time it against the
floor: each distinct statement of the batch run once, reading every row,
in C SQLite and in the sandboxed engine in this process, in a plain C
program on the same amalgamation built as the shell is (one process per
CPU; --c-floor=false leaves it out) and in the sqlite3 shell when it is
on PATH. --spider DIR batches on Spider's world_1 instead. CPU is
getrusage's user plus system time (this process, or the children).

The passes are interleaved: each of --repeat rounds runs the verifier and
every floor once, in an order rotated by one each round, so that the
machine's speed changing between rounds moves both sides of a ratio.
The ratios are verifier/floor, one per round: the report gives their
median and an interval for it from order statistics (at least 95 %
coverage, or min..max with the coverage it has when there are fewer than
6 rounds). 1.0x means verifying costs no more than running the queries.

With --load N it then checks that a busy machine changes no verdict: it
verifies the batch again, with a fresh verifier, while N CPU-burning
processes per CPU run, and compares every answer's outcome and reward
with the idle run. It exits 1 on any difference, and on any null reward
(idle or loaded). The burners are killed when the run ends, on every
path, and die with this process.

The same seed gives the same file and the same batch. --out keeps the
generated file; --db reuses one.`,
		Example: `  sqlgym-bench verify
  sqlgym-bench verify --answers 128 --repeat 5 --json
  sqlgym-bench verify --size 100MB --out bench100.sqlite
  sqlgym-bench verify --db bench100.sqlite --load 3
  sqlgym-bench verify --spider ../shared/data/spider_dev`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runBenchVerify(cmd.Context(), io, opts) },
	}
	f := cmd.Flags()
	f.StringVar(&opts.DB, "db", "", "reuse a database written by --out instead of generating one")
	f.StringVar(&opts.Out, "out", "", "write the generated database to this file and keep it")
	f.StringVar(&opts.Size, "size", "10MB", "size of the generated database: 10MB, 100MB, 1GB (KB, MB, GB; at least 256KB)")
	f.Uint64Var(&opts.Seed, "seed", benchdb.DefaultSeed, "seed of the database and of the batch")
	f.IntVar(&opts.Answers, "answers", benchdb.MaxTasks*benchdb.Samples, fmt.Sprintf("answers in the batch: a multiple of %d, at most %d", benchdb.Samples, benchdb.MaxTasks*benchdb.Samples))
	f.StringVar(&opts.Mode, "mode", "multiset", "comparison mode: "+cmdkit.ModeNames())
	f.IntVar(&opts.Repeat, "repeat", 15, "rounds, each timing the verifier and every floor once, interleaved; ratios are medians of the rounds' ratios, with a 95% interval")
	f.IntVar(&opts.Load, "load", 0, "then verify again with this many CPU burners per CPU running, and compare (0: no check)")
	f.StringVar(&opts.Spider, "spider", "", "batch on Spider's world_1 instead: the path of Spider's dev folder (as verify's BenchmarkGRPOBatchSpider)")
	f.BoolVar(&opts.CFloor, "c-floor", true, "also time a plain C program on the same amalgamation (compiled with gcc on first use, about 45 s of CPU; cached)")
	f.BoolVar(&opts.JSON, "json", false, "print the report as JSON")
	cmdkit.AddReplaceFlag(cmd, &opts.Replace)
	return cmd
}

// maxBenchRepeat bounds --repeat; more than this only heats the machine.
const maxBenchRepeat = 100

func runBenchVerify(ctx context.Context, io cmdkit.IO, opts benchVerifyOptions) error {
	mode, err := cmdkit.ParseMode(opts.Mode)
	if err != nil {
		return err
	}
	size, err := parseSize(opts.Size)
	if err != nil {
		return err
	}
	if opts.Answers <= 0 || opts.Answers%benchdb.Samples != 0 || opts.Answers > benchdb.MaxTasks*benchdb.Samples {
		return cmdkit.Usagef("--answers %d: a multiple of %d between %d and %d", opts.Answers, benchdb.Samples, benchdb.Samples, benchdb.MaxTasks*benchdb.Samples)
	}
	if opts.Repeat < 1 || opts.Repeat > maxBenchRepeat {
		return cmdkit.Usagef("--repeat %d: between 1 and %d", opts.Repeat, maxBenchRepeat)
	}
	if opts.Load < 0 || opts.Load > 16 {
		return cmdkit.Usagef("--load %d: burners per CPU, between 0 and 16", opts.Load)
	}
	if opts.DB != "" && opts.Out != "" {
		return cmdkit.Usagef("give --db (reuse a file) or --out (keep the generated one), not both")
	}
	if opts.Spider != "" && (opts.DB != "" || opts.Out != "") {
		return cmdkit.Usagef("--spider brings its own database: give no --db or --out")
	}
	progress := io.ErrOut

	rep := &benchVerifyReport{Seed: opts.Seed, Mode: string(mode), CPUs: runtime.NumCPU(), Repeat: opts.Repeat}
	path, dbName := opts.DB, benchdb.DBName
	var batch benchdb.Batch
	if opts.Spider != "" {
		dbName = spiderDB
		if path, batch, err = spiderBatch(opts.Spider, opts.Answers/benchdb.Samples); err != nil {
			return err
		}
	} else if path == "" {
		path = opts.Out
		if path == "" {
			dir, err := os.MkdirTemp("", "sqlgym-bench-")
			if err != nil {
				return fmt.Errorf("bench verify: %w", err)
			}
			defer os.RemoveAll(dir)
			path = filepath.Join(dir, "bench.sqlite")
		} else if err := cmdkit.CheckOutput("--out", path, opts.Replace); err != nil {
			return err
		}
		fmt.Fprintf(progress, "generating a %s database (seed %d)...\n", opts.Size, opts.Seed)
		var st benchdb.Stats
		err := atomicfile.Build(path, func(tmp string) error {
			var err error
			st, err = benchdb.Generate(ctx, tmp, benchdb.Config{Seed: opts.Seed, Size: size})
			return err
		})
		if err != nil {
			return fmt.Errorf("bench verify: %w", err)
		}
		rep.Generated, rep.GenerateS, rep.Rows = true, st.Took.Seconds(), st.Rows
	} else if _, err := os.Stat(path); err != nil {
		return sqlgym.Userf("write one with: sqlgym-bench verify --out FILE", "--db %s: %w", path, err)
	}
	if fi, err := os.Stat(path); err == nil {
		rep.Bytes = fi.Size()
	}
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	rep.DB = path

	if opts.Spider == "" {
		if batch, err = benchdb.NewBatch(opts.Seed, opts.Answers/benchdb.Samples); err != nil {
			return fmt.Errorf("bench verify: %w", err)
		}
	}
	rep.Tasks, rep.Answers = len(batch.Tasks), len(batch.Answers)
	distinct := distinctStatements(batch.Answers, nil)
	rep.Distinct = len(distinct)
	// The floor runs what a warm verifier must: an answer that is a gold's
	// text is judged on the cached gold result.
	floor := distinctStatements(batch.Answers, batch.Tasks)
	rep.FloorStatements = len(floor)

	cat, err := catalog.New(catalog.Config{Refs: []string{dbName + "=sqlite:" + path}})
	if err != nil {
		return fmt.Errorf("bench verify: %w", err)
	}
	defer cat.Close()
	eng, err := cat.Engine(ctx, dbName)
	if err != nil {
		return sqlgym.Userf("--db takes a file written by sqlgym-bench verify --out FILE", "open %s: %w", path, err)
	}
	// Spider's file was checked by its import; a --db file is checked here.
	if _, err := eng.Query(ctx, "SELECT 1 FROM customers, products, orders, order_items, payments, reviews LIMIT 1", sqlgym.Limits{}); err != nil && opts.Spider == "" {
		return sqlgym.Userf("--db takes a file written by sqlgym-bench verify --out FILE", "%s is not a benchmark database: %w", path, err)
	}
	rep.LoadAvg = proccpu.LoadAverage()
	cfg := verify.Config{Mode: mode}
	counted := &countingDBs{Catalog: cat}

	// The idle verdicts: a fresh verifier's first batch, golds included.
	fmt.Fprintf(progress, "verifying %d answers (%d distinct statements) idle...\n", rep.Answers, rep.Distinct)
	v := verify.New(counted, batch.Tasks, cfg)
	t0 := time.Now()
	idle := v.VerifyBatch(ctx, batch.Answers)
	rep.ColdS = time.Since(t0).Seconds()
	rep.Idle = countVerdicts(idle)

	// Warm: golds cached, as in a training loop. Each round runs the
	// verifier and every floor once, starting one further along the list
	// each round, so that a change of the machine's speed (this VM's CPU
	// time swings by up to 1.6x between back-to-back runs, idle) lands on
	// both sides of a round's ratios.
	before := counted.n.Load()
	verifierPass := func() (floorRun, error) {
		cpu0, t0 := selfCPU(), time.Now()
		v.VerifyBatch(ctx, batch.Answers)
		return floorRun{Wall: time.Since(t0), CPU: selfCPU() - cpu0}, ctx.Err()
	}
	floors := floorRunners(ctx, progress, path, eng, v.Config().Concurrency, opts.CFloor)
	defer func() {
		for _, fl := range floors {
			fl.Close()
		}
	}()
	fmt.Fprintf(progress, "%d rounds of the verifier and %d floors, interleaved...\n", opts.Repeat, len(floors))
	rounds, err := interleave(opts.Repeat, verifierPass, floors, func(fl floorRunner) (floorRun, error) { return fl.Run(ctx, floor) })
	if err != nil {
		return fmt.Errorf("bench verify: %w", err)
	}
	rep.Statements = float64(counted.n.Load()-before) / float64(opts.Repeat)
	rep.Verifier = rounds.verifier
	rep.Floors = rounds.floors
	if opts.Load > 0 {
		busy, err := busyCheck(ctx, progress, cat, batch, cfg, idle, opts.Load, rep.ColdS)
		if err != nil {
			return fmt.Errorf("bench verify --load: %w", err)
		}
		rep.Busy = busy
	}

	if opts.JSON {
		if err := cmdkit.WriteJSON(io.Out, rep); err != nil {
			return err
		}
	} else {
		printBenchVerify(io.Out, rep)
	}
	return benchVerdictError(rep)
}

// benchVerdictError is the exit status: a null reward, or a verdict the
// load changed, fails the run.
func benchVerdictError(rep *benchVerifyReport) error {
	nulls := rep.Idle.NullRewards
	diffs := 0
	if b := rep.Busy; b != nil {
		nulls += b.Loaded.NullRewards
		diffs = len(b.Differences)
	}
	if nulls == 0 && diffs == 0 {
		return nil
	}
	return sqlgym.Userf("a verdict the load changes means a limit that depends on the wall clock; a null reward is an infrastructure failure (the safety net, a database error) or a gold past its limits; --json lists each answer's details",
		"%d null rewards and %d verdicts changed by the load", nulls, diffs)
}

// busyCheck verifies the batch with a fresh verifier (golds too) while
// perCPU x NumCPU burners run, and compares each verdict with idle's.
func busyCheck(ctx context.Context, progress goio.Writer, cat *catalog.Catalog, batch benchdb.Batch, cfg verify.Config, idle []verify.Result, perCPU int, idleS float64) (*busyReport, error) {
	n := perCPU * runtime.NumCPU()
	// The loaded run is bounded: burners outlive it by their --for at
	// most, and the run itself is stopped there.
	bound := min(max(30*time.Duration(idleS*float64(time.Second))+30*time.Second, time.Minute), 20*time.Minute)
	ctx, cancel := context.WithTimeout(ctx, bound)
	defer cancel()
	fmt.Fprintf(progress, "verifying again with %d CPU burners running (at most %s)...\n", n, bound.Round(time.Second))
	b, err := startBurners(ctx, n, bound)
	if err != nil {
		return nil, err
	}
	defer b.stop()
	// Let the burners get going before the clock starts.
	time.Sleep(200 * time.Millisecond)
	v := verify.New(cat, batch.Tasks, cfg)
	t0 := time.Now()
	loaded := v.VerifyBatch(ctx, batch.Answers)
	wall := time.Since(t0)
	rep := &busyReport{PerCPU: perCPU, Burners: n, BurnerPIDs: b.pids(), EarlyExits: b.earlyExits(), LoadAvg: proccpu.LoadAverage(),
		IdleWallS: idleS, LoadedWallS: wall.Seconds(), Loaded: countVerdicts(loaded), Differences: []verdictDiff{}}
	if err := b.stop(); err != nil {
		return nil, err
	}
	if err := ctx.Err(); errors.Is(err, context.DeadlineExceeded) {
		return nil, sqlgym.Userf("the machine is far busier than --load asks for, or the database is far larger than the batch was sized for; try a smaller --load or --size",
			"the loaded run did not finish within %s", bound.Round(time.Second))
	} else if err != nil {
		return nil, fmt.Errorf("interrupted: %w", err)
	}
	for i := range idle {
		a, l := idle[i], loaded[i]
		if a.Outcome != l.Outcome || !sameReward(a.Reward, l.Reward) {
			rep.Differences = append(rep.Differences, verdictDiff{TaskID: a.TaskID, Sample: a.Sample,
				IdleOutcome: a.Outcome, LoadedOutcome: l.Outcome, IdleReward: a.Reward, LoadedReward: l.Reward, LoadedDetail: l.Detail})
		}
	}
	return rep, nil
}

// floorRunners are the floors the verifier is timed against: C SQLite in
// this process on raw read-only connections (no sandbox, no Go values:
// "C SQLite running each distinct query once"), the sandboxed engine in
// this process (what the verifier itself runs on), with withC a plain C
// program on the same amalgamation built the way the shell is (one
// process per CPU), and the sqlite3 shell when it is installed. A C floor
// that cannot be built is reported as a failed floor.
func floorRunners(ctx context.Context, progress goio.Writer, path string, eng sqlgym.Engine, workers int, withC bool) []floorRunner {
	fs := []floorRunner{}
	if withC {
		if bin, err := cFloorBinary(ctx, progress); err != nil {
			fs = append(fs, failedFloor{name: "plain C program", err: err})
		} else {
			fs = append(fs, &cFloor{bin: bin, path: path, workers: runtime.NumCPU()})
		}
	}
	if raw, err := newRawFloor(path, workers); err == nil {
		fs = append(fs, raw)
	}
	fs = append(fs, &inProcessFloor{
		name:    "sandboxed engine, in process",
		workers: workers,
		query: func(ctx context.Context, q string) error {
			_, err := eng.Query(ctx, q, floorLimits)
			return err
		},
	})
	if cli, ok := newCLIFloor(path, runtime.NumCPU()); ok {
		fs = append(fs, cli)
	}
	return fs
}

// floorLimits let a floor's statement run to its end, as the sqlite3
// shell does: no step budget, no wall-clock limit to speak of. Where the
// verifier's own limits stop statements (a huge --size on a slow engine)
// the report warns about timeouts, and the ratios say little.
var floorLimits = sqlgym.Limits{VMSteps: -1, Timeout: time.Hour}

// distinctStatements is the batch's statements as the verifier runs
// them: extracted from completions, one per result key (sqltext.Key, as the verifier keys them), leaving out
// the text of any of golds' SQL.
func distinctStatements(answers []verify.Answer, golds []sqlgym.Task) []string {
	seen := map[string]bool{}
	for _, t := range golds {
		seen[sqltext.Key(sqlgym.DialectSQLite, t.SQL)] = true
	}
	var out []string
	for _, a := range answers {
		q := a.SQL
		if q == "" {
			ex := extract.FromCompletion(a.Completion, a.FinishReason)
			if ex.Status != extract.StatusOK {
				continue
			}
			q = ex.SQL
		}
		if k := sqltext.Key(sqlgym.DialectSQLite, q); !seen[k] {
			seen[k] = true
			out = append(out, q)
		}
	}
	return out
}

// parseSize reads 10MB, 100MB, 1GB, 512KB (binary units, case ignored).
func parseSize(s string) (int64, error) {
	t := strings.ToUpper(strings.TrimSpace(s))
	units := []struct {
		suffix string
		mult   int64
	}{{"KB", 1 << 10}, {"MB", 1 << 20}, {"GB", 1 << 30}}
	for _, u := range units {
		if num, ok := strings.CutSuffix(t, u.suffix); ok {
			n, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
			if err != nil || n <= 0 {
				break
			}
			size := int64(n * float64(u.mult))
			if size < benchdb.MinSize || size > benchdb.MaxSize {
				return 0, cmdkit.Usagef("--size %s: between 256KB and 1GB", s)
			}
			return size, nil
		}
	}
	return 0, cmdkit.Usagef("--size %q: a number and KB, MB or GB, e.g. 10MB, 100MB, 1GB", s)
}

// countingDBs counts the statements the verifier sends to the engine: a
// measure of its work that the machine's load cannot blur.
type countingDBs struct {
	*catalog.Catalog
	n atomic.Int64
}

func (c *countingDBs) EngineURL(ctx context.Context, url string) (sqlgym.Engine, error) {
	e, err := c.Catalog.EngineURL(ctx, url)
	if err != nil {
		return nil, err
	}
	return countingEngine{Engine: e, n: &c.n}, nil
}

type countingEngine struct {
	sqlgym.Engine
	n *atomic.Int64
}

func (e countingEngine) Query(ctx context.Context, q string, lim sqlgym.Limits) (*sqlgym.ResultSet, error) {
	e.n.Add(1)
	return e.Engine.Query(ctx, q, lim)
}
