package serve

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/verify"
)

// metrics are the server's Prometheus series, on a registry of its own so
// that several servers (tests, the in-process benchmark) never collide.
type metrics struct {
	reg       *prometheus.Registry
	requests  *prometheus.CounterVec   // route, code
	duration  *prometheus.HistogramVec // route
	batchSize prometheus.Histogram
	outcomes  *prometheus.CounterVec // outcome
	// evalOutcomes counts the items of evaluation requests ("mode": "eval").
	evalOutcomes *prometheus.CounterVec   // outcome
	verifyTime   prometheus.Histogram     // one batch's verification, waiting excluded
	statement    *prometheus.HistogramVec // dialect
	queue        *prometheus.GaugeVec     // db
	inflight     prometheus.Gauge
	rejected     *prometheus.CounterVec // reason
	episodes     prometheus.Counter
}

func newMetrics(cache *verify.ResultCache) *metrics {
	reg := prometheus.NewRegistry()
	m := &metrics{
		reg: reg,
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "sqlgym_serve_requests_total", Help: "HTTP requests by route and status code.",
		}, []string{"route", "code"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "sqlgym_serve_request_duration_seconds", Help: "Time from a request's arrival to its answer.",
			Buckets: prometheus.ExponentialBuckets(0.001, 2, 16),
		}, []string{"route"}),
		batchSize: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "sqlgym_serve_batch_items", Help: "Items per scoring request.",
			Buckets: prometheus.ExponentialBuckets(1, 2, 14),
		}),
		outcomes: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "sqlgym_serve_outcomes_total", Help: "Scored items by outcome.",
		}, []string{"outcome"}),
		evalOutcomes: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "sqlgym_serve_eval_outcomes_total", Help: "Items of evaluation requests (mode eval) by outcome; not in sqlgym_serve_outcomes_total.",
		}, []string{"outcome"}),
		verifyTime: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "sqlgym_serve_verify_duration_seconds", Help: "Time to verify one request's batch, queueing excluded.",
			Buckets: prometheus.ExponentialBuckets(0.0005, 2, 16),
		}),
		statement: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "sqlgym_serve_statement_duration_seconds", Help: "Execution time of one statement (gold or candidate) in the sandbox.",
			Buckets: prometheus.ExponentialBuckets(0.0001, 2, 18),
		}, []string{"dialect"}),
		queue: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "sqlgym_serve_queue_depth", Help: "Statements waiting for their turn on a database (requests share its slots statement by statement).",
		}, []string{"db"}),
		inflight: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "sqlgym_serve_inflight_requests", Help: "Scoring requests being served.",
		}),
		rejected: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "sqlgym_serve_rejected_total", Help: "Requests turned away, by reason (busy, too_large, read_timeout, deadline, bad_request, infra).",
		}, []string{"reason"}),
		episodes: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "sqlgym_serve_episodes_started_total", Help: "Agent episodes opened with POST /v1/episodes.",
		}),
	}
	stat := func(f func(verify.CacheStats) float64) func() float64 {
		return func() float64 { return f(cache.Stats()) }
	}
	reg.MustRegister(m.requests, m.duration, m.batchSize, m.outcomes, m.evalOutcomes, m.verifyTime, m.statement, m.queue, m.inflight, m.rejected, m.episodes,
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "sqlgym_serve_cache_hits_total", Help: "Candidate statements answered from the cross-request cache."},
			stat(func(s verify.CacheStats) float64 { return float64(s.Hits) })),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "sqlgym_serve_cache_misses_total", Help: "Candidate statements the cache could not answer."},
			stat(func(s verify.CacheStats) float64 { return float64(s.Misses) })),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "sqlgym_serve_cache_evictions_total", Help: "Results dropped to stay within the cache's bounds."},
			stat(func(s verify.CacheStats) float64 { return float64(s.Evictions) })),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "sqlgym_serve_cache_entries", Help: "Results in the cross-request cache."},
			stat(func(s verify.CacheStats) float64 { return float64(s.Entries) })),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "sqlgym_serve_cache_bytes", Help: "Bytes of rows in the cross-request cache."},
			stat(func(s verify.CacheStats) float64 { return float64(s.Bytes) })),
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
	)
	return m
}

// timedDBs measures every statement the verifier runs.
type timedDBs struct {
	Databases
	m *metrics
}

func (t timedDBs) EngineURL(ctx context.Context, url string) (sqlgym.Engine, error) {
	eng, err := t.Databases.EngineURL(ctx, url)
	if err != nil {
		return nil, err
	}
	return timedEngine{eng, t.m.statement.WithLabelValues(string(eng.Dialect()))}, nil
}

type timedEngine struct {
	sqlgym.Engine
	h prometheus.Observer
}

// Unwrap gives the engine timed, whose sqlgym.Describer the schema
// component of the rewards needs.
func (e timedEngine) Unwrap() sqlgym.Engine { return e.Engine }

func (e timedEngine) Query(ctx context.Context, sql string, lim sqlgym.Limits) (*sqlgym.ResultSet, error) {
	start := time.Now()
	rs, err := e.Engine.Query(ctx, sql, lim)
	e.h.Observe(time.Since(start).Seconds())
	return rs, err
}
