// Package loadtest is `sqlgym-bench serve`: a bounded load test of the
// reward server on loopback with the batches a GRPO trainer sends (32
// tasks x 16 answers, with the duplicates sampling produces) on the
// built-in shop database. It reports latency per batch for cold batches
// (statements never seen) and warm ones (repeated completions), rewards
// per second, and the server's memory over a soak. With hostile batches
// (RunHostile: a red team's slow answers on the shop in any engine) it
// times honest one-answer requests alone and beside them instead, to show
// that one batch cannot starve the others.
package loadtest
