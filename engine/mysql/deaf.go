package mysql

import (
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

// refuseDeafMatch refuses a pattern match whose subject or pattern is
// built by a subquery or a growing function. It is the statement's own
// error.
func refuseDeafMatch(toks []token) *sqlgym.ExecError {
	for i, t := range toks {
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
