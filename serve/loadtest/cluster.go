package loadtest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/internal/proccpu"
	"github.com/sqlgym/sqlgym/serve"
	"github.com/sqlgym/sqlgym/shopdb"
)

// ClusterConfig is `sqlgym-bench cluster`: real `sqlgym serve` processes
// behind HAProxy on loopback, trainer batches and concurrent episodes
// for a while, every answer checked against one reference server.
type ClusterConfig struct {
	// Binary is the sqlgym executable the replicas run.
	Binary string
	// Replicas is how many `sqlgym serve` processes run (3).
	Replicas int
	// HAProxy puts them behind HAProxy; without it there must be one
	// replica, which the load reaches directly.
	HAProxy bool
	// Duration is how long the load runs (60 s).
	Duration time.Duration
	// Episodes is how many episodes are open at once (200); Senders how
	// many batch senders run at once (2), each sending Tasks x Samples
	// answers per batch (32 x 16 = 512).
	Episodes, Senders, Tasks, Samples int
	Progress                          io.Writer
}

// ClusterReport is what a cluster run measured and checked.
type ClusterReport struct {
	Replicas      int     `json:"replicas"`
	HAProxy       bool    `json:"haproxy"`
	CPUs          int     `json:"cpus"`
	DurationSec   float64 `json:"duration_s"`
	BatchSize     int     `json:"batch_size"`
	Batches       int64   `json:"batches"`
	Rewards       int64   `json:"rewards"`
	RewardsPerSec float64 `json:"rewards_per_sec"`
	BatchP50ms    float64 `json:"batch_p50_ms"`
	BatchP99ms    float64 `json:"batch_p99_ms"`
	Episodes      int64   `json:"episodes"`
	Steps         int64   `json:"episode_requests"`
	StepsPerSec   float64 `json:"episode_requests_per_sec"`
	StepP99ms     float64 `json:"episode_request_p99_ms"`
	// PerReplica counts the episodes each replica opened.
	PerReplica map[string]int64 `json:"episodes_per_replica"`
	// The checks: all must be zero.
	Failed     int64    `json:"failed_requests"`
	Misrouted  int64    `json:"misrouted_steps"`
	Mismatched int64    `json:"rewards_not_the_reference"`
	Problems   []string `json:"problems,omitempty"`
	LoadAvg    string   `json:"load_avg_at_end"`
}

func (c ClusterConfig) withDefaults() ClusterConfig {
	orDefault(&c.Replicas, 3)
	orDefault(&c.Duration, time.Minute)
	orDefault(&c.Episodes, 200)
	orDefault(&c.Senders, 2)
	orDefault(&c.Tasks, 32)
	orDefault(&c.Samples, 16)
	if c.Progress == nil {
		c.Progress = io.Discard
	}
	return c
}

// orDefault sets a zero or negative setting to its default.
func orDefault[T int | time.Duration](v *T, d T) {
	if *v <= 0 {
		*v = d
	}
}

