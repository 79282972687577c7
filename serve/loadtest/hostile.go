package loadtest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"sort"
	"sync"
	"time"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/catalog"
	"github.com/sqlgym/sqlgym/internal/proccpu"
	"github.com/sqlgym/sqlgym/serve"
	"github.com/sqlgym/sqlgym/shopdb"
)

// HostileConfig is a load test of honest one-answer requests sent while
// hostile batches (a red team's slow answers) run on the same database.
type HostileConfig struct {
	// Addr targets a running server that serves the shop's tasks and the
	// HostileTasks; empty starts one in this process on 127.0.0.1.
	Addr string
	// DB is the shop's URL on the engine under test (sqlgym db create
	// shop); empty is the built-in SQLite shop. It is the in-process
	// server's shop, and picks the golds' dialect for the honest answers.
	DB string
	// Hostile is what each hostile request sends; HostileTasks are the
	// tasks it names that the shop's task set lacks (the red team's
	// tasks.jsonl).
	Hostile      []serve.Item
	HostileTasks []sqlgym.Task
	// Batches is how many hostile requests are sent at once (1).
	Batches int
	// Baseline is how many honest requests are timed alone first (20);
	// HonestEvery the pause between honest requests (200 ms).
	Baseline    int
	HonestEvery time.Duration
	// Server is the in-process server's settings (DBs and Tasks are set
	// by RunHostile).
	Server   serve.Config
	Progress io.Writer
}

// HostileReport is what a hostile load test measured.
type HostileReport struct {
	Target       string  `json:"target"`
	Dialect      string  `json:"dialect"`
	HostileItems int     `json:"hostile_items_per_request"`
	Batches      int     `json:"hostile_requests"`
	Alone        Latency `json:"honest_alone"`
	Honest       Latency `json:"honest_beside_hostile"`
	// HonestFailed counts honest requests without a 200; HonestUnlike
	// those whose outcome or reward differ from the same task's alone.
	HonestFailed int              `json:"honest_failed"`
	HonestUnlike int              `json:"honest_unlike_alone"`
	Hostile      Latency          `json:"hostile"`
	HostileRuns  []HostileRequest `json:"hostile_requests_detail"`
	CPUs         int              `json:"cpus"`
	LoadAvg      string           `json:"load_avg_at_start"`
	LoadAvgEnd   string           `json:"load_avg_at_end"`
}

// Latency summarises request latencies.
type Latency struct {
	Requests int     `json:"requests"`
	P50ms    float64 `json:"p50_ms"`
	P90ms    float64 `json:"p90_ms"`
	P99ms    float64 `json:"p99_ms"`
	MaxMs    float64 `json:"max_ms"`
}

// HostileRequest is one hostile request's answer.
type HostileRequest struct {
	Status   int            `json:"status"`
	Seconds  float64        `json:"seconds"`
	Outcomes map[string]int `json:"outcomes,omitempty"`
	Error    string         `json:"error,omitempty"`
}

func latency(ds []time.Duration) Latency {
	l := Latency{Requests: len(ds), P50ms: quantile(ds, 0.5), P90ms: quantile(ds, 0.9), P99ms: quantile(ds, 0.99)}
	for _, d := range ds {
		l.MaxMs = max(l.MaxMs, ms(d))
	}
	return l
}

