package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/model"
	"github.com/sqlgym/sqlgym/verify"
)

// ErrDone is returned by Step on an episode that has ended.
var ErrDone = errors.New("the episode has ended")

// ErrPartial refuses a partial reply that is not exactly one tool call of
// the tools protocol.
var ErrPartial = errors.New("a partial step carries exactly one tool call, under the tools protocol")

// Reply is one assistant message, as the model server returned it.
type Reply struct {
	Content      string
	Reasoning    string
	ToolCalls    []sqlgym.ToolCall
	FinishReason string
	// Token counts and latency, when known (zero from a trainer).
	PromptTokens     int
	CompletionTokens int
	Latency          time.Duration
	// Partial says the reply is one tool call of an assistant message
	// whose boundaries the client cannot see (TRL's environment_factory
	// calls an environment's methods one tool call at a time). It costs
	// no turn: the trainer bounds the turns (assistant messages), and the
	// episode bounds its partial calls to MaxTurns x MaxCalls, the most a
	// whole-message episode could make.
	Partial bool
}

// StepResult is what one step returns: the observations to show the
// model, and the verdict once the episode is done.
type StepResult struct {
	Observations []sqlgym.Message
	Done         bool
	// Result is the verdict on the submitted query; set when Done.
	Result *verify.Result
}

// Query is one query the episode ran with run_sql (or a <sql> tag).
type Query struct {
	Turn int
	SQL  string
	// Err is the error the model was shown; empty when the query ran.
	Err     string
	Rows    int
	Capped  bool
	Columns []string
}

// Ran reports whether the query ran without an error.
func (q Query) Ran() bool { return q.Err == "" }

// Episode is one multi-turn attempt at a task. Feed it assistant messages
// with Step until it is done. Safe for concurrent use, though steps of one
// episode are meant to come one at a time.
type Episode struct {
	env        *Env
	cfg        Config
	task       *sqlgym.Task
	sample     int
	eng        sqlgym.Engine
	schema     *sqlgym.Schema
	promptHash string

	mu      sync.Mutex
	msgs    []sqlgym.Message
	opening int // how many of msgs are the opening prompt
	turns   int
	calls   int // tool calls that came as partial replies
	tokens  int
	prompt  int // prompt tokens of the latest turn
	latency time.Duration
	// reasoning keeps each turn's split-off thinking, for the record.
	reasoning []string

	queries     []Query
	broken      int
	noAction    int
	submitted   bool
	submitLast  bool
	finalSQL    string
	finalFinish string
	done        bool
	result      *verify.Result
}

// Task is the episode's task.
func (ep *Episode) Task() *sqlgym.Task { return ep.task }

// Sample is the episode's sample number.
func (ep *Episode) Sample() int { return ep.sample }

// Config is the episode's settings.
func (ep *Episode) Config() Config { return ep.cfg }

// PromptHash identifies the opening messages' text.
func (ep *Episode) PromptHash() string { return ep.promptHash }

// Schema is the task database's schema.
func (ep *Episode) Schema() *sqlgym.Schema { return ep.schema }

// Messages is the conversation so far: the opening messages, then each
// assistant message and its observations. The next model call sends it.
func (ep *Episode) Messages() []sqlgym.Message {
	ep.mu.Lock()
	defer ep.mu.Unlock()
	return append([]sqlgym.Message(nil), ep.msgs...)
}

// Opening is the episode's first messages (system and user).
func (ep *Episode) Opening() []sqlgym.Message {
	ep.mu.Lock()
	defer ep.mu.Unlock()
	return append([]sqlgym.Message(nil), ep.msgs[:ep.opening]...)
}

// Tools is what the model is offered: the four tools, or none for the
// text protocol.
func (ep *Episode) Tools() []model.Tool { return ep.env.Tools() }

// Turn is the number of assistant messages so far.
func (ep *Episode) Turn() int {
	ep.mu.Lock()
	defer ep.mu.Unlock()
	return ep.turns
}

// TokensLeft is what remains of the token budget; -1 when there is none.
func (ep *Episode) TokensLeft() int {
	ep.mu.Lock()
	defer ep.mu.Unlock()
	if ep.cfg.MaxTokens <= 0 {
		return -1
	}
	return max(ep.cfg.MaxTokens-ep.tokens, 0)
}

// Queries lists the queries run so far, in order.
func (ep *Episode) Queries() []Query {
	ep.mu.Lock()
	defer ep.mu.Unlock()
	return append([]Query(nil), ep.queries...)
}

// Done reports whether the episode has ended.
func (ep *Episode) Done() bool {
	ep.mu.Lock()
	defer ep.mu.Unlock()
	return ep.done
}

// Result is the verdict, once the episode is done; nil before.
func (ep *Episode) Result() *verify.Result {
	ep.mu.Lock()
	defer ep.mu.Unlock()
	return ep.result
}

