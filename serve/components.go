package serve

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/sqlgym/sqlgym/verify"
)

// componentMetrics is the distribution of each reward component over the
// scored items of training requests: what a trainer's partial credit
// looks like, beside sqlgym_serve_outcomes_total.
func newComponentMetrics(reg *prometheus.Registry) *prometheus.HistogramVec {
	h := prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "sqlgym_serve_reward_component",
		Help:    "Reward components of scored training items (serve --components), by component.",
		Buckets: prometheus.LinearBuckets(0.1, 0.1, 10),
	}, []string{"component"})
	reg.MustRegister(h)
	return h
}

// weightsFor is the weights one request scores with: the server's
// (--reward-weights), or the request's own. A request's weights need the
// components, which only a server started with them computes.
func (s *Server) weightsFor(req map[string]float64) (verify.Weights, error) {
	if req == nil {
		return s.weights, nil
	}
	if !s.cfg.Verify.Components {
		return nil, badRequest(`this request sets "weights", but the server computes no reward components: start it with --components (or --reward-weights)`)
	}
	w := verify.Weights(req)
	if err := w.Check(); err != nil {
		return nil, badRequest("weights: %v", err)
	}
	return w, nil
}

// applyWeights turns the outcome reward into the weighted reward of w and
// logs the components of training items.
func (s *Server) applyWeights(res []Result, eval []bool, w verify.Weights) {
	for i := range res {
		r := &res[i]
		if r.Components == nil {
			continue
		}
		r.Reward = w.Combine(r.Reward, r.Components)
		if !eval[i] {
			for k, x := range r.Components {
				s.components.WithLabelValues(k).Observe(x)
			}
		}
	}
}

// componentLogs adds each component as an extra_logs list
// ("sqlgym_c_rows", ...), 0 for items without components, when any item
// has them: OpenRLHF logs every extra_logs key.
func componentLogs(logs map[string][]float64, res []Result) {
	for _, r := range res {
		if r.Components == nil {
			continue
		}
		for _, k := range verify.ComponentNames {
			list := make([]float64, len(res))
			for i, rr := range res {
				list[i] = rr.Components[k]
			}
			logs["sqlgym_c_"+k] = list
		}
		return
	}
}

// nemoComponents adds the reward components to a single-turn /verify
// answer the way NeMo-Gym's BaseMultiRewardVerifyResponse holds them
// (nemo_gym/base_resources_server.py:100-113 on main 07d6b0d0): a
// reward_components mapping with the same keys for every task (0 for an
// answer without components, which is also sqlgym_masked), and each as a
// top-level number too, since NeMo-Gym's metrics do not descend into it.
func (s *Server) nemoComponents(out map[string]any, r Result) {
	if !s.cfg.Verify.Components {
		return
	}
	m := make(map[string]float64, len(verify.ComponentNames))
	for _, k := range verify.ComponentNames {
		m[k] = r.Components[k]
		out["sqlgym_c_"+k] = r.Components[k]
	}
	out["reward_components"] = m
}
