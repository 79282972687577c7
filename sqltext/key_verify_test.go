package sqltext_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/catalog"
	"github.com/sqlgym/sqlgym/engine/sqlite"
	"github.com/sqlgym/sqlgym/verify"
)

// TestVerifierCacheNotPoisoned is issue 18 end to end: through the
// verifier's batch deduplication and serve's cross-request cache, an
// answer the engine reads differently from the gold text (SQLite does not
// nest comments, so OR a = 2 runs) neither spoils the gold text's verdict
// when it comes first nor borrows the gold's when it comes second.
func TestVerifierCacheNotPoisoned(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "key.sqlite")
	if err := sqlite.Create(ctx, path, []string{
		"CREATE TABLE t (a INTEGER)", "INSERT INTO t VALUES (1), (2), (3)",
	}); err != nil {
		t.Fatal(err)
	}
	cat, err := catalog.New(catalog.Config{Refs: []string{"key=sqlite:" + path}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cat.Close() })
	gold := "SELECT a FROM t WHERE a = 1"
	poison := "SELECT a FROM t WHERE a = 1 /* /* */ OR a = 2 --*/"
	tasks := []sqlgym.Task{{ID: "k", DB: "key", SQL: gold}}
	v := verify.New(cat, tasks, verify.Config{Cache: verify.NewResultCache(100, 1<<20)})
	want := map[string]sqlgym.Outcome{gold: sqlgym.OutcomeCorrect, poison: sqlgym.OutcomeWrong}
	for _, batch := range [][]string{{poison}, {gold}, {gold, poison}, {poison, gold}} {
		var answers []verify.Answer
		for i, q := range batch {
			answers = append(answers, verify.Answer{TaskID: "k", Sample: i, SQL: q})
		}
		for _, r := range v.VerifyBatch(ctx, answers) {
			if r.Outcome != want[r.SQL] {
				t.Errorf("batch %q: %q is %s (%s), want %s", batch, r.SQL, r.Outcome, r.Detail, want[r.SQL])
			}
		}
	}
}
