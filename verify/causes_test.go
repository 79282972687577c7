package verify_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"golang.org/x/sync/semaphore"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/catalog"
	"github.com/sqlgym/sqlgym/verify"
)

func safetyNet(int) error { return &sqlgym.InfraError{Err: sqlgym.ErrSafetyNet} }

// SQLite's wall-clock safety net says the machine was too busy, nothing
// about the SQL: the statement is tried again, and when every try fails
// the answer is infra_error without reward, remembered nowhere.
func TestSafetyNetIsRetriedNeverScoredNeverCached(t *testing.T) {
	dbs := newCounting(t, catalog.Config{CacheDir: t.TempDir()})
	cache := verify.NewResultCache(100, 1<<20)
	v := verify.New(dbs, shopTasks(), verify.Config{Cache: cache, InfraRetries: 2})
	ctx := context.Background()
	dbs.faults = map[string]func(int) error{
		"SELECT 7": safetyNet,
		// Two stops, then the machine is quiet again: the third try runs.
		"SELECT 2000": func(n int) error {
			if n <= 2 {
				return safetyNet(n)
			}
			return nil
		},
	}
	res := v.VerifyBatch(ctx, []verify.Answer{{TaskID: "orders", SQL: "SELECT 7"}, {TaskID: "orders", SQL: "SELECT 2000"}})
	r := res[0]
	if r.Outcome != sqlgym.OutcomeInfraError || r.Reward != nil {
		t.Fatalf("safety net every time: %s reward %v, want infra_error without reward", r.Outcome, fmtp(r.Reward))
	}
	for _, want := range []string{"infrastructure failure, not scored", "tried 3 times", "safety net"} {
		if !strings.Contains(r.Detail, want) {
			t.Errorf("detail %q does not say %q", r.Detail, want)
		}
	}
	if n := dbs.calls["SELECT 7"]; n != 3 {
		t.Errorf("ran %d times, want 3 (InfraRetries 2)", n)
	}
	if r := res[1]; r.Outcome != sqlgym.OutcomeWrong && r.Outcome != sqlgym.OutcomeCorrect {
		t.Errorf("safety net twice, then a quiet machine: %s (%s), want a verdict", r.Outcome, r.Detail)
	}
	v.VerifyBatch(ctx, []verify.Answer{{TaskID: "orders", SQL: "SELECT 7"}})
	if n := dbs.calls["SELECT 7"]; n != 6 {
		t.Errorf("after a second batch it ran %d times in all, want 6: an infra outcome was cached", n)
	}
}

// A spent step budget is the statement's own, whatever the load: it is
// cached like rows. A wall-clock timeout is not (TestResultCacheSkipsTimeouts).
func TestStepBudgetTimeoutIsCached(t *testing.T) {
	dbs := newCounting(t, catalog.Config{CacheDir: t.TempDir()})
	cache := verify.NewResultCache(100, 1<<20)
	v := verify.New(dbs, shopTasks(), verify.Config{Cache: cache})
	dbs.faults = map[string]func(int) error{"SELECT 8": func(int) error {
		return fmt.Errorf("sqlite: %w: %w (2000 steps)", sqlgym.ErrTimeout, sqlgym.ErrStepBudget)
	}}
	ctx := context.Background()
	for i := 0; i < 2; i++ {
		r := v.Verify(ctx, verify.Answer{TaskID: "orders", SQL: "SELECT 8"})
		if r.Outcome != sqlgym.OutcomeTimeout || r.Reward == nil || *r.Reward != 0 {
			t.Fatalf("budget spent: %s reward %v, want timeout 0", r.Outcome, fmtp(r.Reward))
		}
	}
	if n := dbs.calls["SELECT 8"]; n != 1 {
		t.Fatalf("ran %d times over two batches, want 1: a spent step budget is cacheable", n)
	}
}

