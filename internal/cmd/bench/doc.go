// Package bench holds the commands of sqlgym-bench, which measure sqlgym
// itself: the reward server under GRPO-sized batches and hostile mixes
// (serve), a cluster of replicas behind HAProxy (cluster), the verifier
// against a sqlite3 floor under CPU load (verify). They and serve/loadtest
// are linked into cmd/sqlgym-bench only, never into the user's sqlgym.
package bench
