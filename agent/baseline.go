package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/baseline"
	"github.com/sqlgym/sqlgym/model"
	"github.com/sqlgym/sqlgym/schema"
	"github.com/sqlgym/sqlgym/sqltext"
)

// BaselineActor is the offline baseline played as an agent, so the loop
// can be shown and tested without a model: it looks at the tables its
// retrieved query reads, runs that query, and when the query fails or
// returns nothing it fixes the query's text literals to the database's
// spelling, or falls back to the next retrieved query, before it submits.
//
// It decides from the episode's state alone (its turn and the queries
// run), so it needs no memory of its own and plays any number of episodes
// at once.
type BaselineActor struct {
	Policy *baseline.Policy
	// Known lists, per database, text values the database holds
	// (baseline.KnownValues), to fix the case and spelling of literals.
	Known map[string][]string
}

// Name labels the actor.
func (b *BaselineActor) Name() string { return baseline.PolicyName + "-agent" }

// baselineMatches is how many retrieved queries the actor may fall back on.
const baselineMatches = 2

// Act plans the next message.
func (b *BaselineActor) Act(_ context.Context, ep *Episode) (Reply, error) {
	matches, err := b.Policy.Retrieve(ep.Task().ID, baselineMatches)
	if err != nil {
		return Reply{}, err
	}
	if len(matches) == 0 {
		return Reply{Content: fmt.Sprintf("No training question on database %q to retrieve from.", ep.Task().DB), FinishReason: model.FinishStop}, nil
	}
	cands := b.candidates(ep, matches)
	turn, last := ep.Turn(), ep.Turn() == ep.Config().MaxTurns-1
	tried := map[string]Query{}
	var order []Query
	for _, q := range ep.Queries() {
		if isCandidate(cands, q.SQL) {
			tried[q.SQL] = q
			order = append(order, q)
		}
	}
	switch {
	case turn == 0 && ep.Config().MaxTurns >= 3 && len(tablesIn(ep, matches[0].Tables)) > 0:
		return b.look(ep, tablesIn(ep, matches[0].Tables)), nil
	case len(order) == 0 && !last:
		return act(ep, ToolRunSQL, cands[0], "Run the retrieved query "+matches[0].Task.ID+" adapted to this question."), nil
	}
	if n := len(order); n > 0 && order[n-1].Ran() && order[n-1].Rows > 0 {
		return act(ep, ToolSubmit, order[n-1].SQL, "It returns rows: submit it."), nil
	}
	if !last {
		for _, c := range cands {
			if _, done := tried[c]; !done {
				return act(ep, ToolRunSQL, c, "The last query failed or returned nothing: try the next candidate."), nil
			}
		}
	}
	return act(ep, ToolSubmit, best(order, cands[0]), "Submit the best query seen."), nil
}

// candidates are the queries the actor may try, best first: the first
// match's adapted query, the same with its literals spelt as the database
// spells them, then the next match's.
func (b *BaselineActor) candidates(ep *Episode, matches []baseline.Match) []string {
	known := b.Known[ep.Task().DB]
	var out []string
	add := func(s string) {
		s = strings.TrimSpace(s)
		if s != "" && !isCandidate(out, s) {
			out = append(out, s)
		}
	}
	for _, m := range matches {
		add(m.SQL)
		add(fixLiterals(m.SQL, known))
	}
	return out
}

func isCandidate(cands []string, sql string) bool {
	for _, c := range cands {
		if c == sql {
			return true
		}
	}
	return false
}

// best is the last candidate that returned rows, else the last that ran,
// else fallback.
func best(order []Query, fallback string) string {
	for i := len(order) - 1; i >= 0; i-- {
		if order[i].Ran() && order[i].Rows > 0 {
			return order[i].SQL
		}
	}
	for i := len(order) - 1; i >= 0; i-- {
		if order[i].Ran() {
			return order[i].SQL
		}
	}
	return fallback
}

// tablesIn keeps the names that are tables of the database: the retrieved
// query's list also holds its CTE names.
func tablesIn(ep *Episode, names []string) []string {
	var out []string
	for _, n := range names {
		if ep.Schema().Table(n) != nil {
			out = append(out, n)
		}
	}
	return out
}

// look describes the tables (tools) or selects their first rows (text).
func (b *BaselineActor) look(ep *Episode, tables []string) Reply {
	tables = tables[:min(len(tables), ep.Config().MaxCalls)]
	if ep.Config().Protocol == ProtocolText {
		var parts []string
		for _, t := range tables {
			parts = append(parts, fmt.Sprintf("<sql>SELECT * FROM %s LIMIT %d</sql>", schema.Quote(t), ep.Config().DescribeRows))
		}
		return Reply{Content: "Look at the tables the retrieved query reads.\n" + strings.Join(parts, "\n"), FinishReason: model.FinishStop}
	}
	r := Reply{Content: "Look at the tables the retrieved query reads.", FinishReason: model.FinishToolCalls}
	for _, t := range tables {
		args, _ := json.Marshal(map[string]string{"name": t})
		r.ToolCalls = append(r.ToolCalls, sqlgym.ToolCall{Name: ToolDescribeTable, Arguments: string(args)})
	}
	return r
}

// act writes one run or submit action in the episode's protocol.
func act(ep *Episode, tool, sql, why string) Reply {
	if ep.Config().Protocol == ProtocolText {
		tag := "sql"
		if tool == ToolSubmit {
			tag = "solution"
		}
		return Reply{Content: why + "\n<" + tag + ">" + sql + "</" + tag + ">", FinishReason: model.FinishStop}
	}
	args, _ := json.Marshal(map[string]string{"sql": sql})
	return Reply{Content: why, FinishReason: model.FinishToolCalls,
		ToolCalls: []sqlgym.ToolCall{{Name: tool, Arguments: string(args)}}}
}

// fixLiterals rewrites each plain '...' literal of sql that equals a known
// database value but for case or surrounding space into that value's
// spelling, keeping LIKE's % wildcards at its ends.
func fixLiterals(sql string, known []string) string {
	if len(known) == 0 {
		return sql
	}
	byLower := make(map[string]string, len(known))
	for _, k := range known {
		l := strings.ToLower(strings.TrimSpace(k))
		if _, dup := byLower[l]; !dup {
			byLower[l] = k
		}
	}
	var b strings.Builder
	changed := false
	for _, t := range sqltext.Tokens(sql) {
		if t.Kind == sqltext.String && len(t.Text) >= 2 && t.Text[0] == '\'' && t.Text[len(t.Text)-1] == '\'' {
			body := strings.ReplaceAll(t.Text[1:len(t.Text)-1], "''", "'")
			core := strings.Trim(body, "%")
			pre, post := body[:strings.Index(body, core)], body[strings.Index(body, core)+len(core):]
			if k, ok := byLower[strings.ToLower(strings.TrimSpace(core))]; ok && k != core {
				b.WriteString("'" + strings.ReplaceAll(pre+k+post, "'", "''") + "'")
				changed = true
				continue
			}
		}
		b.WriteString(t.Text)
	}
	if !changed {
		return sql
	}
	return b.String()
}
