package mysql

import "strings"

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
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			i++
		case c == '#':
			i = skipLine(s, i)
		case c == '-' && i+2 <= len(s) && strings.HasPrefix(s[i:], "--") && (i+2 == len(s) || isDashSpace(s[i+2])):
			i = skipLine(s, i)
		case c == '/' && i+1 < len(s) && s[i+1] == '*':
			if inExec {
				r.nested = true
			}
			end := strings.Index(s[i+2:], "*/")
			if end < 0 {
				r.toks = append(r.toks, token{tokBadEnd, s[i:], base + i})
				return
			}
			body := s[i+2 : i+2+end]
			next := i + 2 + end + 2
			switch {
			case strings.HasPrefix(body, "!"):
				lexInto(r, skipVersion(body[1:]), base+i+3, true)
			case strings.HasPrefix(body, "M!"):
				lexInto(r, skipVersion(body[2:]), base+i+4, true)
			case strings.HasPrefix(body, "+"):
				r.hint = true
			}
			i = next
		case c == '\'' || c == '"':
			j, ok := endQuoted(s, i, c, true)
			if !ok {
				r.toks = append(r.toks, token{tokBadEnd, s[i:], base + i})
				return
			}
			r.toks = append(r.toks, token{tokString, s[i:j], base + i})
			i = j
		case c == '`':
			j, ok := endQuoted(s, i, c, false)
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
			for j < len(s) && (isWordByte(s[j]) || s[j] == '.') {
				j++
			}
			r.toks = append(r.toks, token{tokVar, s[i:j], base + i})
			i = j
		case c == ';':
			r.toks = append(r.toks, token{tokSemi, ";", base + i})
			i++
		case c >= '0' && c <= '9' || c == '.' && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9':
			j := i
			for j < len(s) && (isWordByte(s[j]) || s[j] == '.') {
				j++
			}
			r.toks = append(r.toks, token{tokNumber, s[i:j], base + i})
			i = j
		case isWordByte(c):
			j := i
			for j < len(s) && isWordByte(s[j]) {
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

// skipVersion drops the server version an executable comment may start
// with (/*!50001 ...*/): five or six digits.
func skipVersion(body string) string {
	n := 0
	for n < len(body) && n < 6 && body[n] >= '0' && body[n] <= '9' {
		n++
	}
	if n >= 5 {
		return body[n:]
	}
	return body
}

func skipLine(s string, i int) int {
	if j := strings.IndexByte(s[i:], '\n'); j >= 0 {
		return i + j + 1
	}
	return len(s)
}

// isDashSpace is what must follow "--" for the server to read a comment:
// whitespace or a control character.
func isDashSpace(c byte) bool { return c <= ' ' }

// isWordByte accepts identifier bytes; every byte of a multi-byte UTF-8
// character counts, as the server allows them in bare identifiers.
func isWordByte(c byte) bool {
	return c == '_' || c == '$' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

// endQuoted returns the index after the quote closing the one at i; a
// doubled quote is an escaped quote, and so is a backslash-escaped
// character in strings.
func endQuoted(s string, i int, q byte, backslash bool) (int, bool) {
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			if backslash {
				j++
			}
		case q:
			if j+1 < len(s) && s[j+1] == q {
				j++
				continue
			}
			return j + 1, true
		}
	}
	return len(s), false
}
