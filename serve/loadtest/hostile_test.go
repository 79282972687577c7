package loadtest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/serve"
	"github.com/sqlgym/sqlgym/verify"
)

// A small hostile run on the built-in SQLite shop: 12 answers that each
// spend a step budget (about 0.05 s apiece on an idle core), three at a time, while
// honest one-answer requests are timed. Every honest request is answered
// with the reward it gets alone, and the hostile request's answers are
// reported. How long the honest requests waited is the report's figure
// (`sqlgym-bench serve --hostile`, docs/deploy.md), not asserted here: a
// loaded machine stretches it. The deadline is generous for the same
// reason, so an honest request on a starved machine is still answered.
func TestRunHostileSmall(t *testing.T) {
	var items []serve.Item
	for i := 0; i < 12; i++ {
		sql := fmt.Sprintf("WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM r) SELECT count(*) + %d FROM r", i)
		items = append(items, serve.Item{TaskID: "t", SQL: &sql})
	}
	rep, err := RunHostile(context.Background(), HostileConfig{
		Hostile:      items,
		HostileTasks: []sqlgym.Task{{ID: "t", DB: "shop", SQL: "SELECT count(*) FROM orders", Split: sqlgym.SplitTrain}},
		Baseline:     5, HonestEvery: 50 * time.Millisecond,
		Server: serve.Config{DBSlots: 4, Deadline: 10 * time.Second,
			Verify: verify.Config{Limits: sqlgym.Limits{VMSteps: 5_000_000}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Alone.Requests != 5 || rep.Honest.Requests == 0 || rep.HonestFailed != 0 || rep.HonestUnlike != 0 {
		t.Fatalf("honest requests: %+v alone, %+v beside, %d failed, %d unlike alone", rep.Alone, rep.Honest, rep.HonestFailed, rep.HonestUnlike)
	}
	h := rep.HostileRuns[0]
	if rep.Hostile.Requests != 1 || h.Status != 200 || h.Outcomes["timeout"]+h.Outcomes["unscored"] != len(items) {
		t.Fatalf("hostile request: %+v (%s)", h, h.Error)
	}
	t.Logf("honest alone %+v, beside %+v; hostile %s in %.1f s", rep.Alone, rep.Honest, h.OutcomeList(), h.Seconds)
}
