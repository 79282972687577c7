package agent

import (
	"context"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/model"
	"github.com/sqlgym/sqlgym/verify"
)

// play runs one episode of task against the scripted server.
func play(t *testing.T, env *Env, s *scripted, task sqlgym.Task) *Episode {
	t.Helper()
	ep := start(t, env, task)
	if err := Play(context.Background(), ep, s.actor(t)); err != nil {
		t.Fatalf("play: %v", err)
	}
	return ep
}

func TestToolsGoodEpisodeFixesACrash(t *testing.T) {
	env := newEnv(t, Config{Protocol: ProtocolTools}, verify.Config{})
	s := newScripted(t, func(turn int, _ chatBody) wireReply {
		switch turn {
		case 1:
			return wireReply{Content: "Let me look.", Calls: [][2]string{{"list_tables", "{}"}, {"describe_table", args("name", "orders")}}, Tokens: 30}
		case 2:
			return wireReply{Calls: [][2]string{{"run_sql", args("sql", crashDelivered)}}, Tokens: 20}
		case 3:
			return wireReply{Calls: [][2]string{{"run_sql", args("sql", goodDelivered)}}, Tokens: 20}
		default:
			return wireReply{Calls: [][2]string{{"submit", args("sql", goodDelivered)}}, Tokens: 20}
		}
	})
	ep := play(t, env, s, taskDelivered)
	r := ep.Result()
	if r.Outcome != sqlgym.OutcomeCorrect || r.Reward == nil || *r.Reward != 1 || r.SQL != goodDelivered {
		t.Fatalf("result = %+v, want correct with reward 1 for the submitted query", r)
	}
	st := ep.Stats()
	want := Stats{Turns: 4, Queries: 2, QueryErrors: 1, Submitted: true, CrashFixed: true, CompletionTokens: 90}
	if st != want {
		t.Errorf("stats = %+v, want %+v", st, want)
	}

	reqs := s.requests()
	if len(reqs) != 4 {
		t.Fatalf("%d model calls, want 4", len(reqs))
	}
	if len(reqs[0].Tools) != 4 || reqs[0].Tools[2].Function.Name != "run_sql" {
		t.Errorf("tools offered: %+v", reqs[0].Tools)
	}
	// Turn 2 saw one tool message per call of turn 1, naming its call.
	m := reqs[1].Messages
	last := m[len(m)-2:]
	if last[0].Role != "tool" || last[0].ToolCallID != "calla" || !strings.Contains(last[0].Content, "orders (300 rows)") {
		t.Errorf("list_tables observation = %+v", last[0])
	}
	if last[1].ToolCallID != "callb" || !strings.Contains(last[1].Content, "primary key: order_id") ||
		!strings.Contains(last[1].Content, "first 3 rows") {
		t.Errorf("describe_table observation = %q", last[1].Content)
	}
	// Turn 3 saw the database's error verbatim.
	m = reqs[2].Messages
	if obs := m[len(m)-1].Content; !strings.Contains(obs, "no such column: state") {
		t.Errorf("error observation = %q", obs)
	}
	// Turn 4 saw the rows, and that it was the last turn.
	m = reqs[3].Messages
	if obs := m[len(m)-1].Content; !strings.HasPrefix(obs, "1 row:\nCOUNT(*)\n") || !strings.Contains(obs, lastTurnText) {
		t.Errorf("rows observation = %q", obs)
	}

	rec := ep.Record()
	if rec.Outcome != sqlgym.OutcomeCorrect || rec.SQL != goodDelivered || rec.PromptHash == "" || rec.CompletionTokens != 90 {
		t.Errorf("record = %+v", rec)
	}
	// 4 assistant messages, 2+1+1+1 tool messages.
	if n := len(rec.Trajectory); n != 9 || rec.Trajectory[0].Role != "assistant" || len(rec.Trajectory[0].ToolCalls) != 2 {
		t.Errorf("trajectory has %d turns: %+v", n, rec.Trajectory)
	}
	if rec.Extra[ExtraCrashFixed] != true || rec.Extra[ExtraTurns] != 4 || rec.Extra[ExtraQueries] != 2 {
		t.Errorf("extra = %v", rec.Extra)
	}
}