// Step takes the model's next assistant message, acts on it and returns
// the observations. The episode ends with a submission, at the last turn,
// when the token budget is spent, with a reply cut off at the token limit
// (truncated, as a single-turn answer would be), or when the database
// becomes unavailable (infra_error, never scored).
func (ep *Episode) Step(ctx context.Context, r Reply) (StepResult, error) {
	ep.mu.Lock()
	defer ep.mu.Unlock()
	if ep.done {
		return StepResult{}, ErrDone
	}
	if r.Partial {
		if ep.cfg.Protocol != ProtocolTools || len(r.ToolCalls) != 1 {
			return StepResult{}, ErrPartial
		}
		ep.calls++
	} else {
		ep.turns++
	}
	ep.tokens += r.CompletionTokens
	ep.prompt = max(ep.prompt, r.PromptTokens)
	ep.latency += r.Latency
	ep.reasoning = append(ep.reasoning, r.Reasoning)
	calls := make([]sqlgym.ToolCall, len(r.ToolCalls))
	for i, tc := range r.ToolCalls {
		if tc.ID == "" {
			// The observation must name the call it answers.
			tc.ID = fmt.Sprintf("call_%d_%d", ep.turns+ep.calls, i+1)
		}
		calls[i] = tc
	}
	ep.msgs = append(ep.msgs, sqlgym.Message{Role: model.RoleAssistant, Content: r.Content, ToolCalls: calls})

	if r.FinishReason == model.FinishLength {
		ep.finalFinish = model.FinishLength
		ep.finish(ep.fixed(sqlgym.OutcomeTruncated, "an assistant turn was cut off by the token limit (finish_reason length)"))
		return ep.stepResult(nil), nil
	}
	var obs []sqlgym.Message
	var infra error
	if ep.cfg.Protocol == ProtocolTools {
		obs, infra = ep.toolTurn(ctx, calls)
	} else {
		obs, infra = ep.textTurn(ctx, r.Content)
	}
	if infra != nil {
		ep.msgs = append(ep.msgs, obs...)
		ep.finish(ep.fixed(sqlgym.OutcomeInfraError, "the database became unavailable during the episode: "+infra.Error()))
		return ep.stepResult(obs), nil
	}
	switch {
	case ep.submitted:
		ep.msgs = append(ep.msgs, obs...)
		ep.finish(ep.verify(ctx, ep.finalSQL))
		return ep.stepResult(obs), nil
	case ep.turns >= ep.cfg.MaxTurns, ep.cfg.MaxTokens > 0 && ep.tokens >= ep.cfg.MaxTokens,
		ep.calls >= ep.cfg.MaxTurns*ep.cfg.MaxCalls:
		ep.msgs = append(ep.msgs, obs...)
		ep.finish(ep.unsubmitted(ctx))
		return ep.stepResult(obs), nil
	case ep.turns == ep.cfg.MaxTurns-1 && !r.Partial:
		obs = lastTurnNote(obs, ep.cfg.Protocol)
	}
	ep.msgs = append(ep.msgs, obs...)
	return ep.stepResult(obs), nil
}

func (ep *Episode) stepResult(obs []sqlgym.Message) StepResult {
	return StepResult{Observations: obs, Done: ep.done, Result: ep.result}
}

// Stop ends an episode that will get no more steps (a trainer that gave
// up, an idle episode expiring): judged as the end of its turns would be.
func (ep *Episode) Stop(ctx context.Context) *verify.Result {
	ep.mu.Lock()
	defer ep.mu.Unlock()
	if !ep.done {
		ep.finish(ep.unsubmitted(ctx))
	}
	return ep.result
}

const lastTurnText = "This is your last turn: submit your final query now."

// lastTurnNote tells the model its next message is its last, in the last
// observation it gets.
func lastTurnNote(obs []sqlgym.Message, p Protocol) []sqlgym.Message {
	if len(obs) == 0 {
		return obs
	}
	last := &obs[len(obs)-1]
	if p == ProtocolText {
		last.Content += "\n" + strings.Replace(lastTurnText, "submit your final query", "give your final query in <solution>...</solution>", 1)
	} else {
		last.Content += "\n" + lastTurnText
	}
	return obs
}

// unsubmitted judges an episode that ended without a submission: the last
// query run with SubmitLast, else no query.
func (ep *Episode) unsubmitted(ctx context.Context) verify.Result {
	if ep.cfg.SubmitLast && len(ep.queries) > 0 {
		ep.submitLast = true
		ep.finalSQL = ep.queries[len(ep.queries)-1].SQL
		return ep.verify(ctx, ep.finalSQL)
	}
	if ep.calls > 0 {
		return ep.fixed(sqlgym.OutcomeNoQuery, fmt.Sprintf("the episode ended after %d tool calls without a submission", ep.calls))
	}
	return ep.fixed(sqlgym.OutcomeNoQuery, fmt.Sprintf("the episode ended after %d turns without a submission", ep.turns))
}

func (ep *Episode) verify(ctx context.Context, sql string) verify.Result {
	return ep.env.v.Verify(ctx, verify.Answer{TaskID: ep.task.ID, Sample: ep.sample, SQL: sql, Task: ep.task})
}