// RunHostile times honest requests alone, then beside cfg.Batches
// hostile requests until they are all answered.
func RunHostile(ctx context.Context, cfg HostileConfig) (*HostileReport, error) {
	if len(cfg.Hostile) == 0 {
		return nil, errors.New("no hostile items: give a predictions file of slow answers (e.g. the red team's r6_sqlite_512.jsonl)")
	}
	cfg.Batches = max(cfg.Batches, 1)
	if cfg.Baseline <= 0 {
		cfg.Baseline = 20
	}
	if cfg.HonestEvery <= 0 {
		cfg.HonestEvery = 200 * time.Millisecond
	}
	if cfg.Progress == nil {
		cfg.Progress = io.Discard
	}
	shop, err := shopdb.Tasks()
	if err != nil {
		return nil, err
	}
	var honestTasks []sqlgym.Task
	for _, t := range shop {
		if t.Split != sqlgym.SplitHoldout {
			honestTasks = append(honestTasks, t)
		}
	}
	dialect := sqlgym.URLDialect("sqlite:")
	if cfg.DB != "" {
		dialect = sqlgym.URLDialect(cfg.DB)
	}
	url := "http://" + cfg.Addr
	if cfg.Addr == "" {
		var refs []string
		if cfg.DB != "" {
			refs = []string{catalog.ShopName + "=" + cfg.DB}
		}
		stop, addr, err := startServer(ctx, cfg.Server, refs, append(shop, cfg.HostileTasks...))
		if err != nil {
			return nil, err
		}
		defer stop()
		url = "http://" + addr
	}
	rep := &HostileReport{Target: url, Dialect: string(dialect), HostileItems: len(cfg.Hostile), Batches: cfg.Batches,
		CPUs: runtime.NumCPU(), LoadAvg: proccpu.LoadAverage()}
	cl := &http.Client{Timeout: 15 * time.Minute}

	// Each honest request is one answer: its task's gold behind a marker
	// that makes the statement new to the server (so it runs, and is not
	// judged on the gold's cached rows) without changing its rows.
	seq := 0
	honest := func() (serve.Item, string) {
		t := honestTasks[seq%len(honestTasks)]
		seq++
		sql := mark(t.GoldFor(dialect), fmt.Sprintf("sg_h%d", seq))
		return serve.Item{TaskID: t.ID, SQL: &sql}, t.ID
	}
	type verdict struct {
		o sqlgym.Outcome
		r string
	}
	alone := map[string]verdict{}
	var base []time.Duration
	for i := 0; i < cfg.Baseline+len(honestTasks) && ctx.Err() == nil; i++ {
		it, id := honest()
		d, res, err := send(ctx, cl, url, []serve.Item{it})
		if err != nil {
			return nil, fmt.Errorf("honest request alone (task %s): %w", id, err)
		}
		alone[id] = verdict{res[0].Outcome, rewardText(res[0].Reward)}
		if i >= len(honestTasks) { // the first round warms the golds
			base = append(base, d)
		}
	}
	rep.Alone = latency(base)
	fmt.Fprintf(cfg.Progress, "honest alone: p50 %.1f ms, p99 %.1f ms\n", rep.Alone.P50ms, rep.Alone.P99ms)

	var wg sync.WaitGroup
	runs := make([]HostileRequest, cfg.Batches)
	var hostileTook []time.Duration
	var mu sync.Mutex
	for b := 0; b < cfg.Batches; b++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d, hr := sendHostile(ctx, cl, url, cfg.Hostile)
			mu.Lock()
			runs[b] = hr
			hostileTook = append(hostileTook, d)
			mu.Unlock()
			fmt.Fprintf(cfg.Progress, "hostile request %d: %d after %.1f s %v\n", b, hr.Status, hr.Seconds, hr.Outcomes)
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	// Let the hostile batches take their slots before the first honest
	// request.
	select {
	case <-time.After(time.Second):
	case <-done:
	}
	var beside []time.Duration
	for running := true; running && ctx.Err() == nil; {
		it, id := honest()
		d, res, err := send(ctx, cl, url, []serve.Item{it})
		switch {
		case err != nil:
			rep.HonestFailed++
			fmt.Fprintf(cfg.Progress, "honest request (task %s) failed after %.1f s: %v\n", id, ms(d)/1000, err)
		case alone[id] != verdict{res[0].Outcome, rewardText(res[0].Reward)}:
			rep.HonestUnlike++
			fmt.Fprintf(cfg.Progress, "honest request (task %s): %s, reward %s; alone %v\n", id, res[0].Outcome, rewardText(res[0].Reward), alone[id])
		}
		if err == nil {
			beside = append(beside, d)
		}
		select {
		case <-done:
			running = false
		case <-time.After(cfg.HonestEvery):
		}
	}
	wg.Wait()
	rep.Honest, rep.Hostile, rep.HostileRuns = latency(beside), latency(hostileTook), runs
	rep.LoadAvgEnd = proccpu.LoadAverage()
	return rep, ctx.Err()
}

func rewardText(r *float64) string {
	if r == nil {
		return "null"
	}
	return fmt.Sprint(*r)
}

// sendHostile sends one hostile request; any answer, a 503 included, is
// a result to report.
func sendHostile(ctx context.Context, cl *http.Client, url string, items []serve.Item) (time.Duration, HostileRequest) {
	start := time.Now()
	d, res, err := post(ctx, cl, url, items)
	hr := HostileRequest{Status: http.StatusOK, Seconds: time.Since(start).Seconds()}
	var se *statusError
	switch {
	case errors.As(err, &se):
		hr.Status, hr.Error = se.code, se.body
		return time.Since(start), hr
	case err != nil:
		hr.Status, hr.Error = 0, err.Error()
		return time.Since(start), hr
	}
	hr.Outcomes = map[string]int{}
	for _, r := range res {
		hr.Outcomes[string(r.Outcome)]++
	}
	return d, hr
}

// OutcomeList lists a hostile request's outcome counts in name order.
func (h HostileRequest) OutcomeList() string {
	names := make([]string, 0, len(h.Outcomes))
	for n := range h.Outcomes {
		names = append(names, n)
	}
	sort.Strings(names)
	s := ""
	for i, n := range names {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprintf("%s %d", n, h.Outcomes[n])
	}
	return s
}
