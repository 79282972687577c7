// Package serve is the reward server RL trainers call: POST /v1/rewards
// (sqlgym's own batch API), POST /get_reward (OpenRLHF's remote reward
// protocol), POST /slime/reward (slime's remote reward model), GET /healthz
// and GET /metrics (Prometheus). Reward components and their weights
// (components.go) are additive: off, every route answers as before.
//
// Every reward comes from package verify's Verifier, the code `sqlgym
// verify` and `sqlgym eval` score with; serve adds only what a long-lived
// server needs around it: a bounded cache of candidate results across
// requests (verify.ResultCache), a bounded number of requests per database
// (429 with Retry-After past it) that share its statement slots a
// statement at a time (fair.go: a large or slow batch never makes a small
// request wait for all of it), request size limits (413), a deadline per
// request past which the answers judged are sent and the rest unscored, a
// drain of requests in flight on shutdown, and metrics. A database failure
// is never a reward of 0: the item is infra_error with a null reward, or
// the whole request fails with 503.
package serve