// RunCluster runs the cluster load test. It returns the report and an
// error when any check failed.
func RunCluster(ctx context.Context, cfg ClusterConfig) (*ClusterReport, error) {
	cfg = cfg.withDefaults()
	if !cfg.HAProxy && cfg.Replicas != 1 {
		return nil, errors.New("several replicas need a balancer in front: add --haproxy, or use --replicas 1")
	}
	all, err := shopdb.Tasks()
	if err != nil {
		return nil, err
	}
	var tasks []sqlgym.Task
	for _, t := range all {
		if t.Split != sqlgym.SplitHoldout {
			tasks = append(tasks, t)
		}
	}
	dir, err := os.MkdirTemp("", "sqlgym-cluster-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)

	// The reference: one server in this process scores every batch and
	// every episode submission first; the cluster must give the same.
	stopRef, refAddr, err := startServer(ctx, serve.Config{}, nil, all)
	if err != nil {
		return nil, fmt.Errorf("reference server: %w", err)
	}
	defer stopRef()
	cl := &http.Client{Timeout: 5 * time.Minute, Transport: &http.Transport{MaxIdleConnsPerHost: 1024, IdleConnTimeout: 20 * time.Second}}
	w, err := newWorkload(ctx, cl, "http://"+refAddr, tasks, cfg)
	if err != nil {
		return nil, fmt.Errorf("reference results: %w", err)
	}
	fmt.Fprintf(cfg.Progress, "reference: %d batches of %d answers, %d episode submissions scored by one server\n", len(w.batches), cfg.Tasks*cfg.Samples, len(w.submitRef))

	// A deep queue: the checks are about routing and equality, so the
	// replicas must not turn load away with 429 (which a trainer retries).
	reps, err := startReplicas(ctx, cfg.Binary, dir, cfg.Replicas, []string{"--queue", "4096", "--max-episodes", "8192"})
	if err != nil {
		return nil, err
	}
	defer stopReplicas(reps)
	target := "http://" + reps[0].Addr
	if cfg.HAProxy {
		bind, err := freeAddr()
		if err != nil {
			return nil, err
		}
		var backends []Backend
		for _, r := range reps {
			backends = append(backends, r.Backend)
		}
		stop, err := startHAProxy(ctx, dir, bind, backends)
		if err != nil {
			return nil, err
		}
		defer stop()
		target = "http://" + bind
	}
	fmt.Fprintf(cfg.Progress, "%d replicas ready, load on %s for %s: %d batch senders, %d concurrent episodes\n", len(reps), target, cfg.Duration, cfg.Senders, cfg.Episodes)

	rep := w.drive(ctx, cl, target)
	rep.Replicas, rep.HAProxy, rep.CPUs, rep.LoadAvg = cfg.Replicas, cfg.HAProxy, runtime.NumCPU(), proccpu.LoadAverage()
	if rep.Failed+rep.Misrouted+rep.Mismatched > 0 || rep.Batches == 0 || rep.Episodes == 0 {
		return rep, fmt.Errorf("cluster checks failed: %d failed requests, %d misrouted steps, %d rewards unlike the reference, %d batches and %d episodes done",
			rep.Failed, rep.Misrouted, rep.Mismatched, rep.Batches, rep.Episodes)
	}
	return rep, nil
}

func freeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

// workload is the fixed batches and episode plans with their reference
// results.
type workload struct {
	cfg       ClusterConfig
	tasks     []sqlgym.Task
	batches   [][]serve.Item
	batchRef  [][]serve.Result
	submitRef map[[2]string]serve.Result // task id, submitted SQL

	mu       sync.Mutex
	problems []string
}

func newWorkload(ctx context.Context, cl *http.Client, ref string, tasks []sqlgym.Task, cfg ClusterConfig) (*workload, error) {
	w := &workload{cfg: cfg, tasks: tasks, submitRef: map[[2]string]serve.Result{}}
	rng := rand.New(rand.NewPCG(17, 19))
	for i := range 8 {
		// Marked: each batch is cold on every replica the first time.
		items := batch(rng, tasks, i*cfg.Tasks, cfg.Tasks, cfg.Samples, fmt.Sprintf("sg_c%d", i))
		_, res, err := send(ctx, cl, ref, items)
		if err != nil {
			return nil, err
		}
		w.batches, w.batchRef = append(w.batches, items), append(w.batchRef, res)
	}
	var items []serve.Item
	for _, t := range tasks {
		for _, sql := range submissions(t) {
			items = append(items, serve.Item{TaskID: t.ID, SQL: &sql})
		}
	}
	_, res, err := send(ctx, cl, ref, items)
	if err != nil {
		return nil, err
	}
	for i, it := range items {
		w.submitRef[[2]string{it.TaskID, *it.SQL}] = res[i]
	}
	return w, nil
}

// submissions are what an episode submits: right, wrong and broken.
func submissions(t sqlgym.Task) []string {
	return []string{t.SQL, "SELECT count(*) FROM (" + t.SQL + ") AS sub", "SELECT * FROM no_such_table"}
}

func (w *workload) problem(format string, args ...any) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.problems) < 10 {
		w.problems = append(w.problems, fmt.Sprintf(format, args...))
	}
}