// The same on the real engine, which reports the budget as the contract
// says (sqlgym.ErrStepBudget): a break of that contract fails here.
func TestStepBudgetTimeoutIsCachedOnSQLite(t *testing.T) {
	dbs := newCounting(t, catalog.Config{CacheDir: t.TempDir()})
	cache := verify.NewResultCache(100, 1<<20)
	v := verify.New(dbs, shopTasks(), verify.Config{Cache: cache, Limits: sqlgym.Limits{VMSteps: 100_000, Timeout: time.Minute}})
	ctx := context.Background()
	slow := countTo(1_000_000)
	eng, err := dbs.Engine(ctx, "shop")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := eng.Query(ctx, slow, sqlgym.Limits{VMSteps: 100_000}); !errors.Is(err, sqlgym.ErrStepBudget) {
		t.Fatalf("the SQLite engine must report a spent step budget as sqlgym.ErrStepBudget (the engine contract), got %v", err)
	}
	for i := 0; i < 2; i++ {
		if r := v.Verify(ctx, verify.Answer{TaskID: "orders", SQL: slow}); r.Outcome != sqlgym.OutcomeTimeout {
			t.Fatalf("%s (%s), want timeout", r.Outcome, r.Detail)
		}
	}
	if n := dbs.calls[slow]; n != 1 {
		t.Fatalf("ran %d times over two batches, want 1", n)
	}
}

// A candidate cut short by the caller's deadline is nobody's verdict: no
// reward, not cached, and the next request judges it for real. (The old
// SQLite engine reports a caller's deadline as ErrTimeout; it must not
// become the model's timeout.)
func TestAbandonedCandidateIsNotJudgedNorCached(t *testing.T) {
	dbs := newCounting(t, catalog.Config{CacheDir: t.TempDir()})
	cache := verify.NewResultCache(100, 1<<20)
	tasks := []sqlgym.Task{{ID: "n", DB: "shop", SQL: "SELECT 1000"}}
	v := verify.New(dbs, tasks, verify.Config{Cache: cache})
	cand := countTo(1000)
	if r := v.Verify(context.Background(), verify.Answer{TaskID: "n", SQL: "SELECT 1000"}); r.Outcome != sqlgym.OutcomeCorrect {
		t.Fatalf("warm-up: %s %s", r.Outcome, r.Detail)
	}
	ctx := newExpiringCtx()
	// The deadline passes as the statement starts.
	dbs.faults = map[string]func(int) error{cand: func(n int) error {
		if n == 1 {
			ctx.expire()
		}
		return nil
	}}
	r := v.Verify(ctx, verify.Answer{TaskID: "n", SQL: cand})
	if r.Outcome != sqlgym.OutcomeInfraError || r.Reward != nil || !strings.Contains(r.Detail, "not judged") {
		t.Errorf("cut short by the caller: %s reward %v (%s), want infra_error without reward", r.Outcome, fmtp(r.Reward), r.Detail)
	}
	if st := cache.Stats(); st.Entries != 0 {
		t.Errorf("cache %+v after an abandoned statement, want it empty", st)
	}
	if r := v.Verify(context.Background(), verify.Answer{TaskID: "n", SQL: cand}); r.Outcome != sqlgym.OutcomeCorrect {
		t.Errorf("next request: %s (%s), want correct", r.Outcome, r.Detail)
	}
}

// A gold that meets an outage is not kept: the next batch runs it again.
func TestGoldOutageIsNotKept(t *testing.T) {
	dbs := newCounting(t, catalog.Config{CacheDir: t.TempDir()})
	v := verify.New(dbs, shopTasks(), verify.Config{InfraRetries: 1})
	dbs.faults = map[string]func(int) error{"SELECT count(*) FROM orders": func(n int) error {
		if n <= 2 {
			return safetyNet(n)
		}
		return nil
	}}
	ctx := context.Background()
	a := verify.Answer{TaskID: "orders", SQL: "SELECT count(*) FROM customers"}
	if r := v.Verify(ctx, a); r.Outcome != sqlgym.OutcomeInfraError || r.Reward != nil || !strings.HasPrefix(r.Detail, "gold: ") {
		t.Fatalf("gold during an outage: %s reward %v (%s), want infra_error", r.Outcome, fmtp(r.Reward), r.Detail)
	}
	if r := v.Verify(ctx, a); r.Outcome != sqlgym.OutcomeWrong {
		t.Fatalf("after the outage: %s (%s), want wrong: the outage was kept as the gold's outcome", r.Outcome, r.Detail)
	}
}

