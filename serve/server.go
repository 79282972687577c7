package serve

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"golang.org/x/sync/semaphore"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/agent"
	"github.com/sqlgym/sqlgym/verify"
)

// Server scores answers for trainers over HTTP.
type Server struct {
	cfg     Config
	dbs     Databases
	tasks   map[string]*sqlgym.Task
	v       *verify.Verifier
	cache   *verify.ResultCache
	results *verify.ByteBudget // candidates' results held at once
	bodies  *verify.ByteBudget // request bodies read and scored at once
	adhoc   *adhoc
	limit   *limiter
	gate    *fairGate
	// dbNames maps a database URL to its name, so metrics never show a
	// URL (it may hold a password).
	dbNames  sync.Map
	m        *metrics
	mux      *http.ServeMux
	draining atomic.Bool
	ready    atomic.Bool  // see ready.go
	notReady atomic.Value // string: why not ready yet
	sm       *scaleMetrics
	// weights and components: the reward components (components.go).
	weights    verify.Weights
	components *prometheus.HistogramVec

	// The episode API's open episodes and an environment per protocol.
	eps   *episodes
	envMu sync.Mutex
	envs  map[agent.Protocol]*agent.Env
}

// New builds a server. It refuses a reward table that gives a number to a
// failure that is not the model's (infra_error, gold_error): a trainer
// must never learn from an outage or a broken task.
func New(cfg Config) (*Server, error) {
	cfg = cfg.withDefaults()
	if cfg.DBs == nil {
		return nil, errors.New("serve: no databases")
	}
	for _, o := range []sqlgym.Outcome{sqlgym.OutcomeInfraError, sqlgym.OutcomeGoldError} {
		if cfg.Verify.Rewards != nil && cfg.Verify.Rewards[o] != nil {
			return nil, sqlgym.Userf("leave "+string(o)+" without a reward (null): it is not the model's doing",
				"--reward %s=%g: the server never rewards a failure that is not the model's", o, *cfg.Verify.Rewards[o])
		}
	}
	if _, err := cfg.Agent.WithDefaults(); err != nil {
		return nil, err
	}
	if cfg.Schema != nil && cfg.Schema.Mode().Diagnostic() {
		return nil, sqlgym.Userf("use --schema full or --schema linked; oracle is for sqlgym link and eval diagnostics only",
			"serve refuses --schema oracle: episodes would open on exactly the gold's tables, so a trainer learns from the answer")
	}
	s := &Server{cfg: cfg, tasks: make(map[string]*sqlgym.Task, len(cfg.Tasks)),
		eps: newEpisodes(cfg.ReplicaID, cfg.EpisodeTTL, cfg.MaxEpisodes), envs: map[agent.Protocol]*agent.Env{}}
	s.cache = verify.NewResultCache(cfg.CacheEntries, cfg.CacheBytes)
	s.m = newMetrics(s.cache)
	if cfg.RewardWeights == nil {
		cfg.RewardWeights = verify.DefaultWeights()
	}
	if err := cfg.RewardWeights.Check(); err != nil {
		return nil, err
	}
	if !cfg.RewardWeights.IsDefault() {
		cfg.Verify.Components = true
	}
	s.cfg, s.weights = cfg, cfg.RewardWeights
	s.components = newComponentMetrics(s.m.reg)
	s.registerScaleMetrics()
	s.dbs = timedDBs{cfg.DBs, s.m}
	s.results = verify.NewByteBudget(cfg.ResultBytes)
	s.bodies = verify.NewByteBudget(cfg.BodyBytes)
	vc := cfg.Verify
	vc.Cache = s.cache
	vc.Budget = s.results
	// One bound on detached gold runs for the whole process, shared with
	// the ad-hoc verifiers, which are replaced as their golds pile up.
	vc.GoldRuns = semaphore.NewWeighted(int64(max(vc.Concurrency, 2*runtime.GOMAXPROCS(0))))
	// The gate's process-wide share is what the result budget holds at
	// the statements' byte cap: a statement it admits never waits for
	// bytes behind another request's.
	capBytes := vc.Limits.WithDefaults().MaxBytes
	s.gate = newFairGate(cfg.DBSlots, int(max(cfg.ResultBytes/capBytes, 1)), func(url string, d int) {
		s.m.queue.WithLabelValues(s.dbName(url)).Add(float64(d))
	})
	vc.Gate = s.gate
	s.v = verify.New(s.dbs, cfg.Tasks, vc)
	for i := range cfg.Tasks {
		s.tasks[cfg.Tasks[i].ID] = &cfg.Tasks[i]
	}
	s.adhoc = newAdhoc(s.dbs, vc, cfg.AdhocGolds)
	s.limit = newLimiter(cfg.DBSlots + cfg.Queue)

	s.mux = http.NewServeMux()
	s.mux.Handle("POST /v1/rewards", s.instrument("/v1/rewards", s.handleRewards))
	s.mux.Handle("POST /get_reward", s.instrument("/get_reward", s.handleOpenRLHF))
	s.mux.Handle("POST /slime/reward", s.instrument("/slime/reward", s.handleSlime))
	s.mux.Handle("POST /v1/episodes", s.instrument("/v1/episodes", s.handleEpisodeStart))
	s.mux.Handle("POST /v1/episodes/{id}/step", s.instrument("/v1/episodes/step", s.handleEpisodeStep))
	s.mux.Handle("DELETE /v1/episodes/{id}", s.instrument("/v1/episodes/delete", s.handleEpisodeDelete))
	s.mux.Handle("POST /seed_session", s.instrument("/seed_session", s.handleSeedSession))
	s.mux.Handle("POST /verify", s.instrument("/verify", s.handleVerify))
	s.mux.Handle("POST /aggregate_metrics", s.instrument("/aggregate_metrics", s.handleAggregate))
	for _, name := range nemoTools {
		s.mux.Handle("POST /"+name, s.instrument("/"+name, s.handleNemoTool(name)))
	}
	s.mux.HandleFunc("GET /healthz", s.handleHealth)
	s.mux.HandleFunc("GET /readyz", s.handleReady)
	s.mux.Handle("GET /metrics", promhttp.HandlerFor(s.m.reg, promhttp.HandlerOpts{}))
	return s, nil
}

