package verify_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/catalog"
	"github.com/sqlgym/sqlgym/verify"
)

// countTo is a gold that takes work proportional to n and returns n.
func countTo(n int) string {
	return fmt.Sprintf("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x < %d) SELECT count(*) FROM c", n)
}

// expiringCtx is a request context whose deadline passes when the test
// says, so a test can have it pass while a statement runs without racing
// a clock.
type expiringCtx struct {
	context.Context
	done chan struct{}
	once sync.Once
}

func newExpiringCtx() *expiringCtx {
	return &expiringCtx{Context: context.Background(), done: make(chan struct{})}
}

func (c *expiringCtx) Deadline() (time.Time, bool) { return time.Now().Add(time.Hour), true }
func (c *expiringCtx) Done() <-chan struct{}       { return c.done }
func (c *expiringCtx) Err() error {
	select {
	case <-c.done:
		return context.DeadlineExceeded
	default:
		return nil
	}
}
func (c *expiringCtx) expire() { c.once.Do(func() { close(c.done) }) }

// A request's deadline must not decide a gold: the deadline passes while
// the gold runs, the request gives up waiting, the gold's run goes on, and
// a later request without a deadline scores against it.
func TestGoldOutlivesTheRequestDeadline(t *testing.T) {
	dbs := newCounting(t, catalog.Config{CacheDir: t.TempDir()})
	gold := countTo(1000)
	tasks := []sqlgym.Task{{ID: "n", DB: "shop", SQL: gold}, {ID: "warm", DB: "shop", SQL: "SELECT 1"}}
	v := verify.New(dbs, tasks, verify.Config{})
	answer := verify.Answer{TaskID: "n", SQL: "SELECT 1000"}
	// The database is open, as in a server that has been up for a while.
	if r := v.Verify(context.Background(), verify.Answer{TaskID: "warm", SQL: "SELECT 1"}); r.Outcome != sqlgym.OutcomeCorrect {
		t.Fatalf("warm-up: %s %s", r.Outcome, r.Detail)
	}
	ctx := newExpiringCtx()
	firstDone := make(chan struct{})
	dbs.faults = map[string]func(int) error{gold: func(n int) error {
		if n == 1 {
			// The deadline passes as the gold starts, and the gold is
			// still running when the request gives up. (Before golds had
			// their own context this ran on the request's goroutine:
			// then the wait ends on the bound, not on firstDone.)
			ctx.expire()
			select {
			case <-firstDone:
			case <-time.After(5 * time.Second):
			}
		}
		return nil
	}}
	r := v.Verify(ctx, answer)
	close(firstDone)
	if r.Outcome != sqlgym.OutcomeInfraError || r.Reward != nil || !strings.Contains(r.Detail, "not judged") {
		t.Errorf("request past its deadline: %s reward %v (%s), want infra_error without reward, not judged", r.Outcome, fmtp(r.Reward), r.Detail)
	}
	r = v.Verify(context.Background(), answer)
	if r.Outcome != sqlgym.OutcomeCorrect {
		t.Fatalf("next request: %s (%s), want correct: the first request's deadline poisoned the gold", r.Outcome, r.Detail)
	}
	if n := dbs.calls[gold]; n != 1 {
		t.Errorf("the gold ran %d times, want 1: the run the first request left is the one the second used", n)
	}
}

// Golds run under the candidates' limits scaled by sqlgym.GoldFactor: a
// gold over the candidates' step budget but within its own is judged on.
func TestGoldRunsUnderGoldLimits(t *testing.T) {
	dbs := newCounting(t, catalog.Config{CacheDir: t.TempDir()})
	// countTo(100_000) needs a few million VM steps; countTo(1_000_000)
	// tens of millions.
	tasks := []sqlgym.Task{
		{ID: "fits", DB: "shop", SQL: countTo(100_000)},
		{ID: "over", DB: "shop", SQL: countTo(1_000_000)},
	}
	v := verify.New(dbs, tasks, verify.Config{Limits: sqlgym.Limits{VMSteps: 1_000_000, Timeout: time.Minute}})
	ctx := context.Background()
	res := v.VerifyBatch(ctx, []verify.Answer{
		{TaskID: "fits", SQL: "SELECT 100000"},
		{TaskID: "fits", SQL: countTo(100_000) + " -- the gold's own text, over the candidates' budget"},
		{TaskID: "fits", SQL: strings.Replace(countTo(100_000), "x < ", "x <= ", 1)},
		{TaskID: "over", SQL: "SELECT 1000000"},
	})
	if r := res[0]; r.Outcome != sqlgym.OutcomeCorrect {
		t.Errorf("gold within its own limits: %s (%s), want correct", r.Outcome, r.Detail)
	}
	// An answer that is the gold's text is the gold: judged on its result.
	if r := res[1]; r.Outcome != sqlgym.OutcomeCorrect {
		t.Errorf("the gold's own text: %s (%s), want correct", r.Outcome, r.Detail)
	}
	// Any other text runs under the candidates' limits.
	if r := res[2]; r.Outcome != sqlgym.OutcomeTimeout {
		t.Errorf("a candidate over the candidates' budget: %s (%s), want timeout", r.Outcome, r.Detail)
	}
	if r := res[3]; r.Outcome != sqlgym.OutcomeGoldError || r.Reward != nil || !strings.Contains(r.Detail, "gold query over its own limits") || !strings.Contains(r.Detail, "step budget") {
		t.Errorf("gold over its own limits: %s reward %v (%s), want gold_error saying which limit", r.Outcome, fmtp(r.Reward), r.Detail)
	}
}
