package mysql

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/sqlgym/sqlgym"
)

// MariaDB's LIKE matcher never looks at KILL: `SELECT REPEAT('a', 300000)
// LIKE CONCAT('%', REPEAT('a', 30000), 'b')` under max_statement_time = 1
// ran 4 min 24 s on MariaDB 10.11 (load ~35), and KILL QUERY or KILL
// CONNECTION only mark the thread, which goes on until the match returns.
// The screen cannot size operands built at run time, so it refuses the
// shapes that build them: a pattern match (LIKE, RLIKE, REGEXP, SOUNDS
// LIKE) whose subject or pattern holds a subquery or a function whose
// result grows with a count or with rows. No gold of Spider, BIRD-sized
// benchdb, defog or the shop does (their LIKEs match a column against a
// constant or LOWER of one).

// buildsLong are functions whose result grows with a count or with rows.
var buildsLong = setOf("REPEAT LPAD RPAD SPACE GROUP_CONCAT JSON_ARRAYAGG JSON_OBJECTAGG")

// operandEnds are words that end an operand of LIKE at its own level.
var operandEnds = setOf("SELECT WHERE AND OR XOR NOT WHEN THEN ELSE END CASE ON HAVING BY FROM GROUP ORDER " +
	"LIMIT OFFSET UNION INTERSECT EXCEPT ESCAPE IS AS JOIN WINDOW BETWEEN IN LIKE RLIKE REGEXP SOUNDS FOR")

// searchFuncs search one string for another, also without looking at
// KILL: LOCATE, INSTR and REPLACE of a 30,001-character needle in
// REPEAT('a', 1000000) each ran past 60 s under max_statement_time = 1
// (and on, marked Killed, minutes after KILL).
var searchFuncs = setOf("LOCATE INSTR POSITION REPLACE SUBSTRING_INDEX FIND_IN_SET")

// maxBuiltLength bounds the strings a statement may build from constants
// with REPEAT, LPAD, RPAD and SPACE (nested calls multiply), as on
// PostgreSQL: with both strings at most 10,000 characters a deaf match or
// search ends in well under a second.
const maxBuiltLength = 10_000

// lengthArg is the argument of a growing function that sets its length.
var lengthArg = map[string]int{"REPEAT": 1, "LPAD": 1, "RPAD": 1, "SPACE": 0}

// refuseDeafMatch refuses a pattern match whose subject or pattern is
// built by a subquery or a growing function, a search function whose
// arguments are, and a string built from constants past maxBuiltLength.
// It is the statement's own error.
func refuseDeafMatch(toks []token) *sqlgym.ExecError {
	if ee := refuseLongBuilt(toks); ee != nil {
		return ee
	}
	for i, t := range toks {
		if (t.kind == tokWord || t.kind == tokQuoted) && i+1 < len(toks) && toks[i+1].text == "(" && searchFuncs[strings.ToUpper(t.text)] {
			end := closing(toks, i+1)
			for j := i + 2; j < end; j++ {
				if toks[j].kind == tokString && len(toks[j].text) > maxBuiltLength {
					return forbid(fmt.Sprintf("%s over a literal of %d bytes refused (at most %d): the server cannot stop such a search once it runs", strings.ToUpper(t.text), len(toks[j].text), maxBuiltLength))
				}
				if toks[j].kind == tokWord && toks[j].text == "SELECT" {
					return forbid(strings.ToUpper(t.text) + " over a subquery refused: the server cannot stop such a search once it runs; search a column for a constant instead")
				}
				if (toks[j].kind == tokWord || toks[j].kind == tokQuoted) && j+1 < end && toks[j+1].text == "(" && buildsLong[strings.ToUpper(toks[j].text)] {
					return forbid(strings.ToUpper(t.text) + " over " + strings.ToUpper(toks[j].text) + " refused: the server cannot stop such a search once it runs, and the string can be megabytes; search a column for a constant instead")
				}
			}
		}
		if t.kind != tokWord || t.text != "LIKE" && t.text != "RLIKE" && t.text != "REGEXP" {
			continue
		}
		for _, dir := range []int{-1, +1} {
			if by := builtOperand(toks, i, dir); by != "" {
				return forbid(t.text + " with an operand built by " + by + " refused: the server cannot stop such a match once it runs, and the operand can be megabytes; match a column against a constant pattern, or join instead")
			}
		}
	}
	return nil
}

