package loadtest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/catalog"
	"github.com/sqlgym/sqlgym/internal/proccpu"
	"github.com/sqlgym/sqlgym/serve"
	"github.com/sqlgym/sqlgym/shopdb"
)

// Config bounds a load test. Zero fields take the defaults.
type Config struct {
	// Addr targets a running server (which must serve the built-in shop
	// tasks); empty starts one in this process on 127.0.0.1.
	Addr string
	// Tasks and Samples shape a batch (32 x 16).
	Tasks, Samples int
	// Cold and Warm are how many batches of each kind are timed.
	Cold, Warm int
	// Soak, when positive, keeps sending batches (one cold for every
	// SoakWarmPerCold warm ones) for that long, sampling the server's
	// memory every SoakEvery.
	Soak            time.Duration
	SoakWarmPerCold int
	SoakEvery       time.Duration
	// Server is the in-process server's settings (DBs and Tasks are set
	// by Run).
	Server serve.Config
	// Progress, when set, gets a line now and then.
	Progress io.Writer
}

// Report is what a load test measured.
type Report struct {
	Target       string  `json:"target"`
	BatchSize    int     `json:"batch_size"`
	DistinctCold float64 `json:"distinct_statements_per_cold_batch"`
	Cold         Timing  `json:"cold"`
	Warm         Timing  `json:"warm"`
	Soak         *Soak   `json:"soak,omitempty"`
	CPUs         int     `json:"cpus"`
	LoadAvg      string  `json:"load_avg_at_start"`
	LoadAvgEnd   string  `json:"load_avg_at_end"`
}

// Timing summarises the latency of timed batches.
type Timing struct {
	Batches        int     `json:"batches"`
	P50ms          float64 `json:"p50_ms"`
	P99ms          float64 `json:"p99_ms"`
	MaxMs          float64 `json:"max_ms"`
	RewardsPerSec  float64 `json:"rewards_per_sec"`
	OutcomeCorrect float64 `json:"share_correct"`
}

// Soak is the server's memory over a long run.
type Soak struct {
	Duration  string         `json:"duration"`
	Batches   int            `json:"batches"`
	Rewards   int            `json:"rewards"`
	Samples   []MemorySample `json:"samples"`
	FirstRSS  float64        `json:"rss_mb_first"`
	LastRSS   float64        `json:"rss_mb_last"`
	MaxRSS    float64        `json:"rss_mb_max"`
	FirstHeap float64        `json:"heap_mb_first"`
	LastHeap  float64        `json:"heap_mb_last"`
	MaxHeap   float64        `json:"heap_mb_max"`
	CacheEnd  float64        `json:"cache_entries_end"`
	P99ms     float64        `json:"p99_ms"`
}

// MemorySample is the server's memory at one moment, from its /metrics.
type MemorySample struct {
	AtSec        float64 `json:"at_s"`
	RSSMB        float64 `json:"rss_mb"`
	HeapMB       float64 `json:"heap_mb"`
	CacheEntries float64 `json:"cache_entries"`
}

func (c Config) withDefaults() Config {
	if c.Tasks <= 0 {
		c.Tasks = 32
	}
	if c.Samples <= 0 {
		c.Samples = 16
	}
	if c.Cold <= 0 {
		c.Cold = 40
	}
	if c.Warm <= 0 {
		c.Warm = 40
	}
	if c.SoakWarmPerCold <= 0 {
		c.SoakWarmPerCold = 3
	}
	if c.SoakEvery <= 0 {
		c.SoakEvery = 10 * time.Second
	}
	if c.Progress == nil {
		c.Progress = io.Discard
	}
	return c
}

