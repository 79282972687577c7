package bench

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"time"

	"github.com/spf13/cobra"

	"github.com/sqlgym/sqlgym/internal/cmd/cmdkit"
	"github.com/sqlgym/sqlgym/serve/loadtest"
)

type benchClusterOptions struct {
	Replicas int
	HAProxy  bool
	Duration time.Duration
	Episodes int
	Senders  int
	Tasks    int
	Samples  int
	JSON     bool
	Sqlgym   string // the binary the replicas run
}

func newBenchClusterCmd(io cmdkit.IO) *cobra.Command {
	var opts benchClusterOptions
	cmd := &cobra.Command{
		Use:   "cluster",
		Short: "Load-test several 'sqlgym serve' replicas behind HAProxy on loopback",
		Long: `Start --replicas 'sqlgym serve --tasks shop' processes of the sqlgym binary
(--sqlgym: by default the one beside sqlgym-bench, else on PATH) on loopback,
put HAProxy in front (--haproxy; Debian's package, the configuration
docs/deploy.md shows: least connections for batches, episode steps routed by
the replica prefix of the episode id), and for --duration send --tasks x
--samples answer batches from --senders senders while --episodes episodes
are open at once (open, run_sql, submit).

Every answer is checked: no request may fail, every episode step must be
answered by the replica that opened the episode (its X-Sqlgym-Replica
header), and every reward must equal the one a single reference server in
this process gives for the same batch or submission. Exits 1 when a check
fails. Prints throughput: rewards per second and episode requests per second.`,
		Example: `  sqlgym-bench cluster --replicas 3 --haproxy --duration 60s
  sqlgym-bench cluster --replicas 1 --haproxy --duration 60s --json
  sqlgym-bench cluster --replicas 3 --haproxy --duration 10s --episodes 50`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runBenchCluster(cmd.Context(), io, opts) },
	}
	f := cmd.Flags()
	f.IntVar(&opts.Replicas, "replicas", 3, "sqlgym serve processes")
	f.BoolVar(&opts.HAProxy, "haproxy", false, "put HAProxy in front (needed for more than one replica)")
	f.DurationVar(&opts.Duration, "duration", time.Minute, "how long the load runs (at most 1h)")
	f.IntVar(&opts.Episodes, "episodes", 200, "episodes open at once")
	f.IntVar(&opts.Senders, "senders", 2, "batch senders at once")
	f.IntVar(&opts.Tasks, "tasks", 32, "questions per batch")
	f.IntVar(&opts.Samples, "samples", 16, "answers per question")
	f.BoolVar(&opts.JSON, "json", false, "print the report as JSON")
	f.StringVar(&opts.Sqlgym, "sqlgym", "", "the sqlgym binary the replicas run (default: sqlgym beside this binary, else on PATH)")
	return cmd
}

func runBenchCluster(ctx context.Context, io cmdkit.IO, opts benchClusterOptions) error {
	if opts.Duration <= 0 || opts.Duration > time.Hour || opts.Replicas < 1 || opts.Replicas > 16 || opts.Episodes < 1 || opts.Senders < 1 {
		return cmdkit.Usagef("--duration between 0 and 1h, --replicas 1 to 16, --episodes and --senders 1 or more")
	}
	if !opts.HAProxy && opts.Replicas != 1 {
		return cmdkit.Usagef("--replicas %d needs a balancer in front: add --haproxy (or use --replicas 1)", opts.Replicas)
	}
	bin, err := sqlgymBinary(opts.Sqlgym)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, opts.Duration+10*time.Minute)
	defer cancel()
	rep, err := loadtest.RunCluster(ctx, loadtest.ClusterConfig{Binary: bin, Replicas: opts.Replicas, HAProxy: opts.HAProxy,
		Duration: opts.Duration, Episodes: opts.Episodes, Senders: opts.Senders, Tasks: opts.Tasks, Samples: opts.Samples, Progress: io.ErrOut})
	if rep == nil {
		return fmt.Errorf("bench cluster: %w", err)
	}
	if opts.JSON {
		if werr := cmdkit.WriteJSON(io.Out, rep); werr != nil {
			return werr
		}
	} else {
		w := io.Out
		fmt.Fprintf(w, "%d replicas%s, %d CPUs, %.0f s, load average at end %s\n", rep.Replicas, map[bool]string{true: " behind HAProxy"}[rep.HAProxy], rep.CPUs, rep.DurationSec, rep.LoadAvg)
		fmt.Fprintf(w, "batches of %d: %d batches, %d rewards, %.0f rewards/s, p50 %.1f ms, p99 %.1f ms\n", rep.BatchSize, rep.Batches, rep.Rewards, rep.RewardsPerSec, rep.BatchP50ms, rep.BatchP99ms)
		fmt.Fprintf(w, "episodes: %d done, %d requests, %.0f requests/s, p99 %.1f ms; per replica:", rep.Episodes, rep.Steps, rep.StepsPerSec, rep.StepP99ms)
		ids := make([]string, 0, len(rep.PerReplica))
		for id := range rep.PerReplica {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		for _, id := range ids {
			fmt.Fprintf(w, " %s %d", id, rep.PerReplica[id])
		}
		fmt.Fprintf(w, "\nchecks: %d failed requests, %d misrouted steps, %d rewards unlike the reference\n", rep.Failed, rep.Misrouted, rep.Mismatched)
		for _, p := range rep.Problems {
			fmt.Fprintln(w, "  "+p)
		}
	}
	if err != nil {
		return fmt.Errorf("bench cluster: %w", err)
	}
	return nil
}

// sqlgymBinary is the sqlgym program the replicas run: flag, else the
// sqlgym beside this binary (how .ci/run builds them), else sqlgym on PATH.
// sqlgym-bench has no serve command of its own: the replicas are the
// user's binary, as they are in production.
func sqlgymBinary(flag string) (string, error) {
	if flag != "" {
		return flag, nil
	}
	if self, err := os.Executable(); err == nil {
		beside := filepath.Join(filepath.Dir(self), "sqlgym")
		if st, err := os.Stat(beside); err == nil && !st.IsDir() {
			return beside, nil
		}
	}
	if p, err := exec.LookPath("sqlgym"); err == nil {
		return p, nil
	}
	return "", cmdkit.Usagef("cluster: no sqlgym binary beside sqlgym-bench nor on PATH to run replicas of: build one (go build -o DIR ./cmd/sqlgym) and pass --sqlgym DIR/sqlgym")
}
