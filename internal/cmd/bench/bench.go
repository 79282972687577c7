package bench

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/internal/cmd/cmdkit"
	"github.com/sqlgym/sqlgym/serve"
	"github.com/sqlgym/sqlgym/serve/loadtest"
	"github.com/sqlgym/sqlgym/verify"
)

func newBenchCmd(io cmdkit.IO) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "bench",
		Short: "Measure sqlgym's own speed",
		Args:  cobra.NoArgs,
		Example: `  sqlgym-bench serve
  sqlgym-bench verify --help`,
	}
	cmd.AddCommand(newBenchServeCmd(io), newBenchVerifyCmd(io), newBenchBurnCmd(io), newBenchClusterCmd(io), newBenchVariantsCostCmd(io), newBenchBoundsCmd(io))
	return cmd
}

type benchServeOptions struct {
	Addr     string
	Cold     int
	Warm     int
	Duration time.Duration
	Tasks    int
	Samples  int
	DBSlots  int
	CacheEnt int
	CacheMB  int
	JSON     bool
	// The hostile mix (bench_hostile.go).
	Hostile        string
	HostileTasks   string
	DB             string
	HostileBatches int
	HonestEvery    time.Duration
	Deadline       time.Duration
	SafetyNet      time.Duration
}

func newBenchServeCmd(io cmdkit.IO) *cobra.Command {
	var opts benchServeOptions
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Load-test the reward server with GRPO-sized batches on loopback",
		Long: `Load-test the reward server on loopback with the batches a GRPO trainer sends:
--tasks questions x --samples answers (32 x 16 = 512) from the built-in shop
task set, with the duplicates sampling produces (the gold most often, some
respellings, wrong and broken queries, a few truncated replies).

It starts the server in this process on 127.0.0.1 (or targets --addr, a
'sqlgym serve --tasks shop'), warms the golds, then times --cold batches
whose statements the server has never seen and --warm batches of repeated
completions, and reports p50/p99 latency per batch and rewards per second.
With --duration it then soaks the server (one cold batch for three warm
ones) and samples its memory (RSS and Go heap, from /metrics) every 10 s.
Goals on a 2-core machine: cold p99 <= 250 ms, >= 5,000 rewards/s warm,
memory flat over a 5-minute soak.

With --hostile FILE (predictions JSONL of slow answers, such as the red
team's r6_sqlite_512.jsonl) it measures fair service instead: honest
one-answer requests (a shop task's gold, new to the server each time) are
timed alone, then while --hostile-batches requests of every answer in FILE
run on the same database, until those are answered. It reports the honest
requests' latency percentiles beside the hostile ones' and each hostile
request's outcomes (judged, and unscored at its --deadline). --db names the
shop on the engine under test (sqlgym db create shop --engine ...);
--hostile-tasks the tasks FILE names that the shop lacks. Goal: honest p99
within 2 s of its latency alone.`,
		Example: `  sqlgym-bench serve
  sqlgym-bench serve --hostile r6_duckdb_512.jsonl --hostile-tasks tasks.jsonl --db duckdb:shop.duckdb
  sqlgym-bench serve --duration 5m --json
  sqlgym-bench serve --addr 127.0.0.1:8421 --cold 100`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runBenchServe(cmd.Context(), io, opts) },
	}
	f := cmd.Flags()
	f.StringVar(&opts.Addr, "addr", "", "target a running server (sqlgym serve --tasks shop) instead of one in process")
	f.IntVar(&opts.Cold, "cold", 40, "cold batches to time (statements new to the server)")
	f.IntVar(&opts.Warm, "warm", 40, "warm batches to time (repeated completions)")
	f.DurationVar(&opts.Duration, "duration", 0, "soak for this long after the timed batches (0: no soak; at most 1h)")
	f.IntVar(&opts.Tasks, "tasks", 32, "questions per batch")
	f.IntVar(&opts.Samples, "samples", 16, "answers per question")
	f.IntVar(&opts.DBSlots, "db-slots", serve.DefaultDBSlots, "in-process server: statements at once per database, shared by requests")
	f.IntVar(&opts.CacheEnt, "cache-entries", serve.DefaultCacheEntries, "in-process server: candidate results kept across requests")
	f.IntVar(&opts.CacheMB, "cache-mb", serve.DefaultCacheBytes>>20, "in-process server: megabytes of candidate rows kept")
	f.BoolVar(&opts.JSON, "json", false, "print the report as JSON")
	f.StringVar(&opts.Hostile, "hostile", "", "predictions JSONL of slow answers: measure honest requests beside hostile batches of them")
	f.StringVar(&opts.HostileTasks, "hostile-tasks", "", "with --hostile: task JSONL of the tasks FILE names that the shop lacks")
	f.StringVar(&opts.DB, "db", "", "with --hostile: the shop on the engine under test (sqlite:PATH, duckdb:PATH, postgres://...; default the built-in SQLite shop)")
	f.IntVar(&opts.HostileBatches, "hostile-batches", 1, "with --hostile: hostile requests at once")
	f.DurationVar(&opts.HonestEvery, "honest-every", 200*time.Millisecond, "with --hostile: pause between honest requests")
	f.DurationVar(&opts.Deadline, "deadline", serve.DefaultDeadline, "in-process server: a request's deadline")
	f.DurationVar(&opts.SafetyNet, "safety-net", 0, "in-process server: SQLite's wall-clock safety net (0: the default)")
	return cmd
}

