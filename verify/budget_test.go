package verify_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/catalog"
	"github.com/sqlgym/sqlgym/verify"
)

// A batch whose candidates' results would not fit in the byte budget at
// once still completes, holding at most the budget: each result is judged
// as it arrives and dropped.
func TestBatchStaysWithinByteBudget(t *testing.T) {
	dbs := newCounting(t, catalog.Config{CacheDir: t.TempDir()})
	const (
		value  = 200_000 // bytes of the one value each candidate returns
		n      = 30
		budget = 1 << 20
	)
	b := verify.NewByteBudget(budget)
	v := verify.New(dbs, shopTasks(), verify.Config{Budget: b, Concurrency: 8,
		Limits: sqlgym.Limits{MaxBytes: 256 << 10}, Previews: 2})
	var answers []verify.Answer
	for i := 0; i < n; i++ {
		answers = append(answers, verify.Answer{TaskID: "orders", Sample: i, SQL: fmt.Sprintf("SELECT printf('%%0%dd', %d) AS v", value, i)})
	}
	for _, r := range v.VerifyBatch(context.Background(), answers) {
		if r.Outcome != sqlgym.OutcomeWrong {
			t.Fatalf("sample %d: %s (%s), want wrong", r.Sample, r.Outcome, r.Detail)
		}
		if r.PredPreview == nil || len(r.PredPreview.Rows) != 1 || len(r.PredPreview.Rows[0][0]) != value {
			t.Fatalf("sample %d: the preview did not survive dropping the rows: %+v", r.Sample, r.PredPreview)
		}
	}
	st := b.Stats()
	t.Logf("%d results of %d bytes, budget %d: %+v", n, value, budget, st)
	if st.PeakHeld > budget || st.Peak > budget {
		t.Errorf("peak held %d, peak taken %d: over the budget of %d", st.PeakHeld, st.Peak, budget)
	}
	if st.PeakHeld < value || st.PeakHeld >= n*value {
		t.Errorf("peak held %d: want at least one result (%d) and less than all of them (%d)", st.PeakHeld, value, n*value)
	}
	if st.Held != 0 || st.Taken != 0 {
		t.Errorf("after the batch: %+v, want nothing held or taken", st)
	}
}
