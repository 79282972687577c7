package postgres

import "strings"

// tokKind is the kind of a significant token; whitespace and comments are
// dropped by lex.
type tokKind uint8

const (
	tokWord         tokKind = iota // unquoted identifier or keyword, lower-cased
	tokQuotedIdent                 // "ident", text without the quotes
	tokUnicodeIdent                // U&"ident": its name is only known after unescaping
	tokString                      // any string constant, text not kept
	tokSemicolon
	tokLParen
	tokRParen
	tokOther // numbers, operators, parameters, punctuation
)

type token struct {
	kind tokKind
	text string
	n    int // a string constant's length in bytes, quotes included
}

// lex splits PostgreSQL text into the tokens the screen needs. It follows
// the server's lexer where it matters for safety (comments nest, E” strings
// take backslash escapes, dollar quotes, bytes >= 0x80 are identifier
// characters) and never fails: an unclosed string or comment runs to the
// end, as the server would read it before reporting the error.
// standard_conforming_strings is on in every sandbox transaction, so a
// backslash escapes nothing in a plain ” string.
func lex(sql string) []token {
	var toks []token
	n := len(sql)
	for i := 0; i < n; {
		c := sql[i]
		start, before := i, len(toks)
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			i++
		case c == '-' && i+1 < n && sql[i+1] == '-':
			// The server's lexer ends a -- comment at a carriage return as
			// well as at a newline: "-- x\rpg_sleep(1)" runs the call.
			for i < n && sql[i] != '\n' && sql[i] != '\r' {
				i++
			}
		case c == '/' && i+1 < n && sql[i+1] == '*':
			i = skipBlockComment(sql, i)
		case c == '\'':
			i = skipQuoted(sql, i, '\'', false)
			toks = append(toks, token{kind: tokString})
		case (c == 'e' || c == 'E') && i+1 < n && sql[i+1] == '\'':
			i = skipQuoted(sql, i+1, '\'', true)
			toks = append(toks, token{kind: tokString})
		case (c == 'b' || c == 'B' || c == 'x' || c == 'X' || c == 'n' || c == 'N') && i+1 < n && sql[i+1] == '\'':
			i = skipQuoted(sql, i+1, '\'', false)
			toks = append(toks, token{kind: tokString})
		case (c == 'u' || c == 'U') && i+2 < n && sql[i+1] == '&' && (sql[i+2] == '\'' || sql[i+2] == '"'):
			if sql[i+2] == '\'' {
				i = skipQuoted(sql, i+2, '\'', false)
				toks = append(toks, token{kind: tokString})
			} else {
				i = skipQuoted(sql, i+2, '"', false)
				toks = append(toks, token{kind: tokUnicodeIdent})
			}
		case c == '"':
			end := skipQuoted(sql, i, '"', false)
			body := sql[i+1 : end]
			body = strings.TrimSuffix(body, `"`)
			toks = append(toks, token{kind: tokQuotedIdent, text: strings.ReplaceAll(body, `""`, `"`)})
			i = end
		case isIdentStart(c):
			j := i + 1
			for j < n && isIdentChar(sql[j]) {
				j++
			}
			toks = append(toks, token{kind: tokWord, text: strings.ToLower(sql[i:j])})
			i = j
		case c == '$':
			i = lexDollar(sql, i, &toks)
		case c == ';':
			toks = append(toks, token{kind: tokSemicolon})
			i++
		case c == '(':
			toks = append(toks, token{kind: tokLParen})
			i++
		case c == ')':
			toks = append(toks, token{kind: tokRParen})
			i++
		case c >= '0' && c <= '9' || c == '.' && i+1 < n && sql[i+1] >= '0' && sql[i+1] <= '9':
			j := lexNumber(sql, i)
			toks = append(toks, token{kind: tokOther, text: sql[i:j]})
			i = j
		default:
			toks = append(toks, token{kind: tokOther, text: sql[i : i+1]})
			i++
		}
		if len(toks) > before && toks[len(toks)-1].kind == tokString {
			toks[len(toks)-1].n = i - start
		}
	}
	return toks
}

// lexNumber returns the index just past the numeric constant at i, read
// as the server reads it: digits, at most one '.', more digits, an
// exponent. Whatever follows (letters, a second '.') is a new token, so
// a '.' that selects a field or calls a function by attribute notation
// is never swallowed into a number.
func lexNumber(sql string, i int) int {
	n := len(sql)
	digits := func(j int) int {
		for j < n && sql[j] >= '0' && sql[j] <= '9' {
			j++
		}
		return j
	}
	j := digits(i)
	if j < n && sql[j] == '.' && !(j+1 < n && sql[j+1] == '.') {
		j = digits(j + 1)
	}
	if j < n && (sql[j] == 'e' || sql[j] == 'E') {
		k := j + 1
		if k < n && (sql[k] == '+' || sql[k] == '-') {
			k++
		}
		if k < n && sql[k] >= '0' && sql[k] <= '9' {
			j = digits(k)
		}
	}
	return j
}

func isIdentStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c >= 0x80
}

func isIdentChar(c byte) bool {
	return isIdentStart(c) || c >= '0' && c <= '9' || c == '$'
}

// skipBlockComment returns the index just past the /* ... */ comment
// starting at i; PostgreSQL comments nest.
func skipBlockComment(sql string, i int) int {
	depth := 0
	for i < len(sql) {
		switch {
		case sql[i] == '/' && i+1 < len(sql) && sql[i+1] == '*':
			depth++
			i += 2
		case sql[i] == '*' && i+1 < len(sql) && sql[i+1] == '/':
			depth--
			i += 2
			if depth == 0 {
				return i
			}
		default:
			i++
		}
	}
	return i
}

// skipQuoted returns the index just past the quoted text opening at i with
// quote q; a doubled quote stands for itself, and with backslash a
// backslash escapes the next byte.
func skipQuoted(sql string, i int, q byte, backslash bool) int {
	for j := i + 1; j < len(sql); j++ {
		switch sql[j] {
		case '\\':
			if backslash {
				j++
			}
		case q:
			if j+1 < len(sql) && sql[j+1] == q {
				j++
				continue
			}
			return j + 1
		}
	}
	return len(sql)
}

// lexDollar reads what starts with '$' at i: a parameter ($1), a
// dollar-quoted string ($tag$ ... $tag$) or a lone '$'.
func lexDollar(sql string, i int, toks *[]token) int {
	n := len(sql)
	if i+1 < n && sql[i+1] >= '0' && sql[i+1] <= '9' {
		j := i + 1
		for j < n && sql[j] >= '0' && sql[j] <= '9' {
			j++
		}
		*toks = append(*toks, token{kind: tokOther, text: sql[i:j]})
		return j
	}
	j := i + 1
	if j < n && isIdentStart(sql[j]) {
		for j < n && isIdentChar(sql[j]) && sql[j] != '$' {
			j++
		}
	}
	if j < n && sql[j] == '$' {
		tag := sql[i : j+1]
		*toks = append(*toks, token{kind: tokString})
		if k := strings.Index(sql[j+1:], tag); k >= 0 {
			return j + 1 + k + len(tag)
		}
		return n
	}
	*toks = append(*toks, token{kind: tokOther, text: "$"})
	return i + 1
}
