package postgres

import (
	"fmt"

	"github.com/sqlgym/sqlgym"
)

// PostgreSQL's planner does not check for cancels while it plans, and its
// work grows much faster than the statement: measured on the local
// server at a 2 s statement_timeout, 250 chained CTEs plan in 1.4 s, 600
// in 21 s and 1,200 for more than two minutes, and 1,200 window functions
// in one SELECT take 7.5 s; all of it ignores the timeout, the cancel and
// pg_terminate_backend, holds a connection slot, and even blocks DROP
// DATABASE (which waits for every backend to absorb a signal). No real
// query comes near these bounds.
const (
	maxCTEs    = 100
	maxWindows = 500
)

// refuseUnplannable refuses a statement whose shape alone would keep a
// backend planning past any time limit: more CTEs (`name AS (`, with
// MATERIALIZED or NOT MATERIALIZED) or window calls (`OVER`) than the
// bounds above. It is the statement's own error.
func refuseUnplannable(toks []token) *sqlgym.ExecError {
	ctes, windows := 0, 0
	for i, t := range toks {
		if t.kind != tokWord {
			continue
		}
		switch t.text {
		case "over":
			windows++
		case "as":
			j := i + 1
			if j < len(toks) && toks[j].kind == tokWord && toks[j].text == "not" {
				j++
			}
			if j < len(toks) && toks[j].kind == tokWord && toks[j].text == "materialized" {
				j++
			}
			if j < len(toks) && toks[j].kind == tokLParen {
				ctes++
			}
		}
	}
	switch {
	case ctes > maxCTEs:
		return &sqlgym.ExecError{Kind: sqlgym.ErrKindOther, Msg: fmt.Sprintf(
			"statement too complex for the PostgreSQL sandbox: %d common table expressions (at most %d: the planner cannot be stopped on more)", ctes, maxCTEs)}
	case windows > maxWindows:
		return &sqlgym.ExecError{Kind: sqlgym.ErrKindOther, Msg: fmt.Sprintf(
			"statement too complex for the PostgreSQL sandbox: %d window functions (at most %d: the planner cannot be stopped on more)", windows, maxWindows)}
	}
	return nil
}
