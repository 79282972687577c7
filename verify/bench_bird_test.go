package verify_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/benchdb"
	"github.com/sqlgym/sqlgym/catalog"
	"github.com/sqlgym/sqlgym/verify"
)

// BenchmarkBird verifies GRPO batches on the generated 10 MB benchmark
// database (benchdb), where executing queries, not comparing rows,
// dominates as on BIRD: 8 tasks x 16 answers and 32 x 16 = 512, golds
// cached as in a training loop. Beside each, execute-distinct runs each of
// the statements the verifier must run (the batch's distinct statements
// that are not a gold's text) once on the same engine with as many
// goroutines as the verifier: the floor. statements/op and queries/op
// agree when the verifier runs nothing more. `sqlgym-bench verify` compares
// the verifier with C SQLite too.
func BenchmarkBird(b *testing.B) {
	ctx := context.Background()
	path := filepath.Join(b.TempDir(), "bench.sqlite")
	if _, err := benchdb.Generate(ctx, path, benchdb.Config{Seed: benchdb.DefaultSeed}); err != nil {
		b.Fatal(err)
	}
	cat, err := catalog.New(catalog.Config{Refs: []string{benchdb.DBName + "=sqlite:" + path}})
	if err != nil {
		b.Fatal(err)
	}
	defer cat.Close()
	for _, nTasks := range []int{8, benchdb.MaxTasks} {
		batch, err := benchdb.NewBatch(benchdb.DefaultSeed, nTasks)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("%dx%d", nTasks, benchdb.Samples), func(b *testing.B) {
			benchBirdBatch(b, ctx, cat, batch)
		})
	}
}

func benchBirdBatch(b *testing.B, ctx context.Context, cat *catalog.Catalog, batch benchdb.Batch) {
	dbs := &countingDBs{Catalog: cat, calls: map[string]int{}}
	v := verify.New(dbs, batch.Tasks, verify.Config{})
	// Warm: golds cached, connections open. A batch that fails here would
	// time the wrong thing.
	for i, r := range v.VerifyBatch(ctx, batch.Answers) {
		if r.Reward == nil {
			b.Fatalf("answer %d: outcome %s (%s): no reward", i, r.Outcome, r.Detail)
		}
	}
	b.Run("verify", func(b *testing.B) {
		before := total(dbs.calls)
		cpu := selfCPU()
		for b.Loop() {
			v.VerifyBatch(ctx, batch.Answers)
		}
		reportCPU(b, cpu)
		b.ReportMetric(float64(len(batch.Answers)), "answers/op")
		b.ReportMetric(float64(total(dbs.calls)-before)/float64(b.N), "statements/op")
	})

	url, err := cat.Resolve(benchdb.DBName)
	if err != nil {
		b.Fatal(err)
	}
	var golds []string
	for _, t := range batch.Tasks {
		golds = append(golds, t.SQL)
	}
	benchFloors(b, ctx, cat, url, warmDistinct(sqlgym.DialectSQLite, golds, batch.Answers), v.Config().Concurrency,
		func() { v.VerifyBatch(ctx, batch.Answers) })
}
