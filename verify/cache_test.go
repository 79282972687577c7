package verify_test

import (
	"context"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/catalog"
	"github.com/sqlgym/sqlgym/verify"
)

func cacheAnswers(round int) []verify.Answer {
	return []verify.Answer{
		{TaskID: "orders", SQL: "SELECT count(*) FROM orders"},
		{TaskID: "orders", SQL: "select COUNT(*)  from orders"}, // same normalised text
		{TaskID: "orders", SQL: "SELECT count(*) FROM customers"},
		{TaskID: "top", SQL: "SELECT order_id FROM orders ORDER BY order_id LIMIT 3"},
		{TaskID: "top", SQL: "SELECT order_id FROM orders ORDER BY order_id"}, // capped: longer than the gold
		{TaskID: "top", SQL: "SELECT nope FROM orders"},                       // the statement's own error
		{TaskID: "orders", Completion: fmt.Sprintf("```sql\nSELECT %d\n```", round)},
	}
}

// The cross-batch cache changes how often statements run, never a verdict:
// a second batch answered from the cache equals the uncached verifier's.
func TestResultCacheAcrossBatches(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	plain := newCounting(t, catalog.Config{CacheDir: dir})
	cached := newCounting(t, catalog.Config{CacheDir: dir})
	cache := verify.NewResultCache(100, 1<<20)
	vp := verify.New(plain, shopTasks(), verify.Config{})
	vc := verify.New(cached, shopTasks(), verify.Config{Cache: cache})

	first := vc.VerifyBatch(ctx, cacheAnswers(1))
	if want := vp.VerifyBatch(ctx, cacheAnswers(1)); !reflect.DeepEqual(first, want) {
		t.Fatalf("cached verifier differs on a cold batch:\n got %+v\nwant %+v", first, want)
	}
	runs := total(cached.calls)
	st := cache.Stats()
	// 6 distinct candidates, of which 2 are a gold's text and are judged
	// on the gold's result without the cache.
	if st.Hits != 0 || st.Misses != 4 || st.Entries != 4 {
		t.Fatalf("after one batch: %+v, want 4 misses and 4 entries (6 distinct candidates, 2 of them golds)", st)
	}

	second := vc.VerifyBatch(ctx, cacheAnswers(2))
	want := vp.VerifyBatch(ctx, cacheAnswers(2))
	if !reflect.DeepEqual(second, want) {
		t.Fatalf("cached verifier differs on a warm batch:\n got %+v\nwant %+v", second, want)
	}
	st = cache.Stats()
	if st.Hits != 3 || st.Misses != 5 {
		t.Fatalf("after the second batch: %+v, want 3 hits (all but the new SELECT 2 and the golds' texts) and 5 misses", st)
	}
	// Only the new statement ran: golds are cached by the verifier, the
	// candidates by the cache.
	if n := total(cached.calls) - runs; n != 1 || cached.calls["SELECT 2"] != 1 {
		t.Errorf("second batch ran %d statements, want 1 (SELECT 2): %v", n, cached.calls)
	}
	if second[5].Outcome != sqlgym.OutcomeError || second[4].Outcome != sqlgym.OutcomeWrong || second[3].Outcome != sqlgym.OutcomeCorrect {
		t.Fatalf("verdicts from the cache: %+v", second)
	}
}

