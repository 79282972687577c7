package verify_test

import (
	"context"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/catalog"
	"github.com/sqlgym/sqlgym/internal/redteam"
	"github.com/sqlgym/sqlgym/internal/testenv"
	"github.com/sqlgym/sqlgym/verify"
)

// redteamSQLiteAnswer reads the one answer of a SQLite cost reproduction
// in ../shared/redteam (its README): task `t`, gold count(*) of orders on
// the built-in shop database.
func redteamSQLiteAnswer(t *testing.T, file string) verify.Answer {
	t.Helper()
	as, err := redteam.ReadFile(testenv.RedTeamFile(t, file))
	if err != nil {
		t.Fatal(err)
	}
	return verify.Answer{TaskID: as[0].TaskID, SQL: as[0].SQL}
}

var redteamShopTask = []sqlgym.Task{{ID: "t", DB: "shop", SQL: "SELECT count(*) FROM orders"}}

// replaySQLiteCost verifies the reproduction under lim and checks that it
// is the model's verdict want, decided in one run: no infrastructure
// retry, which a safety-net stop would have caused.
func replaySQLiteCost(t *testing.T, file string, lim sqlgym.Limits, want sqlgym.Outcome) verify.Result {
	t.Helper()
	a := redteamSQLiteAnswer(t, file)
	dbs := newCounting(t, catalog.Config{CacheDir: t.TempDir()})
	v := verify.New(dbs, redteamShopTask, verify.Config{Limits: lim})
	r := v.VerifyBatch(context.Background(), []verify.Answer{a})[0]
	if r.Outcome != want || r.Reward == nil || *r.Reward != 0 {
		t.Fatalf("%s: got %s reward %v (%s), want %s reward 0", file, r.Outcome, fmtp(r.Reward), r.Detail, want)
	}
	if n := dbs.calls[a.SQL]; n != 1 {
		t.Errorf("%s ran %d times, want once: a verdict of the model's needs no retry", file, n)
	}
	return r
}

// r2: hex(randomblob(8000000)) per row of an endless recursive CTE. Its
// bytes are charged, so it is the model's timeout at the step budget; it
// used to reach only the wall-clock safety net, three times (951 s), and
// end as infra_error. A budget of 2e7 keeps this fast; the next test runs
// the default budget.
func TestRedteamSQLiteHeavyFunctionIsTimeout(t *testing.T) {
	replaySQLiteCost(t, "r2_sqlite_safetynet.jsonl", sqlgym.Limits{VMSteps: 20_000_000}, sqlgym.OutcomeTimeout)
}

func TestRedteamSQLiteHeavyFunctionDefaultBudget(t *testing.T) {
	testenv.Slow(t, "r2 under the default step budget: ~7-13 s of CPU")
	replaySQLiteCost(t, "r2_sqlite_safetynet.jsonl", sqlgym.Limits{}, sqlgym.OutcomeTimeout)
}

// r4: count(DISTINCT randomblob(64)) over 30 M rows. Its temporary b-tree
// is charged to its budget and held against its share of the heap, so it
// ends as the model's own verdict (timeout or out of memory, whichever
// comes first, the same on every run), never with a re-run holding a
// process-wide lock.
func TestRedteamSQLiteOutOfMemoryRerun(t *testing.T) {
	testenv.Slow(t, "r4 under the default limits: ~5-10 s of CPU")
	a := redteamSQLiteAnswer(t, "r4_sqlite_oom_rerun.jsonl")
	dbs := newCounting(t, catalog.Config{CacheDir: t.TempDir()})
	v := verify.New(dbs, redteamShopTask, verify.Config{})
	r := v.VerifyBatch(context.Background(), []verify.Answer{a})[0]
	if (r.Outcome != sqlgym.OutcomeTimeout && r.Outcome != sqlgym.OutcomeError) || r.Reward == nil {
		t.Fatalf("r4: got %s reward %v (%s), want the model's timeout or error", r.Outcome, fmtp(r.Reward), r.Detail)
	}
	if n := dbs.calls[a.SQL]; n != 1 {
		t.Errorf("r4 ran %d times, want once", n)
	}
	t.Logf("r4: %s (%s)", r.Outcome, r.Detail)
}

// Numeric conversion of a 4 MB text held in a register, per row of an
// endless CTE: work the step budget cannot count. It used to run to the
// wall-clock safety net (an infra_error, retried, never scored); the
// thread-CPU cap of its budget makes it the model's timeout in one run.
// A budget of 1e7 steps keeps the cap at 0.45 s of CPU.
func TestUnchargedSQLiteWorkIsTimeout(t *testing.T) {
	sql := `WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r) SELECT sum(CASE WHEN i > 0 THEN printf('%.*c', 4000000, ' ') END + 0) FROM r`
	dbs := newCounting(t, catalog.Config{CacheDir: t.TempDir()})
	v := verify.New(dbs, redteamShopTask, verify.Config{Limits: sqlgym.Limits{VMSteps: 10_000_000, SafetyNet: 3 * time.Minute}})
	r := v.VerifyBatch(context.Background(), []verify.Answer{{TaskID: "t", SQL: sql}})[0]
	if r.Outcome != sqlgym.OutcomeTimeout || r.Reward == nil || *r.Reward != 0 {
		t.Fatalf("got %s reward %v (%s), want the model's timeout, reward 0", r.Outcome, fmtp(r.Reward), r.Detail)
	}
	// The model's verdict: no infrastructure retry.
	if n := dbs.calls[sql]; n != 1 {
		t.Errorf("ran %d times, want once", n)
	}
}
