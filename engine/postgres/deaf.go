package postgres

import (
	"fmt"
	"strings"

	"github.com/sqlgym/sqlgym"
)

// PostgreSQL 15's LIKE matcher and libxml2 never look at a cancel. On
// strings built from rows (`(SELECT string_agg(...)) LIKE '%' || (SELECT
// string_agg(...)) || 'b'`) a LIKE got its timeout verdict at 1.05 s and
// kept its backend busy 42-53 s more, through pg_terminate_backend; an
// xmlparse of a 2.4 MB document built with string_agg ran 1.6-3.2 s past
// its verdict (docs/sandbox-postgres.md). The screen cannot size operands
// built from rows, so it refuses the shapes that build them: a pattern
// match whose operand holds a subquery, a row-building function or a
// literal longer than maxConstLength, and XML altogether. No gold of Spider, BIRD-sized benchdb, defog or the
// shop uses either (1,286 golds searched; LIKE on a column with a
// constant pattern, LOWER('...') included, is untouched).

// buildsFromRows are functions whose result grows with rows or with a
// count: an operand holding one may be megabytes long.
var buildsFromRows = map[string]bool{
	"string_agg": true, "array_agg": true, "array_to_string": true, "xmlagg": true,
	"json_agg": true, "jsonb_agg": true, "json_object_agg": true, "jsonb_object_agg": true,
	"repeat": true, "lpad": true, "rpad": true, "format": true, "array_fill": true,
}

// operandEnds are words that end an operand of LIKE at its own level.
var operandEnds = map[string]bool{
	"select": true, "where": true, "and": true, "or": true, "not": true, "when": true, "then": true,
	"else": true, "end": true, "case": true, "on": true, "having": true, "by": true, "from": true,
	"group": true, "order": true, "limit": true, "offset": true, "union": true, "intersect": true,
	"except": true, "escape": true, "is": true, "as": true, "join": true, "window": true,
	"between": true, "in": true, "like": true, "ilike": true, "similar": true, "fetch": true, "for": true,
}

// refuseCancelDeaf refuses XML and pattern matches (LIKE, ILIKE, SIMILAR
// TO, ~ and its kin) whose subject or pattern is built by a subquery or a
// row-building function. It is the statement's own error.
func refuseCancelDeaf(toks []token) *sqlgym.ExecError {
	for i, t := range toks {
		name := ""
		switch t.kind {
		case tokWord:
			name = t.text
		case tokQuotedIdent:
			if n := strings.ToLower(t.text); n == "xml" || callable(toks, i) {
				name = n
			}
		}
		if strings.HasPrefix(name, "xml") || strings.HasPrefix(name, "xpath") {
			return &sqlgym.ExecError{Kind: sqlgym.ErrKindForbidden, Msg: fmt.Sprintf(
				"%s is not allowed in the PostgreSQL sandbox: XML parsing cannot be stopped once started; query the data as text or JSON instead", t.text)}
		}
		op := ""
		switch {
		case t.kind == tokWord && (t.text == "like" || t.text == "ilike" || t.text == "similar"):
			op = strings.ToUpper(t.text)
		case t.kind == tokOther && t.text == "~" && (i == 0 || toks[i-1].kind != tokOther || toks[i-1].text != "~"):
			op = "~"
		}
		if op == "" {
			continue
		}
		if fn := builtOperand(toks, i, -1); fn != "" {
			return deafRefusal(op, fn)
		}
		if fn := builtOperand(toks, i, +1); fn != "" {
			return deafRefusal(op, fn)
		}
	}
	return nil
}

func deafRefusal(op, fn string) *sqlgym.ExecError {
	return &sqlgym.ExecError{Kind: sqlgym.ErrKindForbidden, Msg: fmt.Sprintf(
		"%s with an operand built by %s is not allowed in the PostgreSQL sandbox: the match cannot be stopped once started and such operands can be megabytes; match a column against a constant pattern, or join instead", op, fn)}
}

// builtOperand walks from the operator at toks[i] in direction dir (-1:
// the subject, +1: the pattern) to the end of that operand at its own
// level and returns what builds it from rows ("a subquery" or a
// function's name), or "".
func builtOperand(toks []token, i, dir int) string {
	depth := 0
	j := i + dir
	// Skip the rest of the operator: ~~*, !~, SIMILAR TO, NOT LIKE.
	for j >= 0 && j < len(toks) {
		t := toks[j]
		if t.kind == tokOther && (t.text == "~" || t.text == "*" || t.text == "!") || t.kind == tokWord && (t.text == "to" && dir > 0 || t.text == "not" && dir < 0) {
			j += dir
			continue
		}
		break
	}
	for ; j >= 0 && j < len(toks); j += dir {
		t := toks[j]
		open, close := tokLParen, tokRParen
		if dir < 0 {
			open, close = tokRParen, tokLParen
		}
		switch {
		case t.kind == open:
			depth++
			continue
		case t.kind == close:
			if depth == 0 {
				return ""
			}
			depth--
			continue
		case t.kind == tokSemicolon:
			return ""
		}
		if t.kind == tokWord && t.text == "select" && depth > 0 {
			return "a subquery"
		}
		if t.kind == tokString && t.n > maxConstLength {
			return fmt.Sprintf("a literal of %d bytes (at most %d)", t.n, maxConstLength)
		}
		if (t.kind == tokWord || t.kind == tokQuotedIdent) && callable(toks, j) && buildsFromRows[strings.ToLower(t.text)] {
			return t.text
		}
		if depth == 0 && (t.kind == tokWord && operandEnds[t.text] || t.kind == tokOther && strings.Contains(",=<>", t.text)) {
			return ""
		}
	}
	return ""
}