// A capped result read for one gold's budget is not reused for another
// budget: the second task needs more rows, so the statement runs again.
func TestResultCacheRespectsRowBudget(t *testing.T) {
	ctx := context.Background()
	dbs := newCounting(t, catalog.Config{CacheDir: t.TempDir()})
	tasks := []sqlgym.Task{
		{ID: "three", DB: "shop", SQL: "SELECT order_id FROM orders ORDER BY order_id LIMIT 3"},
		{ID: "ten", DB: "shop", SQL: "SELECT order_id FROM orders ORDER BY order_id LIMIT 10"},
	}
	cache := verify.NewResultCache(100, 1<<20)
	v := verify.New(dbs, tasks, verify.Config{Cache: cache})
	q := "SELECT order_id FROM orders ORDER BY order_id"
	v.VerifyBatch(ctx, []verify.Answer{{TaskID: "three", SQL: q}})
	v.VerifyBatch(ctx, []verify.Answer{{TaskID: "ten", SQL: q}})
	if n := dbs.calls[q]; n != 2 {
		t.Fatalf("capped candidate ran %d times for two budgets, want 2", n)
	}
	if st := cache.Stats(); st.Hits != 0 || st.Entries != 1 {
		t.Fatalf("stats %+v: a capped result answered another budget", st)
	}
	// The same budget again is a hit.
	v.VerifyBatch(ctx, []verify.Answer{{TaskID: "ten", SQL: q}})
	if n := dbs.calls[q]; n != 2 || cache.Stats().Hits != 1 {
		t.Fatalf("same budget: ran %d times, stats %+v", n, cache.Stats())
	}
}

// The cache stays within its bounds, dropping the least recently used.
func TestResultCacheBounds(t *testing.T) {
	ctx := context.Background()
	dbs := newCounting(t, catalog.Config{CacheDir: t.TempDir()})
	cache := verify.NewResultCache(3, 1<<20)
	v := verify.New(dbs, shopTasks(), verify.Config{Cache: cache})
	for i := 0; i < 10; i++ {
		v.VerifyBatch(ctx, []verify.Answer{{TaskID: "orders", SQL: fmt.Sprintf("SELECT %d", i)}})
	}
	st := cache.Stats()
	if st.Entries != 3 || st.Evictions != 7 {
		t.Fatalf("entry bound 3: %+v", st)
	}
	v.VerifyBatch(ctx, []verify.Answer{{TaskID: "orders", SQL: "SELECT 9"}}) // most recent: kept
	v.VerifyBatch(ctx, []verify.Answer{{TaskID: "orders", SQL: "SELECT 0"}}) // oldest: gone
	if dbs.calls["SELECT 9"] != 1 || dbs.calls["SELECT 0"] != 2 {
		t.Fatalf("LRU order: SELECT 9 ran %d times, SELECT 0 %d", dbs.calls["SELECT 9"], dbs.calls["SELECT 0"])
	}

	// The byte bound: results bigger than the whole cache are not kept,
	// and the total never passes the bound.
	small := verify.NewResultCache(1000, 2000)
	v = verify.New(dbs, shopTasks(), verify.Config{Cache: small})
	v.VerifyBatch(ctx, []verify.Answer{{TaskID: "orders", SQL: "SELECT * FROM order_items"}})
	for i := 0; i < 20; i++ {
		v.VerifyBatch(ctx, []verify.Answer{{TaskID: "orders", SQL: fmt.Sprintf("SELECT %d AS x", i)}})
	}
	if st := small.Stats(); st.Bytes > 2000 || st.Entries == 0 || st.Entries >= 20 {
		t.Fatalf("byte bound 2000: %+v", st)
	}
}

// A wall-clock timeout depends on the machine's load: it is never served
// from the cache.
func TestResultCacheSkipsTimeouts(t *testing.T) {
	ctx := context.Background()
	dbs := newCounting(t, catalog.Config{CacheDir: t.TempDir()})
	cache := verify.NewResultCache(100, 1<<20)
	v := verify.New(dbs, shopTasks(), verify.Config{Cache: cache, Limits: sqlgym.Limits{VMSteps: -1, Timeout: 50 * time.Millisecond}})
	slow := "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) SELECT count(*) FROM c"
	for i := 0; i < 2; i++ {
		r := v.VerifyBatch(ctx, []verify.Answer{{TaskID: "orders", SQL: slow}})
		if r[0].Outcome != sqlgym.OutcomeTimeout {
			t.Fatalf("outcome %s (%s), want timeout (wall clock)", r[0].Outcome, r[0].Detail)
		}
	}
	if dbs.calls[slow] != 2 || cache.Stats().Entries != 0 {
		t.Fatalf("timeout ran %d times, cache %+v", dbs.calls[slow], cache.Stats())
	}
}

func total(calls map[string]int) int {
	n := 0
	for _, c := range calls {
		n += c
	}
	return n
}
