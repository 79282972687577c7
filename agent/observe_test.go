package agent

import (
	"context"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/verify"
)

func runSQL(sql string) Reply {
	return Reply{ToolCalls: []sqlgym.ToolCall{{ID: "c1", Name: ToolRunSQL, Arguments: args("sql", sql)}}}
}

func stepObs(t *testing.T, ep *Episode, r Reply) string {
	t.Helper()
	res, err := ep.Step(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Observations) == 0 {
		t.Fatal("no observation")
	}
	return res.Observations[len(res.Observations)-1].Content
}

func TestRunSQLShowsFirstRowsWithinLimit(t *testing.T) {
	env := newEnv(t, Config{MaxTurns: 10, MaxObservation: 600}, verify.Config{})
	ep := start(t, env, taskDelivered)

	obs := stepObs(t, ep, runSQL("SELECT order_id, status FROM orders ORDER BY order_id"))
	if !strings.HasPrefix(obs, "300 rows; the first 20:\norder_id | status\n1 | ") {
		t.Errorf("header: %q", obs)
	}
	if lines := strings.Count(obs, "\n"); lines != 21 {
		t.Errorf("%d lines, want header, columns and 20 rows: %q", lines, obs)
	}

	// Long rows hit the byte limit before 20 rows; the cut is announced.
	obs = stepObs(t, ep, runSQL("SELECT order_id, email, email, email, email FROM orders JOIN customers USING (customer_id) ORDER BY order_id"))
	if len(obs) > 600 || !strings.Contains(obs, "more rows not shown: the observation is limited to 600 bytes") {
		t.Errorf("%d bytes: %q", len(obs), obs)
	}

	obs = stepObs(t, ep, runSQL("SELECT * FROM orders WHERE status = 'nope'"))
	if !strings.HasPrefix(obs, "The query ran and returned no rows (columns: order_id, customer_id") {
		t.Errorf("empty result: %q", obs)
	}
	obs = stepObs(t, ep, runSQL("DELETE FROM orders"))
	if !strings.HasPrefix(obs, "Error: ") {
		t.Errorf("a write must be refused by the sandbox: %q", obs)
	}
	qs := ep.Queries()
	if len(qs) != 4 || qs[0].Rows != 300 || !qs[2].Ran() || qs[2].Rows != 0 || qs[3].Ran() {
		t.Errorf("queries = %+v", qs)
	}
}

func TestRunSQLUsesVerifierLimits(t *testing.T) {
	// A small deterministic step budget: the same limit the verifier
	// would stop the query at.
	env := newEnv(t, Config{}, verify.Config{Limits: sqlgym.Limits{VMSteps: 5000}})
	ep := start(t, env, taskDelivered)
	obs := stepObs(t, ep, runSQL("SELECT COUNT(*) FROM orders a, orders b, orders c"))
	if !strings.Contains(obs, "stopped at the time limit") {
		t.Errorf("observation = %q", obs)
	}
	// The verifier judges a submission of the same query as a timeout.
	res, err := ep.Step(context.Background(), Reply{ToolCalls: []sqlgym.ToolCall{{Name: ToolSubmit, Arguments: args("sql", "SELECT COUNT(*) FROM orders a, orders b, orders c")}}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Done || res.Result.Outcome != sqlgym.OutcomeTimeout {
		t.Errorf("result = %+v", res.Result)
	}
	if st := ep.Stats(); st.CrashFixed {
		t.Error("a submission that did not run fixed no crash")
	}
	if _, err := ep.Step(context.Background(), runSQL("SELECT 1")); err != ErrDone {
		t.Errorf("step after the end: %v, want ErrDone", err)
	}
}

func TestDescribeTable(t *testing.T) {
	env := newEnv(t, Config{DescribeRows: 2}, verify.Config{})
	ep := start(t, env, taskDelivered)
	obs := stepObs(t, ep, Reply{ToolCalls: []sqlgym.ToolCall{{Name: ToolDescribeTable, Arguments: args("name", "ORDER_ITEMS")}}})
	for _, want := range []string{"table order_items (", "  quantity INTEGER NOT NULL", "primary key: order_item_id",
		"foreign key: order_id -> orders(order_id)", "first 2 rows:\norder_item_id | order_id"} {
		if !strings.Contains(obs, want) {
			t.Errorf("describe_table lacks %q:\n%s", want, obs)
		}
	}
	if st := ep.Stats(); st.Queries != 0 || st.BrokenCalls != 0 {
		t.Errorf("describing is not a query nor a broken call: %+v", st)
	}
}

func TestDatabaseOutageIsInfraError(t *testing.T) {
	cat := shopCatalog(t)
	tasks := []sqlgym.Task{taskDelivered}
	env, err := NewEnv(verify.New(cat, tasks, verify.Config{}), cat, nil, Config{})
	if err != nil {
		t.Fatal(err)
	}
	ep := start(t, env, taskDelivered)
	cat.Close()
	res, err := ep.Step(context.Background(), runSQL(goodDelivered))
	if err != nil {
		t.Fatal(err)
	}
	if !res.Done || res.Result.Outcome != sqlgym.OutcomeInfraError || res.Result.Reward != nil {
		t.Fatalf("result = %+v, want infra_error without reward", res.Result)
	}
}

func TestStopJudgesAsEndOfTurns(t *testing.T) {
	env := newEnv(t, Config{SubmitLast: true}, verify.Config{})
	ep := start(t, env, taskDelivered)
	stepObs(t, ep, runSQL(wrongDelivered))
	r := ep.Stop(context.Background())
	if r.Outcome != sqlgym.OutcomeWrong || r.SQL != wrongDelivered || !ep.Done() {
		t.Errorf("stop: %+v", r)
	}
}

func TestParseText(t *testing.T) {
	a := parseText(visibleText("<think>x</think> <SQL>SELECT 1</SQL> and <sql>SELECT 2;</sql> <solution>SELECT 3</solution><solution>SELECT 4"))
	if len(a.runs) != 2 || a.runs[0] != "SELECT 1" || a.runs[1] != "SELECT 2" || !a.submitted || a.solution != "SELECT 4" {
		t.Errorf("parse = %+v", a)
	}
	if a := parseText(visibleText("I should write <sql> tags </think> no action")); a.submitted || len(a.runs) != 0 {
		t.Errorf("text before a lone </think> is reasoning: %+v", a)
	}
}

func TestDefaultTemplatesRender(t *testing.T) {
	for _, p := range []Protocol{ProtocolTools, ProtocolText} {
		pr, err := DefaultTemplate(p).Render(promptInput())
		if err != nil || len(pr.Messages) != 2 || !strings.Contains(pr.Messages[1].Content, "Question: How many") {
			t.Errorf("%s: %v %+v", p, err, pr)
		}
	}
	if _, err := ParseProtocol("json"); err == nil {
		t.Error("protocol json accepted")
	}
}