// dbName is the name of a database URL for metrics ("other" for a URL no
// request named, such as a test-suite variant).
func (s *Server) dbName(url string) string {
	if n, ok := s.dbNames.Load(url); ok {
		return n.(string)
	}
	return "other"
}

// Handler is the server's routes.
func (s *Server) Handler() http.Handler { return s.withReplica(s.routes()) }

// MemoryStats reports the process's two byte budgets: candidates' results
// held by batches and request bodies being read and scored.
type MemoryStats struct {
	Results verify.BudgetStats `json:"results"`
	Bodies  verify.BudgetStats `json:"bodies"`
}

// MemoryStats returns the byte budgets' counters.
func (s *Server) MemoryStats() MemoryStats {
	return MemoryStats{Results: s.results.Stats(), Bodies: s.bodies.Stats()}
}

// WarmReport says what warming found.
type WarmReport struct {
	Tasks int `json:"tasks"`
	// GoldErrors are tasks whose gold fails on its database; NotSelf are
	// tasks whose gold is not judged correct against itself (a gold with
	// random or time-dependent results).
	GoldErrors []string `json:"gold_errors,omitempty"`
	// Broken names the GoldErrors tasks with the database's error.
	Broken  []verify.BrokenGold `json:"broken_golds,omitempty"`
	NotSelf []string            `json:"not_self_correct,omitempty"`
	Took    time.Duration       `json:"took_ns"`
}

// Warm runs every servable task's gold once, so the first trainer batch
// finds gold results cached and broken tasks are known before training.
func (s *Server) Warm(ctx context.Context) (WarmReport, error) {
	return s.runGolds(ctx, 1024, false)
}

