package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/internal/cmd/cmdkit"
	"github.com/sqlgym/sqlgym/internal/jsonl"
	"github.com/sqlgym/sqlgym/serve"
	"github.com/sqlgym/sqlgym/serve/loadtest"
	"github.com/sqlgym/sqlgym/shopdb"
)

// runBenchHostile is `bench serve --hostile`: honest requests timed
// beside hostile batches.
func runBenchHostile(ctx context.Context, io cmdkit.IO, opts benchServeOptions) error {
	if opts.HostileBatches < 1 || opts.HostileBatches > 64 {
		return cmdkit.Usagef("--hostile-batches %d: between 1 and 64", opts.HostileBatches)
	}
	var items []serve.Item
	_, err := jsonl.ScanFile(opts.Hostile, jsonl.Strict, func(_ int, b []byte) error {
		var it serve.Item
		if err := json.Unmarshal(b, &it); err != nil {
			return err
		}
		items = append(items, it)
		return nil
	})
	if err != nil {
		return sqlgym.Userf("give --hostile a predictions JSONL file ({\"task_id\", \"sql\" | \"completion\"} a line)", "--hostile: %w", err)
	}
	var tasks []sqlgym.Task
	if opts.HostileTasks != "" {
		if tasks, err = shopdb.LoadTasks(opts.HostileTasks); err != nil {
			return err
		}
	}
	// Bounded whatever the server does: each hostile request ends by its
	// deadline, and the honest requests with it.
	ctx, cancel := context.WithTimeout(ctx, opts.Deadline+15*time.Minute)
	defer cancel()
	rep, err := loadtest.RunHostile(ctx, loadtest.HostileConfig{Addr: opts.Addr, DB: opts.DB, Hostile: items, HostileTasks: tasks,
		Batches: opts.HostileBatches, HonestEvery: opts.HonestEvery, Server: opts.server(), Progress: io.ErrOut})
	if err != nil {
		return fmt.Errorf("bench serve --hostile: %w", err)
	}
	if opts.JSON {
		return cmdkit.WriteJSON(io.Out, rep)
	}
	w := io.Out
	fmt.Fprintf(w, "target %s (%s), %d CPUs, load average %s -> %s\n", rep.Target, rep.Dialect, rep.CPUs, rep.LoadAvg, rep.LoadAvgEnd)
	row := func(name string, l loadtest.Latency) {
		fmt.Fprintf(w, "%-32s %5d requests  p50 %9.1f ms  p90 %9.1f ms  p99 %9.1f ms  max %9.1f ms\n", name, l.Requests, l.P50ms, l.P90ms, l.P99ms, l.MaxMs)
	}
	row("honest alone", rep.Alone)
	row(fmt.Sprintf("honest beside %d hostile", rep.Batches), rep.Honest)
	row(fmt.Sprintf("hostile (%d answers each)", rep.HostileItems), rep.Hostile)
	for i, h := range rep.HostileRuns {
		fmt.Fprintf(w, "hostile request %d: status %d after %.1f s: %s%s\n", i, h.Status, h.Seconds, h.OutcomeList(), h.Error)
	}
	fmt.Fprintf(w, "honest requests failed: %d; with another verdict than alone: %d  [goal: 0 and 0, honest p99 within 2 s]\n", rep.HonestFailed, rep.HonestUnlike)
	return nil
}