// An answer that matches no gold that ran is not judged wrong while
// another gold of its task could not run for want of the database: that
// gold might have been the one it matches.
func TestAlternativeGoldOutageIsNotJudgedWrong(t *testing.T) {
	dbs := newCounting(t, catalog.Config{CacheDir: t.TempDir()})
	task := sqlgym.Task{ID: "alt", DB: "shop", SQL: "SELECT 1 AS x", Alternatives: []string{"SELECT 2 AS x"}}
	v := verify.New(dbs, []sqlgym.Task{task}, verify.Config{InfraRetries: -1})
	dbs.faults = map[string]func(int) error{"SELECT 2 AS x": safetyNet}
	ctx := context.Background()
	r := v.Verify(ctx, verify.Answer{TaskID: "alt", SQL: "SELECT 1 + 1 AS x"})
	if r.Outcome != sqlgym.OutcomeInfraError || r.Reward != nil {
		t.Fatalf("the matching gold could not run: %s reward %v (%s), want infra_error without reward", r.Outcome, fmtp(r.Reward), r.Detail)
	}
	// A match on the gold that ran is still a match.
	if r := v.Verify(ctx, verify.Answer{TaskID: "alt", SQL: "SELECT 0 + 1 AS x"}); r.Outcome != sqlgym.OutcomeCorrect {
		t.Fatalf("matches the gold that ran: %s (%s), want correct", r.Outcome, r.Detail)
	}
	// Once the database is back, the same answer is judged on both.
	dbs.faults = nil
	if r := v.Verify(ctx, verify.Answer{TaskID: "alt", SQL: "SELECT 1 + 1 AS x"}); r.Outcome != sqlgym.OutcomeCorrect {
		t.Fatalf("after the outage: %s (%s), want correct", r.Outcome, r.Detail)
	}
}

// Gold runs are detached from the request that starts them, so they take
// a slot of Config.GoldRuns: requests abandoned over many distinct golds
// cannot leave more runs going than the bound.
func TestGoldRunsWaitForASlot(t *testing.T) {
	dbs := newCounting(t, catalog.Config{CacheDir: t.TempDir()})
	runs := semaphore.NewWeighted(1)
	v := verify.New(dbs, shopTasks(), verify.Config{GoldRuns: runs})
	if err := runs.Acquire(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	gold := shopTasks()[0]
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	r := v.Verify(ctx, verify.Answer{TaskID: gold.ID, SQL: "SELECT 1"})
	if r.Outcome != sqlgym.OutcomeInfraError || r.Reward != nil {
		t.Fatalf("every gold slot taken: %s (%s), want infra_error (not judged)", r.Outcome, r.Detail)
	}
	if n := dbs.calls[gold.SQL]; n != 0 {
		t.Fatalf("the gold ran %d times without a slot", n)
	}
	runs.Release(1)
	// The waiting run takes the slot once it is free and finishes for the
	// next request.
	if r := v.Verify(context.Background(), verify.Answer{TaskID: gold.ID, SQL: gold.SQL}); r.Outcome != sqlgym.OutcomeCorrect {
		t.Fatalf("with a free slot: %s (%s), want correct", r.Outcome, r.Detail)
	}
}

// An engine that sees the caller's deadline before the context does
// (SQLite's C handler reads the clock itself, a moment ahead of the
// context's timer) reports the context's error: the answer is not judged
// (unscored in serve), neither retried nor reported as an outage.
func TestEngineSeesTheCallersDeadlineFirst(t *testing.T) {
	dbs := newCounting(t, catalog.Config{CacheDir: t.TempDir()})
	v := verify.New(dbs, shopTasks(), verify.Config{InfraRetries: 2})
	dbs.faults = map[string]func(int) error{"SELECT 7": func(int) error {
		return fmt.Errorf("sqlite: statement abandoned by the caller: %w", context.DeadlineExceeded)
	}}
	r := v.Verify(context.Background(), verify.Answer{TaskID: "orders", SQL: "SELECT 7"})
	if r.Outcome != sqlgym.OutcomeInfraError || r.Reward != nil || !r.Abandoned || !strings.Contains(r.Detail, "not judged") {
		t.Errorf("deadline seen by the engine first: %s reward %v abandoned %v (%s), want not judged", r.Outcome, fmtp(r.Reward), r.Abandoned, r.Detail)
	}
	if n := dbs.calls["SELECT 7"]; n != 1 {
		t.Errorf("ran %d times, want once: an abandoned statement is not an outage to retry", n)
	}
}
