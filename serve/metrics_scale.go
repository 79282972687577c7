package serve

import "github.com/prometheus/client_golang/prometheus"

// scaleMetrics are the series that running many replicas needs besides
// sqlgym_serve_inflight_requests (the autoscaler's metric, see
// deploy/kubernetes/hpa.yaml): readiness, open episodes (a replica holding
// many is costly to drain) and steps that reached the wrong replica (a
// balancer's affinity rule that does not hold).
type scaleMetrics struct {
	ready     prometheus.Gauge
	misrouted *prometheus.CounterVec // reason: other_replica, unknown
}

func (s *Server) registerScaleMetrics() {
	sm := &scaleMetrics{
		ready: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "sqlgym_serve_ready", Help: "1 while GET /readyz answers 200 (databases open, golds warmed with --warm, not draining).",
		}),
		misrouted: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "sqlgym_serve_episode_not_found_total", Help: "Episode steps or deletes for an episode this replica does not hold, by reason (other_replica: the id names another replica, so the balancer's affinity failed; unknown: ended, expired or lost in a restart).",
		}, []string{"reason"}),
	}
	s.m.reg.MustRegister(sm.ready, sm.misrouted,
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "sqlgym_serve_open_episodes", Help: "Episodes open on this replica (lost if it stops)."},
			func() float64 { return float64(s.eps.count()) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "sqlgym_serve_replica_info", Help: "Always 1; the replica label is this replica's id, the prefix of its episode ids.",
			ConstLabels: prometheus.Labels{"replica": s.cfg.ReplicaID}}, func() float64 { return 1 }),
	)
	s.sm = sm
}