// fixed is a verdict reached without running anything, with the reward the
// verifier's table gives it.
func (ep *Episode) fixed(o sqlgym.Outcome, detail string) verify.Result {
	return verify.Result{TaskID: ep.task.ID, Sample: ep.sample, Verdict: sqlgym.Verdict{SQL: ep.finalSQL, Outcome: o, Reward: ep.env.v.Config().Rewards.For(o, 0), Detail: detail}}
}

func (ep *Episode) finish(r verify.Result) {
	ep.done = true
	ep.result = &r
}

// toolTurn answers each tool call of an assistant message with a tool
// message. A submission ends the turn: calls after it are not run.
func (ep *Episode) toolTurn(ctx context.Context, calls []sqlgym.ToolCall) ([]sqlgym.Message, error) {
	if len(calls) == 0 {
		ep.noAction++
		return []sqlgym.Message{{Role: model.RoleUser, Content: "No tool call found in your message. Call run_sql to try a query, or submit with your final query."}}, nil
	}
	var obs []sqlgym.Message
	for i, tc := range calls {
		reply := func(text string) {
			obs = append(obs, sqlgym.Message{Role: model.RoleTool, ToolCallID: tc.ID, Name: tc.Name, Content: text})
		}
		if ep.submitted {
			reply("Not run: the query was already submitted.")
			continue
		}
		if i >= ep.cfg.MaxCalls {
			ep.broken++
			reply(fmt.Sprintf("Error: at most %d tool calls per turn; this one was not run.", ep.cfg.MaxCalls))
			continue
		}
		if !knownTool(tc.Name) {
			ep.broken++
			reply(fmt.Sprintf("Error: unknown tool %q. The tools are list_tables, describe_table, run_sql and submit.", tc.Name))
			continue
		}
		args, err := toolArgs(tc.Arguments)
		if err != nil {
			ep.broken++
			reply(fmt.Sprintf("Error: the arguments of %s are not a JSON object (%v).", tc.Name, err))
			continue
		}
		text, err := ep.call(ctx, tc.Name, args)
		if err != nil {
			return obs, err
		}
		reply(text)
	}
	return obs, nil
}

// call runs one tool with decoded arguments. Only a database outage is an
// error; everything the model got wrong is an observation.
func (ep *Episode) call(ctx context.Context, name string, args map[string]any) (string, error) {
	str := func(key string) (string, bool) {
		s, ok := args[key].(string)
		return strings.TrimSpace(s), ok && strings.TrimSpace(s) != ""
	}
	switch name {
	case ToolListTables:
		return listTables(ep.schema), nil
	case ToolDescribeTable:
		t, ok := str("name")
		if !ok {
			ep.broken++
			return `Error: describe_table needs {"name": TABLE}.`, nil
		}
		return ep.describe(ctx, t)
	case ToolRunSQL:
		q, ok := str("sql")
		if !ok {
			ep.broken++
			return `Error: run_sql needs {"sql": QUERY}.`, nil
		}
		return ep.run(ctx, q)
	default: // submit
		q, ok := str("sql")
		if !ok {
			ep.broken++
			return `Error: submit needs {"sql": QUERY}; nothing was submitted.`, nil
		}
		ep.submitted, ep.finalSQL = true, q
		return "Submitted. The episode is over.", nil
	}
}

// textTurn acts on the tags of a text-protocol reply: a <solution>
// submits (the queries of the same reply are not run), otherwise each
// <sql> runs. The observations go back as one user message.
func (ep *Episode) textTurn(ctx context.Context, content string) ([]sqlgym.Message, error) {
	a := parseText(visibleText(content))
	if a.submitted {
		if a.solution == "" {
			ep.broken++
			return []sqlgym.Message{{Role: model.RoleUser, Content: observation("Error: the <solution> tag is empty; nothing was submitted.")}}, nil
		}
		ep.submitted, ep.finalSQL = true, a.solution
		return nil, nil
	}
	if len(a.runs) == 0 {
		ep.noAction++
		return []sqlgym.Message{{Role: model.RoleUser, Content: observation("No <sql> or <solution> tag found. Write <sql>QUERY</sql> to run a query, or <solution>QUERY</solution> to submit your final query.")}}, nil
	}
	var parts []string
	for i, q := range a.runs {
		switch {
		case i >= ep.cfg.MaxCalls:
			ep.broken++
			parts = append(parts, observation(fmt.Sprintf("Error: at most %d queries per turn; this one was not run.", ep.cfg.MaxCalls)))
		case q == "":
			ep.broken++
			parts = append(parts, observation("Error: the <sql> tag is empty."))
		default:
			text, err := ep.run(ctx, q)
			if err != nil {
				return []sqlgym.Message{{Role: model.RoleUser, Content: strings.Join(parts, "\n")}}, err
			}
			parts = append(parts, observation(text))
		}
	}
	return []sqlgym.Message{{Role: model.RoleUser, Content: strings.Join(parts, "\n")}}, nil
}

func observation(text string) string { return "<observation>\n" + text + "\n</observation>" }