// ProbeGolds runs the servable golds a few at a time until one works: the
// check serve makes without --warm, so that a server whose every gold
// fails (a wrong --db, a tasks file for another schema) refuses to start
// instead of answering gold_error to every trainer request. One working
// gold usually ends it after a single small batch; the report counts
// only the golds run.
func (s *Server) ProbeGolds(ctx context.Context) (WarmReport, error) {
	return s.runGolds(ctx, 4, true)
}

// runGolds judges the servable golds against themselves in chunks,
// stopping after the first chunk with a working gold when untilOne.
func (s *Server) runGolds(ctx context.Context, chunk int, untilOne bool) (WarmReport, error) {
	start := time.Now()
	answers := s.goldAnswers()
	rep := WarmReport{Tasks: len(answers)}
	for lo := 0; lo < len(answers); lo += chunk {
		res := s.v.VerifyBatch(ctx, answers[lo:min(lo+chunk, len(answers))])
		if err := ctx.Err(); err != nil {
			return rep, fmt.Errorf("warm: %w", err)
		}
		for _, r := range res {
			switch r.Outcome {
			case sqlgym.OutcomeCorrect:
			case sqlgym.OutcomeInfraError:
				return rep, fmt.Errorf("warm: task %s: %s", r.TaskID, r.Detail)
			case sqlgym.OutcomeGoldError, sqlgym.OutcomeError, sqlgym.OutcomeTimeout, sqlgym.OutcomeTooLarge:
				// The answer is the gold itself: its failure is the gold's.
				rep.GoldErrors = append(rep.GoldErrors, r.TaskID)
				rep.Broken = append(rep.Broken, verify.BrokenGold{TaskID: r.TaskID, Error: string(r.Outcome) + ": " + r.Detail})
			default:
				rep.NotSelf = append(rep.NotSelf, r.TaskID)
			}
		}
		if ran := min(lo+chunk, len(answers)); untilOne && len(rep.GoldErrors) < ran {
			rep.Tasks = ran
			break
		}
	}
	rep.Took = time.Since(start)
	return rep, nil
}

// goldAnswers are the servable tasks' golds as answers to themselves.
func (s *Server) goldAnswers() []verify.Answer {
	var answers []verify.Answer
	for _, t := range s.cfg.Tasks {
		if s.servable(&t) {
			// Rerun: judged on its own result, the gold shows whether it
			// gives the same rows twice.
			// The gold is the one for its database's engine.
			sql := t.SQL
			if u, err := s.dbs.Resolve(t.DB); err == nil {
				sql = t.GoldFor(sqlgym.URLDialect(u))
			}
			answers = append(answers, verify.Answer{TaskID: t.ID, SQL: sql, Rerun: true})
		}
	}
	return answers
}

// servable reports whether some request may be scored on t, so that
// --warm runs its gold.
func (s *Server) servable(t *sqlgym.Task) bool {
	return s.cfg.IncludeHoldout || s.cfg.EvalHoldout || t.Split != sqlgym.SplitHoldout
}

// Serve answers on ln until ctx is cancelled, then stops accepting
// connections and waits up to drain for the requests in flight to finish
// (they keep their own deadline, not ctx: a batch being scored when the
// trainer's run stops is answered, not cut short).
func (s *Server) Serve(ctx context.Context, ln net.Listener, drain time.Duration) error {
	hs := &http.Server{
		Handler:           s.Handler(),
		ReadHeaderTimeout: 10 * time.Second,
		// Bodies have their own deadline (Config.ReadTimeout, set per
		// request so it does not cut the scoring that follows); idle
		// keep-alive connections are not kept forever either.
		IdleTimeout: 2 * time.Minute,
		BaseContext: func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	s.draining.Store(true)
	s.sm.ready.Set(0)
	s.unreadyPause()
	sctx, cancel := context.WithTimeout(context.Background(), drain)
	defer cancel()
	err := hs.Shutdown(sctx)
	<-errc
	if err != nil {
		return fmt.Errorf("drain requests in flight: %w", err)
	}
	return nil
}
