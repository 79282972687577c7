package verify_test

import (
	"context"
	"testing"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/catalog"
	"github.com/sqlgym/sqlgym/verify"
)

const shippedGold = "SELECT order_id, status FROM orders WHERE status = 'shipped'"

func componentVerifier(t *testing.T) *verify.Verifier {
	t.Helper()
	dbs := newCounting(t, catalog.Config{CacheDir: t.TempDir()})
	return verify.New(dbs, []sqlgym.Task{{ID: "shipped", DB: "shop", SQL: shippedGold}}, verify.Config{Components: true})
}

// Every answer of this group is wrong, so the outcome reward cannot tell
// them apart (GRPO would learn nothing); the components rank every near
// miss above every piece of nonsense.
func TestComponentsSeparateNearMissesFromNonsense(t *testing.T) {
	v := componentVerifier(t)
	near := []string{
		"SELECT order_id, status FROM orders WHERE status IN ('shipped', 'delivered')", // extra rows
		"SELECT order_id FROM orders WHERE status = 'shipped'",                         // a column short
		"SELECT order_id, status FROM orders WHERE status = 'shipped' LIMIT 2",         // rows short
	}
	nonsense := []string{
		"SELECT 1",
		"SELECT name, price FROM products",
		"SELECT order_id, status FROM ordrs WHERE status = 'shipped'", // does not run
		"I cannot answer that.",
	}
	var answers []verify.Answer
	for _, s := range append(append([]string{}, near...), nonsense...) {
		if s == "I cannot answer that." {
			answers = append(answers, verify.Answer{TaskID: "shipped", Completion: s})
			continue
		}
		answers = append(answers, verify.Answer{TaskID: "shipped", Completion: "```sql\n" + s + "\n```"})
	}
	res := v.VerifyBatch(context.Background(), answers)
	w, err := verify.ParseWeights("outcome=1,rows=0.3,cells=0.2,cardinality=0.1,schema=0.2,executes=0.1")
	if err != nil {
		t.Fatal(err)
	}
	score := make([]float64, len(res))
	for i, r := range res {
		if r.Outcome == sqlgym.OutcomeCorrect || r.Reward == nil {
			t.Fatalf("%q: %s, want a scored wrong answer", answers[i].Completion, r.Outcome)
		}
		if r.Components == nil {
			t.Fatalf("%q: no components", answers[i].Completion)
		}
		score[i] = *w.Combine(r.Reward, r.Components)
		t.Logf("%-90q %-8s reward %.2f weighted %.3f %v", answers[i].Completion, r.Outcome, *r.Reward, score[i], r.Components)
	}
	worstNear, bestNonsense := 10.0, -1.0
	for i := range near {
		worstNear = min(worstNear, score[i])
	}
	for i := range nonsense {
		bestNonsense = max(bestNonsense, score[len(near)+i])
	}
	if worstNear <= bestNonsense {
		t.Errorf("the worst near miss scored %.3f, the best nonsense %.3f: the components do not separate them", worstNear, bestNonsense)
	}
	// The outcome alone does not: the wrong answers that ran share one reward.
	if *res[0].Reward != *res[len(near)].Reward {
		t.Errorf("outcome rewards differ (%v, %v): the test no longer shows what it claims", *res[0].Reward, *res[len(near)].Reward)
	}
	// Spot checks of each component on the SQL and rows.
	c := res[0].Components
	if c[verify.CompRowRecall] != 1 || c[verify.CompRowPrecision] >= 1 || c[verify.CompSchema] != 1 || c[verify.CompExecutes] != 1 || c[verify.CompFormat] != 1 {
		t.Errorf("extra rows: %v, want recall 1, precision < 1, schema 1, executes 1, format 1", c)
	}
	if c := res[1].Components; c[verify.CompRows] != 0 || c[verify.CompCardinality] != 1 || c[verify.CompCellPrecision] != 1 || c[verify.CompSchema] != 1 {
		// It reads the same table and columns (status in WHERE): schema 1.
		t.Errorf("a column short: %v, want rows 0, cardinality 1, cell precision 1, schema 1", c)
	}
	if c := res[len(near)+1].Components; c[verify.CompSchema] != 0 || c[verify.CompCells] != 0 {
		t.Errorf("another table: %v, want schema 0, cells 0", c)
	}
	if c := res[len(near)+2].Components; c[verify.CompExecutes] != 0 || c[verify.CompRows] != 0 {
		t.Errorf("an answer that does not run: %v, want executes 0, rows 0", c)
	}
	if c := res[len(near)+3].Components; c[verify.CompFormat] != 0 || c[verify.CompSchema] != 0 {
		t.Errorf("no query: %v, want format 0, schema 0", c)
	}
}

func TestComponentsOfTheGoldAndOfRepeats(t *testing.T) {
	v := componentVerifier(t)
	res := v.VerifyBatch(context.Background(), []verify.Answer{
		{TaskID: "shipped", Completion: "```sql\n" + shippedGold + "\n```"},
		{TaskID: "shipped", Completion: shippedGold}, // the same SQL, found bare
		{TaskID: "shipped", SQL: shippedGold},
		{TaskID: "shipped", Completion: "```sql\nSELECT", FinishReason: "length"},
		{TaskID: "shipped", SQL: "SELECT o.order_id, o.status FROM orders o JOIN customers c ON c.customer_id = o.customer_id WHERE o.status = 'shipped'"},
	})
	// Right rows through a table the gold does not read: the schema overlap says so.
	if c := res[4].Components; res[4].Outcome != sqlgym.OutcomeCorrect || c[verify.CompRows] != 1 || c[verify.CompSchema] <= 0.2 || c[verify.CompSchema] >= 1 {
		t.Errorf("an extra join: %s %v, want correct, rows 1, 0.2 < schema < 1", res[4].Outcome, c)
	}
	for _, k := range []string{verify.CompOutcome, verify.CompRows, verify.CompCells, verify.CompCardinality, verify.CompSchema, verify.CompExecutes} {
		if res[0].Components[k] != 1 {
			t.Errorf("the gold's %s = %g, want 1", k, res[0].Components[k])
		}
	}
	// Answers with one SQL share a verdict, but where the reply put it is each one's own.
	if res[0].Components[verify.CompFormat] != 1 || res[1].Components[verify.CompFormat] != 0 || res[2].Components[verify.CompFormat] != 1 {
		t.Errorf("format: %v %v %v, want 1 0 1", res[0].Components[verify.CompFormat], res[1].Components[verify.CompFormat], res[2].Components[verify.CompFormat])
	}
	if res[3].Outcome != sqlgym.OutcomeTruncated || res[3].Components != nil {
		t.Errorf("a truncated reply: %s %v, want no components (nothing to learn from)", res[3].Outcome, res[3].Components)
	}
	// Off by default: the results carry none.
	plain := verify.New(newCounting(t, catalog.Config{CacheDir: t.TempDir()}), []sqlgym.Task{{ID: "shipped", DB: "shop", SQL: shippedGold}}, verify.Config{})
	if r := plain.Verify(context.Background(), verify.Answer{TaskID: "shipped", SQL: "SELECT 1"}); r.Components != nil {
		t.Errorf("components without Config.Components: %v", r.Components)
	}
}
