package mysql

import (
	"strings"

	"github.com/sqlgym/sqlgym/sqltext/lexer"
)

// tokKind classifies a token of MySQL's lexer.
type tokKind uint8

const (
	tokWord   tokKind = iota // keyword or bare identifier
	tokQuoted                // `identifier`
	tokString                // '...' or "..." (ANSI_QUOTES is never set by the engine)
	tokNumber
	tokPunct  // one operator character, or ":=" / "@@"
	tokVar    // @name or @@name: a user or system variable
	tokSemi   // ;
	tokBadEnd // an unterminated string, identifier or comment
)

type token struct {
	kind tokKind
	text string // upper-cased for words, raw otherwise
	pos  int
}

// lexResult is a statement as the server reads it: its tokens, with the
// contents of executable comments (/*! ... */, /*!50001 ... */,
// /*M! ... */) read as code since the server runs them, and whether it
// held comments of kinds the screen refuses outright.
type lexResult struct {
	toks []token
	// hint is set for an optimizer hint /*+ ... */: MySQL 8 reads
	// SET_VAR(max_execution_time=0) and friends there.
	hint bool
	// nested is set for a comment opened inside an executable comment,
	// where MySQL and MariaDB disagree on where the outer one ends.
	nested bool
}

// lex splits sql the way the server does with the sql_mode the engine
// sets (backslash escapes on, ANSI_QUOTES and PIPES_AS_CONCAT off).
func lex(sql string) lexResult {
	var r lexResult
	lexInto(&r, sql, 0, false)
	return r
}

func lexInto(r *lexResult, s string, base int, inExec bool) {
	for i := 0; i < len(s); {
		c := s[i]
		if cm, ok := lexer.ReadMySQLComment(s[i:]); ok {
			switch {
			case cm.Unterminated:
				r.toks = append(r.toks, token{tokBadEnd, s[i:], base + i})
				return
			case cm.Exec:
				lexInto(r, cm.Body, base+i+cm.BodyPos, true)
			case cm.Hint:
				r.hint = true
			}
			if inExec && s[i] == '/' {
				r.nested = true
			}
			i += cm.Len
			continue
		}
		switch {
		case lexer.IsSpace(c):
			i++
		case c == '\'' || c == '"':
			j, ok := lexer.QuotedEnd(s, i, c, true)
			if !ok {
				r.toks = append(r.toks, token{tokBadEnd, s[i:], base + i})
				return
			}
			r.toks = append(r.toks, token{tokString, s[i:j], base + i})
			i = j
		case c == '`':
			j, ok := lexer.QuotedEnd(s, i, c, false)
			if !ok {
				r.toks = append(r.toks, token{tokBadEnd, s[i:], base + i})
				return
			}
			r.toks = append(r.toks, token{tokQuoted, strings.ReplaceAll(s[i+1:j-1], "``", "`"), base + i})
			i = j
		case c == '@':
			j := i + 1
			if j < len(s) && s[j] == '@' {
				j++
			}
			for j < len(s) && (lexer.IsIdentByte(s[j]) || s[j] == '.') {
				j++
			}
			r.toks = append(r.toks, token{tokVar, s[i:j], base + i})
			i = j
		case c == ';':
			r.toks = append(r.toks, token{tokSemi, ";", base + i})
			i++
		case c >= '0' && c <= '9' || c == '.' && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9':
			j := i
			for j < len(s) && (lexer.IsIdentByte(s[j]) || s[j] == '.') {
				j++
			}
			r.toks = append(r.toks, token{tokNumber, s[i:j], base + i})
			i = j
		case lexer.IsIdentByte(c):
			j := i
			for j < len(s) && lexer.IsIdentByte(s[j]) {
				j++
			}
			r.toks = append(r.toks, token{tokWord, strings.ToUpper(s[i:j]), base + i})
			i = j
		case c == ':' && i+1 < len(s) && s[i+1] == '=':
			r.toks = append(r.toks, token{tokPunct, ":=", base + i})
			i += 2
		default:
			r.toks = append(r.toks, token{tokPunct, string(c), base + i})
			i++
		}
	}
}