// builtOperand walks from the operator at toks[i] in direction dir (-1:
// the subject, +1: the pattern) to the end of that operand at its own
// level and returns what builds it ("a subquery" or a function's name),
// or "".
func builtOperand(toks []token, i, dir int) string {
	open, close := "(", ")"
	if dir < 0 {
		open, close = ")", "("
	}
	depth := 0
	j := i + dir
	// NOT LIKE, SOUNDS LIKE.
	for dir < 0 && j >= 0 && toks[j].kind == tokWord && (toks[j].text == "NOT" || toks[j].text == "SOUNDS") {
		j--
	}
	for ; j >= 0 && j < len(toks); j += dir {
		t := toks[j]
		if t.kind == tokPunct && t.text == open {
			depth++
			continue
		}
		if t.kind == tokPunct && t.text == close {
			if depth == 0 {
				return ""
			}
			depth--
			continue
		}
		if t.kind == tokSemi {
			return ""
		}
		if t.kind == tokWord && t.text == "SELECT" && depth > 0 {
			return "a subquery"
		}
		if t.kind == tokString && len(t.text) > maxBuiltLength {
			return fmt.Sprintf("a literal of %d bytes (at most %d)", len(t.text), maxBuiltLength)
		}
		if (t.kind == tokWord || t.kind == tokQuoted) && j+1 < len(toks) && toks[j+1].text == "(" {
			if name := strings.ToUpper(t.text); buildsLong[name] {
				return name
			}
		}
		if depth == 0 && (t.kind == tokWord && operandEnds[t.text] || t.kind == tokPunct && (t.text == "," || t.text == "=" || t.text == "<" || t.text == ">")) {
			return ""
		}
	}
	return ""
}

// closing returns the index of the ')' matching the '(' at toks[open], or
// len(toks) when it is missing.
func closing(toks []token, open int) int {
	depth := 0
	for j := open; j < len(toks); j++ {
		switch toks[j].text {
		case "(":
			depth++
		case ")":
			depth--
			if depth == 0 {
				return j
			}
		}
	}
	return len(toks)
}

// refuseLongBuilt refuses a statement that builds, from constants, a
// string longer than maxBuiltLength: the product of the constant length
// arguments of nested REPEAT, LPAD, RPAD and SPACE calls.
func refuseLongBuilt(toks []token) *sqlgym.ExecError {
	type call struct {
		name       string
		start, end int
		length     float64
	}
	var calls []call
	for i := 0; i+1 < len(toks); i++ {
		t := toks[i]
		idx, ok := lengthArg[strings.ToUpper(t.text)]
		if t.kind != tokWord && t.kind != tokQuoted || !ok || toks[i+1].text != "(" {
			continue
		}
		end := closing(toks, i+1)
		// The argument: the tokens between the idx-th comma at depth 1
		// and the next; a constant only when it is one number.
		arg, depth, n := []token(nil), 0, 0
		for j := i + 1; j < end; j++ {
			switch toks[j].text {
			case "(":
				depth++
				if depth == 1 {
					continue
				}
			case ")":
				depth--
			case ",":
				if depth == 1 {
					n++
					continue
				}
			}
			if n == idx {
				arg = append(arg, toks[j])
			}
		}
		length := 1.0
		if len(arg) == 1 && arg[0].kind == tokNumber {
			if v, err := strconv.ParseFloat(arg[0].text, 64); err == nil && v > 1 {
				length = v
			}
		}
		calls = append(calls, call{strings.ToUpper(t.text), i, end, length})
	}
	for _, c := range calls {
		total := 1.0
		for _, outer := range calls {
			if outer.start <= c.start && c.end <= outer.end {
				total *= outer.length
			}
		}
		if total > maxBuiltLength {
			return &sqlgym.ExecError{Kind: sqlgym.ErrKindOther, Err: sqlgym.ErrTooLarge, Msg: fmt.Sprintf(
				"%s builds a string of %.0f characters from constants; the sandbox allows at most %d (some server functions cannot be stopped on longer strings)", c.name, total, maxBuiltLength)}
		}
	}
	return nil
}