func sameResult(a, b serve.Result) bool {
	if (a.Reward == nil) != (b.Reward == nil) || a.Reward != nil && *a.Reward != *b.Reward {
		return false
	}
	return a.Outcome == b.Outcome && a.SQL == b.SQL
}

// drive runs the senders and the episode workers until the duration ends.
func (w *workload) drive(ctx context.Context, cl *http.Client, target string) *ClusterReport {
	ctx, cancel := context.WithTimeout(ctx, w.cfg.Duration)
	defer cancel()
	var (
		rep               = &ClusterReport{BatchSize: w.cfg.Tasks * w.cfg.Samples, PerReplica: map[string]int64{}}
		batches, rewards  atomic.Int64
		episodes, steps   atomic.Int64
		failed, misrouted atomic.Int64
		mismatched        atomic.Int64
		latMu             sync.Mutex
		batchLat, stepLat []time.Duration
		perReplica        sync.Map
		wg                sync.WaitGroup
	)
	start := time.Now()
	for s := range w.cfg.Senders {
		wg.Go(func() {
			for i := s; ctx.Err() == nil; i += w.cfg.Senders {
				k := i % len(w.batches)
				d, res, err := send(ctx, cl, target, w.batches[k])
				if ctx.Err() != nil {
					return
				}
				if err != nil {
					failed.Add(1)
					w.problem("batch %d: %v", k, err)
					continue
				}
				for j := range res {
					if !sameResult(res[j], w.batchRef[k][j]) {
						mismatched.Add(1)
						w.problem("batch %d item %d: %s %v, reference %s %v", k, j, res[j].Outcome, res[j].Reward, w.batchRef[k][j].Outcome, w.batchRef[k][j].Reward)
					}
				}
				batches.Add(1)
				rewards.Add(int64(len(res)))
				latMu.Lock()
				batchLat = append(batchLat, d)
				latMu.Unlock()
			}
		})
	}
	for e := range w.cfg.Episodes {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(e), 23))
			for ctx.Err() == nil {
				t := w.tasks[rng.IntN(len(w.tasks))]
				subs := submissions(t)
				sql := subs[rng.IntN(len(subs))]
				r := w.episode(ctx, cl, target, t, sql)
				if ctx.Err() != nil && r.err != nil {
					return // cut by the end of the run, not a failure
				}
				steps.Add(int64(r.requests))
				latMu.Lock()
				stepLat = append(stepLat, r.lat...)
				latMu.Unlock()
				switch {
				case r.misrouted:
					misrouted.Add(1)
				case r.err != nil:
					failed.Add(1)
					w.problem("episode of %s: %v", t.ID, r.err)
				case !sameResult(r.res, w.submitRef[[2]string{t.ID, sql}]):
					mismatched.Add(1)
					ref := w.submitRef[[2]string{t.ID, sql}]
					w.problem("episode of %s submitting %q: %s %v, reference %s %v", t.ID, sql, r.res.Outcome, r.res.Reward, ref.Outcome, ref.Reward)
				default:
					episodes.Add(1)
					n, _ := perReplica.LoadOrStore(r.replica, new(atomic.Int64))
					n.(*atomic.Int64).Add(1)
				}
			}
		})
	}
	wg.Wait()
	el := time.Since(start).Seconds()
	rep.DurationSec = el
	rep.Batches, rep.Rewards, rep.Episodes, rep.Steps = batches.Load(), rewards.Load(), episodes.Load(), steps.Load()
	rep.Failed, rep.Misrouted, rep.Mismatched = failed.Load(), misrouted.Load(), mismatched.Load()
	rep.RewardsPerSec, rep.StepsPerSec = float64(rep.Rewards)/el, float64(rep.Steps)/el
	rep.BatchP50ms, rep.BatchP99ms, rep.StepP99ms = quantile(batchLat, 0.5), quantile(batchLat, 0.99), quantile(stepLat, 0.99)
	perReplica.Range(func(k, v any) bool {
		rep.PerReplica[k.(string)] = v.(*atomic.Int64).Load()
		return true
	})
	rep.Problems = slices.Clone(w.problems)
	return rep
}