func runBenchServe(ctx context.Context, io cmdkit.IO, opts benchServeOptions) error {
	if opts.Duration < 0 || opts.Duration > time.Hour {
		return cmdkit.Usagef("--duration %s: between 0 and 1h", opts.Duration)
	}
	if opts.Cold > 10000 || opts.Warm > 10000 || opts.Tasks*opts.Samples > serve.DefaultMaxItems {
		return cmdkit.Usagef("keep --cold and --warm at most 10000 and --tasks x --samples at most %d", serve.DefaultMaxItems)
	}
	if opts.Hostile != "" {
		return runBenchHostile(ctx, io, opts)
	}
	// The whole test is bounded in time whatever the server does.
	ctx, cancel := context.WithTimeout(ctx, opts.Duration+15*time.Minute)
	defer cancel()
	cfg := loadtest.Config{Addr: opts.Addr, Tasks: opts.Tasks, Samples: opts.Samples, Cold: opts.Cold, Warm: opts.Warm,
		Soak: opts.Duration, Server: opts.server(), Progress: io.ErrOut}
	rep, err := loadtest.Run(ctx, cfg)
	if err != nil {
		return fmt.Errorf("bench serve: %w", err)
	}
	if opts.JSON {
		return cmdkit.WriteJSON(io.Out, rep)
	}
	w := io.Out
	fmt.Fprintf(w, "target %s, %d answers per batch, %d CPUs, load average %s -> %s\n", rep.Target, rep.BatchSize, rep.CPUs, rep.LoadAvg, rep.LoadAvgEnd)
	fmt.Fprintf(w, "cold (%d batches, %.0f distinct statements each): p50 %.1f ms, p99 %.1f ms, max %.1f ms, %.0f rewards/s  [goal p99 <= 250 ms]\n",
		rep.Cold.Batches, rep.DistinctCold, rep.Cold.P50ms, rep.Cold.P99ms, rep.Cold.MaxMs, rep.Cold.RewardsPerSec)
	fmt.Fprintf(w, "warm (%d batches, repeated completions): p50 %.1f ms, p99 %.1f ms, %.0f rewards/s  [goal >= 5000/s]\n",
		rep.Warm.Batches, rep.Warm.P50ms, rep.Warm.P99ms, rep.Warm.RewardsPerSec)
	if s := rep.Soak; s != nil {
		fmt.Fprintf(w, "soak %s: %d batches, %d rewards, p99 %.1f ms; RSS %.1f -> %.1f MB (max %.1f), heap %.1f -> %.1f MB (max %.1f), cache %.0f entries\n",
			s.Duration, s.Batches, s.Rewards, s.P99ms, s.FirstRSS, s.LastRSS, s.MaxRSS, s.FirstHeap, s.LastHeap, s.MaxHeap, s.CacheEnd)
	}
	return nil
}

// server is the in-process server's settings.
func (o benchServeOptions) server() serve.Config {
	return serve.Config{DBSlots: o.DBSlots, CacheEntries: o.CacheEnt, CacheBytes: int64(o.CacheMB) << 20, Deadline: o.Deadline,
		Verify: verify.Config{Limits: sqlgym.Limits{SafetyNet: o.SafetyNet}}}
}