// Run runs the load test.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	cfg = cfg.withDefaults()
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
	url := "http://" + cfg.Addr
	if cfg.Addr == "" {
		stop, addr, err := startServer(ctx, cfg.Server, nil, all)
		if err != nil {
			return nil, err
		}
		defer stop()
		url = "http://" + addr
	}
	rep := &Report{Target: url, BatchSize: cfg.Tasks * cfg.Samples, CPUs: runtime.NumCPU(), LoadAvg: proccpu.LoadAverage()}
	cl := &http.Client{Timeout: 5 * time.Minute}
	rng := rand.New(rand.NewPCG(7, 11))

	// Warm-up: golds of the tasks the timed batches use, so cold batches
	// time candidates, as in training after the first update.
	offset := 0
	var seq int
	next := func(cold bool) ([]serve.Item, string) {
		seq++
		marker := ""
		if cold {
			marker = fmt.Sprintf("sg_b%d", seq)
		}
		items := batch(rng, tasks, offset, cfg.Tasks, cfg.Samples, marker)
		offset += cfg.Tasks
		return items, marker
	}
	for i := 0; i < (len(tasks)+cfg.Tasks-1)/cfg.Tasks; i++ {
		items, _ := next(false)
		if _, _, err := send(ctx, cl, url, items); err != nil {
			return nil, fmt.Errorf("warm-up: %w", err)
		}
	}
	fmt.Fprintf(cfg.Progress, "warmed golds of %d tasks\n", len(tasks))

	var cold []time.Duration
	var correct, total, distinct int
	for i := 0; i < cfg.Cold; i++ {
		items, _ := next(true)
		distinct += countDistinct(items)
		d, res, err := send(ctx, cl, url, items)
		if err != nil {
			return nil, fmt.Errorf("cold batch %d: %w", i, err)
		}
		cold = append(cold, d)
		correct, total = correct+countCorrect(res), total+len(res)
	}
	rep.Cold = timing(cold, rep.BatchSize, float64(correct)/float64(total))
	rep.DistinctCold = float64(distinct) / float64(cfg.Cold)
	fmt.Fprintf(cfg.Progress, "cold: p50 %.1f ms, p99 %.1f ms\n", rep.Cold.P50ms, rep.Cold.P99ms)

	items, _ := next(false)
	if _, _, err := send(ctx, cl, url, items); err != nil { // fills the cache for this batch
		return nil, err
	}
	var warm []time.Duration
	correct, total = 0, 0
	for i := 0; i < cfg.Warm; i++ {
		d, res, err := send(ctx, cl, url, items)
		if err != nil {
			return nil, fmt.Errorf("warm batch %d: %w", i, err)
		}
		warm = append(warm, d)
		correct, total = correct+countCorrect(res), total+len(res)
	}
	rep.Warm = timing(warm, rep.BatchSize, float64(correct)/float64(total))
	fmt.Fprintf(cfg.Progress, "warm: p50 %.1f ms, p99 %.1f ms, %.0f rewards/s\n", rep.Warm.P50ms, rep.Warm.P99ms, rep.Warm.RewardsPerSec)

	if cfg.Soak > 0 {
		s, err := soak(ctx, cfg, cl, url, next)
		if err != nil {
			return nil, err
		}
		rep.Soak = s
	}
	rep.LoadAvgEnd = proccpu.LoadAverage()
	return rep, nil
}

func soak(ctx context.Context, cfg Config, cl *http.Client, url string, next func(bool) ([]serve.Item, string)) (*Soak, error) {
	s := &Soak{Duration: cfg.Soak.String()}
	start := time.Now()
	sample := func() error {
		m, err := scrape(ctx, cl, url)
		if err != nil {
			return err
		}
		s.Samples = append(s.Samples, MemorySample{AtSec: time.Since(start).Seconds(),
			RSSMB: m["process_resident_memory_bytes"] / (1 << 20), HeapMB: m["go_memstats_heap_alloc_bytes"] / (1 << 20),
			CacheEntries: m["sqlgym_serve_cache_entries"]})
		return nil
	}
	if err := sample(); err != nil {
		return nil, err
	}
	var lat []time.Duration
	warmItems, _ := next(false)
	lastSample := time.Now()
	for i := 0; time.Since(start) < cfg.Soak; i++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		items := warmItems
		if i%(cfg.SoakWarmPerCold+1) == 0 {
			items, _ = next(true)
		}
		d, res, err := send(ctx, cl, url, items)
		if err != nil {
			return nil, fmt.Errorf("soak batch %d: %w", i, err)
		}
		lat = append(lat, d)
		s.Batches++
		s.Rewards += len(res)
		if time.Since(lastSample) >= cfg.SoakEvery {
			lastSample = time.Now()
			if err := sample(); err != nil {
				return nil, err
			}
			last := s.Samples[len(s.Samples)-1]
			fmt.Fprintf(cfg.Progress, "soak %3.0fs: %d batches, rss %.1f MB, heap %.1f MB, cache %.0f entries\n",
				last.AtSec, s.Batches, last.RSSMB, last.HeapMB, last.CacheEntries)
		}
	}
	if err := sample(); err != nil {
		return nil, err
	}
	first, last := s.Samples[0], s.Samples[len(s.Samples)-1]
	s.FirstRSS, s.LastRSS, s.FirstHeap, s.LastHeap, s.CacheEnd = first.RSSMB, last.RSSMB, first.HeapMB, last.HeapMB, last.CacheEntries
	for _, m := range s.Samples {
		s.MaxRSS, s.MaxHeap = max(s.MaxRSS, m.RSSMB), max(s.MaxHeap, m.HeapMB)
	}
	s.P99ms = quantile(lat, 0.99)
	return s, nil
}

