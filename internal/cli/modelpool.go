package cli

import (
	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/model"
)

// modelClient is eval's model client: over the one --base-url, or, when
// it is repeated, over a model.Pool of those replicas (fewest in flight
// first, a failing replica taken out for a while). replicas lists the
// pool's URLs for the manifest; it is nil for one server.
func modelClient(opts evalOptions, key string, onRetry func(model.Retry)) (client *model.Client, replicas []string, err error) {
	cfg := model.Config{BaseURL: firstOf(opts.BaseURLs), APIKey: key, Model: opts.Model, Concurrency: opts.Concurrency, OnRetry: onRetry}
	if len(opts.BaseURLs) > 1 {
		pool, err := model.NewPool(opts.BaseURLs, model.PoolOptions{})
		if err != nil {
			return nil, nil, sqlgym.Userf("give each --base-url once, as http://HOST:PORT/v1", "%v", err)
		}
		cfg.BaseURL, cfg.HTTPClient, replicas = pool.BaseURL(), pool.HTTPClient(), pool.URLs()
	}
	client, err = model.NewFromConfig(cfg)
	if err != nil {
		return nil, nil, sqlgym.Userf("give --base-url as http://HOST:PORT/v1", "%v", err)
	}
	return client, replicas, nil
}

func firstOf(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[0]
}
