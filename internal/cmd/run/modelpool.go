package run

import (
	"fmt"
	goio "io"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/internal/redact"
	"github.com/sqlgym/sqlgym/model"
)

// modelClient is eval's model client: over the one --base-url, or, when
// it is repeated, over a model.Pool of those replicas (fewest in flight
// first, a failing replica taken out for a while). replicas lists the
// pool's URLs for the manifest, and stats reads the pool's per-replica
// counts for the end-of-run lines; both are nil for one server.
func modelClient(opts EvalOptions, key string, onRetry func(model.Retry)) (client *model.Client, replicas []string, stats func() []model.ReplicaStats, err error) {
	cfg := model.Config{BaseURL: firstOf(opts.BaseURLs), APIKey: key, Model: opts.Model, Concurrency: opts.Concurrency, OnRetry: onRetry}
	if len(opts.BaseURLs) > 1 {
		pool, err := model.NewPool(opts.BaseURLs, model.PoolOptions{})
		if err != nil {
			return nil, nil, nil, sqlgym.Userf("give each --base-url once, as http://HOST:PORT/v1", "%w", err)
		}
		cfg.BaseURL, cfg.HTTPClient, replicas, stats = pool.BaseURL(), pool.HTTPClient(), pool.URLs(), pool.Stats
	}
	client, err = model.NewFromConfig(cfg)
	if err != nil {
		return nil, nil, nil, sqlgym.Userf("give --base-url as http://HOST:PORT/v1", "%w", err)
	}
	return client, replicas, stats, nil
}

// printReplicaStats writes a line per replica of a pool: a replica that
// failed often or was taken out is worth a look even when the run went on.
func printReplicaStats(w goio.Writer, stats []model.ReplicaStats) {
	for _, r := range stats {
		fmt.Fprintf(w, "replica %s: %d requests, %d failed, taken out %d times\n", redact.URL(r.URL), r.Requests, r.Failures, r.TakenOut)
	}
}

func firstOf(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[0]
}