func TestToolsBrokenCallsUseTurnsAndGetErrors(t *testing.T) {
	env := newEnv(t, Config{Protocol: ProtocolTools}, verify.Config{})
	s := newScripted(t, func(turn int, _ chatBody) wireReply {
		switch turn {
		case 1:
			return wireReply{Calls: [][2]string{{"run_sql", `{"sql": "SELECT 1`}, {"drop_table", "{}"}}}
		case 2:
			return wireReply{Content: "I think the answer is 42."}
		case 3:
			return wireReply{Calls: [][2]string{{"run_sql", `{}`}, {"describe_table", args("name", "nope")}}}
		default:
			return wireReply{Calls: [][2]string{{"submit", args("sql", wrongDelivered)}, {"run_sql", args("sql", "SELECT 1")}}}
		}
	})
	ep := play(t, env, s, taskDelivered)
	if r := ep.Result(); r.Outcome != sqlgym.OutcomeWrong || *r.Reward != 0.1 {
		t.Fatalf("result = %+v, want wrong (0.1)", r)
	}
	st := ep.Stats()
	if st.Turns != 4 || st.BrokenCalls != 3 || st.NoAction != 1 || st.Queries != 0 || !st.Submitted || st.CrashFixed {
		t.Errorf("stats = %+v", st)
	}
	reqs := s.requests()
	m := reqs[1].Messages
	if a, b := m[len(m)-2].Content, m[len(m)-1].Content; !strings.Contains(a, "not a JSON object") || !strings.Contains(b, `unknown tool "drop_table"`) {
		t.Errorf("turn 1 observations: %q / %q", a, b)
	}
	m = reqs[2].Messages
	if obs := m[len(m)-1]; obs.Role != "user" || !strings.Contains(obs.Content, "No tool call") {
		t.Errorf("turn 2 observation: %+v", obs)
	}
	m = reqs[3].Messages
	if a, b := m[len(m)-2].Content, m[len(m)-1].Content; !strings.Contains(a, `run_sql needs {"sql"`) || !strings.Contains(b, `no table named "nope"`) {
		t.Errorf("turn 3 observations: %q / %q", a, b)
	}
	// The call after the submission was not run but still answered.
	traj := ep.Trajectory()
	if last := traj[len(traj)-1]; last.ToolCallID != "callb" || !strings.Contains(last.Content, "already submitted") {
		t.Errorf("last observation = %+v", last)
	}
}

func TestToolsLoopingEpisodeEndsAtMaxTurns(t *testing.T) {
	loop := func(int, chatBody) wireReply {
		return wireReply{Calls: [][2]string{{"run_sql", args("sql", goodDelivered)}}}
	}
	t.Run("no_query", func(t *testing.T) {
		env := newEnv(t, Config{Protocol: ProtocolTools, MaxTurns: 3}, verify.Config{})
		s := newScripted(t, loop)
		ep := play(t, env, s, taskDelivered)
		if r := ep.Result(); r.Outcome != sqlgym.OutcomeNoQuery || *r.Reward != 0 || r.SQL != "" {
			t.Fatalf("result = %+v, want no_query", r)
		}
		if n := len(s.requests()); n != 3 {
			t.Errorf("%d model calls, want 3", n)
		}
		if st := ep.Stats(); st.Turns != 3 || st.Queries != 3 || st.Submitted {
			t.Errorf("stats = %+v", st)
		}
	})
	t.Run("submit_last", func(t *testing.T) {
		env := newEnv(t, Config{Protocol: ProtocolTools, MaxTurns: 3, SubmitLast: true}, verify.Config{})
		s := newScripted(t, loop)
		ep := play(t, env, s, taskDelivered)
		if r := ep.Result(); r.Outcome != sqlgym.OutcomeCorrect || r.SQL != goodDelivered {
			t.Fatalf("result = %+v, want the last query run submitted and correct", r)
		}
		if st := ep.Stats(); st.Submitted || !st.SubmitLast {
			t.Errorf("stats = %+v", st)
		}
	})
}

func TestTruncatedTurnEndsEpisode(t *testing.T) {
	env := newEnv(t, Config{Protocol: ProtocolTools}, verify.Config{})
	s := newScripted(t, func(turn int, _ chatBody) wireReply {
		if turn == 1 {
			return wireReply{Calls: [][2]string{{"run_sql", args("sql", goodDelivered)}}}
		}
		return wireReply{Content: "<tool_call>{\"name\": \"submit\", \"arguments\": {\"sql\": \"SELECT", Finish: "length"}
	})
	ep := play(t, env, s, taskDelivered)
	if r := ep.Result(); r.Outcome != sqlgym.OutcomeTruncated || r.Reward != nil {
		t.Fatalf("result = %+v, want truncated without reward", r)
	}
	if rec := ep.Record(); rec.FinishReason != "length" || rec.Outcome != sqlgym.OutcomeTruncated {
		t.Errorf("record = %+v", rec)
	}
}

func TestTokenBudget(t *testing.T) {
	env := newEnv(t, Config{Protocol: ProtocolTools, MaxTokens: 150}, verify.Config{})
	s := newScripted(t, func(turn int, _ chatBody) wireReply {
		return wireReply{Calls: [][2]string{{"run_sql", args("sql", goodDelivered)}}, Tokens: 100}
	})
	ep := play(t, env, s, taskDelivered)
	reqs := s.requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model calls, want 2 (the budget is spent after the second)", len(reqs))
	}
	if reqs[0].MaxTokens != 150 || reqs[1].MaxTokens != 50 {
		t.Errorf("max_tokens sent: %d, %d; want 150 then what is left, 50", reqs[0].MaxTokens, reqs[1].MaxTokens)
	}
	if r := ep.Result(); r.Outcome != sqlgym.OutcomeNoQuery {
		t.Errorf("result = %+v, want no_query", r)
	}
}