// startServer starts sc in this process on 127.0.0.1 over tasks, with the
// built-in shop and refs (NAME=URL) as its databases.
func startServer(ctx context.Context, sc serve.Config, refs []string, tasks []sqlgym.Task) (stop func(), addr string, err error) {
	dir, err := os.MkdirTemp("", "sqlgym-bench-")
	if err != nil {
		return nil, "", err
	}
	cat, err := catalog.New(catalog.Config{CacheDir: dir, Refs: refs})
	if err != nil {
		os.RemoveAll(dir)
		return nil, "", err
	}
	sc.DBs, sc.Tasks = cat, tasks
	srv, err := serve.New(sc)
	if err != nil {
		cat.Close()
		os.RemoveAll(dir)
		return nil, "", err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		cat.Close()
		os.RemoveAll(dir)
		return nil, "", err
	}
	sctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = srv.Serve(sctx, ln, 10*time.Second)
	}()
	return func() {
		cancel()
		<-done
		cat.Close()
		os.RemoveAll(dir)
	}, ln.Addr().String(), nil
}

// statusError is an answer other than 200.
type statusError struct {
	code int
	body string
}

func (e *statusError) Error() string { return fmt.Sprintf("status %d: %s", e.code, e.body) }

// post sends one request and returns its results, whatever their
// outcomes.
func post(ctx context.Context, cl *http.Client, url string, items []serve.Item) (time.Duration, []serve.Result, error) {
	body, _ := json.Marshal(serve.RewardsRequest{Items: items})
	start := time.Now()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url+"/v1/rewards", bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := cl.Do(req)
	if err != nil {
		return time.Since(start), nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	d := time.Since(start)
	if err != nil {
		return d, nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return d, nil, &statusError{resp.StatusCode, string(b)}
	}
	var out serve.RewardsResponse
	if err := json.Unmarshal(b, &out); err != nil {
		return d, nil, err
	}
	if len(out.Results) != len(items) {
		return d, nil, fmt.Errorf("%d results for %d items", len(out.Results), len(items))
	}
	return d, out.Results, nil
}

// send is post for honest batches: an answer the server could not judge
// fails the test.
func send(ctx context.Context, cl *http.Client, url string, items []serve.Item) (time.Duration, []serve.Result, error) {
	d, res, err := post(ctx, cl, url, items)
	if err != nil {
		return d, nil, err
	}
	for i, r := range res {
		if r.Outcome == sqlgym.OutcomeInfraError || r.Outcome == sqlgym.OutcomeGoldError || r.Outcome == serve.OutcomeUnscored {
			return d, nil, fmt.Errorf("item %d (%s): %s: %s", i, items[i].TaskID, r.Outcome, r.Detail)
		}
	}
	return d, res, nil
}

// scrape reads the unlabelled series of the server's /metrics.
func scrape(ctx context.Context, cl *http.Client, url string) (map[string]float64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url+"/metrics", nil)
	if err != nil {
		return nil, err
	}
	resp, err := cl.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	out := map[string]float64{}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || strings.Contains(line, "{") {
			continue
		}
		name, val, ok := strings.Cut(line, " ")
		if !ok {
			continue
		}
		if f, err := strconv.ParseFloat(strings.TrimSpace(val), 64); err == nil {
			out[name] = f
		}
	}
	return out, sc.Err()
}

func countDistinct(items []serve.Item) int {
	seen := map[string]bool{}
	for _, it := range items {
		if it.FinishReason != "length" {
			seen[it.TaskID+"\x00"+*it.Completion] = true
		}
	}
	return len(seen)
}

func countCorrect(res []serve.Result) int {
	n := 0
	for _, r := range res {
		if r.Outcome == sqlgym.OutcomeCorrect {
			n++
		}
	}
	return n
}

func timing(ds []time.Duration, batchSize int, correct float64) Timing {
	var sum time.Duration
	mx := time.Duration(0)
	for _, d := range ds {
		sum += d
		mx = max(mx, d)
	}
	return Timing{Batches: len(ds), P50ms: quantile(ds, 0.5), P99ms: quantile(ds, 0.99), MaxMs: ms(mx),
		RewardsPerSec: float64(batchSize*len(ds)) / sum.Seconds(), OutcomeCorrect: correct}
}

// quantile is the nearest-rank quantile in milliseconds.
func quantile(ds []time.Duration, q float64) float64 {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := int(q*float64(len(s))+0.999999) - 1
	return ms(s[min(max(i, 0), len(s)-1)])
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