func TestModelServerFailureAbandonsEpisode(t *testing.T) {
	env := newEnv(t, Config{Protocol: ProtocolTools}, verify.Config{})
	s := newScripted(t, func(turn int, _ chatBody) wireReply {
		if turn == 1 {
			return wireReply{Calls: [][2]string{{"list_tables", ""}}}
		}
		return wireReply{Status: 503}
	})
	ep := start(t, env, taskDelivered)
	err := Play(context.Background(), ep, s.actor(t))
	if err == nil || !model.IsInfra(err) {
		t.Fatalf("err = %v, want the model server's infra error", err)
	}
	if ep.Done() || ep.Result() != nil {
		t.Errorf("an abandoned episode has no verdict: %+v", ep.Result())
	}
}

func TestTextGoodEpisode(t *testing.T) {
	env := newEnv(t, Config{Protocol: ProtocolText}, verify.Config{})
	s := newScripted(t, func(turn int, _ chatBody) wireReply {
		switch turn {
		case 1:
			// Thinking that mentions a tag is not an action.
			return wireReply{Content: "<think>maybe <sql>SELECT 0</sql></think>Try it:\n<sql>" + crashDelivered + "</sql>"}
		case 2:
			return wireReply{Content: "Fix the column.\n<sql>\n```sql\n" + goodDelivered + ";\n```\n</sql>"}
		default:
			// A stop sequence on </solution> cuts the closing tag.
			return wireReply{Content: "<solution>" + goodDelivered}
		}
	})
	ep := play(t, env, s, taskDelivered)
	if r := ep.Result(); r.Outcome != sqlgym.OutcomeCorrect || r.SQL != goodDelivered {
		t.Fatalf("result = %+v", r)
	}
	reqs := s.requests()
	if len(reqs) != 3 || len(reqs[0].Tools) != 0 {
		t.Fatalf("%d calls, tools offered %v", len(reqs), reqs[0].Tools)
	}
	if sys := reqs[0].Messages[0].Content; !strings.Contains(sys, "<solution>") {
		t.Errorf("system prompt does not explain the tags: %q", sys)
	}
	m := reqs[1].Messages
	if obs := m[len(m)-1]; obs.Role != "user" || !strings.HasPrefix(obs.Content, "<observation>\nError: no such column: state") {
		t.Errorf("observation = %+v", obs)
	}
	if st := ep.Stats(); st.Queries != 2 || st.QueryErrors != 1 || !st.CrashFixed || !st.Submitted {
		t.Errorf("stats = %+v", st)
	}
}

func TestTextNoTagAndLooping(t *testing.T) {
	env := newEnv(t, Config{Protocol: ProtocolText, MaxTurns: 3}, verify.Config{})
	s := newScripted(t, func(turn int, _ chatBody) wireReply {
		if turn == 1 {
			return wireReply{Content: "```sql\n" + goodDelivered + "\n```"}
		}
		return wireReply{Content: "<sql>" + wrongDelivered + "</sql>"}
	})
	ep := play(t, env, s, taskDelivered)
	if r := ep.Result(); r.Outcome != sqlgym.OutcomeNoQuery {
		t.Fatalf("result = %+v, want no_query", r)
	}
	reqs := s.requests()
	m := reqs[1].Messages
	if obs := m[len(m)-1].Content; !strings.Contains(obs, "No <sql> or <solution> tag") {
		t.Errorf("observation = %q", obs)
	}
	m = reqs[2].Messages
	if obs := m[len(m)-1].Content; !strings.Contains(obs, "last turn") || !strings.Contains(obs, "<solution>") {
		t.Errorf("last-turn note missing: %q", obs)
	}
	if st := ep.Stats(); st.NoAction != 1 || st.Queries != 2 || st.Turns != 3 {
		t.Errorf("stats = %+v", st)
	}
}

func TestSeedPerSample(t *testing.T) {
	env := newEnv(t, Config{Protocol: ProtocolTools, MaxTurns: 1}, verify.Config{})
	s := newScripted(t, func(int, chatBody) wireReply {
		return wireReply{Calls: [][2]string{{"submit", args("sql", goodDelivered)}}}
	})
	a := s.actor(t)
	a.Decoding.Seed = model.Int(7)
	for sample := range 2 {
		ep, err := env.Start(context.Background(), &taskDelivered, sample)
		if err != nil {
			t.Fatal(err)
		}
		if err := Play(context.Background(), ep, a); err != nil {
			t.Fatal(err)
		}
	}
	reqs := s.requests()
	if *reqs[0].Seed != 7 || *reqs[1].Seed != 8 {
		t.Errorf("seeds %d, %d; want seed+sample", *reqs[0].Seed, *reqs[1].Seed)
	}
}
