package sqltext

import (
	"strings"

	"github.com/sqlgym/sqlgym/sqltext/lexer"
)

// Kind classifies a token.
type Kind uint8

const (
	// Space is a run of ASCII white space.
	Space Kind = iota
	// Comment is a -- line comment (without its newline) or a /* */ block.
	Comment
	// Word is a keyword or an unquoted identifier; the two are not told
	// apart because no question asked here needs a keyword list.
	Word
	// QuotedIdent is a "double-quoted", `backtick` or [bracket] identifier.
	QuotedIdent
	// String is a literal: 'x', E'x', X'00', N'x', B'01', U&'x', $$x$$, $t$x$t$.
	String
	// Number is a numeric literal: 12, 1.5, .5, 1e-3, 0x1F, 1_000.
	Number
	// Param is a bind parameter: ?, ?1, $1, :name, @name, $name.
	Param
	// Operator is an operator such as =, <=, ||, ::, ->>.
	Operator
	// Punct is one of ( ) [ ] { } , ; .
	Punct
	// Other is a byte no SQL dialect here gives a meaning, such as \.
	Other
)

var kindNames = [...]string{"space", "comment", "word", "quoted_ident", "string", "number", "param",
	"operator", "punct", "other"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "kind(?)"
}

// Token is one lexical unit of SQL text: Text is sql[Pos:Pos+len(Text)].
type Token struct {
	Kind Kind
	Text string
	Pos  int
}

// End is the byte offset just past the token.
func (t Token) End() int { return t.Pos + len(t.Text) }

// Significant reports whether the token is neither white space nor a
// comment.
func (t Token) Significant() bool { return t.Kind != Space && t.Kind != Comment }

// IsWord reports whether t is the unquoted word w, ignoring ASCII case.
func (t Token) IsWord(w string) bool { return t.Kind == Word && strings.EqualFold(t.Text, w) }

// IsPunct reports whether t is the punctuation p.
func (t Token) IsPunct(p string) bool { return t.Kind == Punct && t.Text == p }

// Tokens splits sql into tokens covering every byte, in order.
func Tokens(sql string) []Token {
	toks := make([]Token, 0, len(sql)/4+1)
	for i := 0; i < len(sql); {
		k, n := lexOne(sql, i)
		toks = append(toks, Token{Kind: k, Text: sql[i : i+n], Pos: i})
		i += n
	}
	return toks
}

// TokenAt returns the token that starts at byte pos of sql, for reading
// a long text lazily: Tokens(sql) is TokenAt(sql, 0), then TokenAt at each
// token's End, up to len(sql). pos must be a token boundary and < len(sql).
func TokenAt(sql string, pos int) Token {
	k, n := lexOne(sql, pos)
	return Token{Kind: k, Text: sql[pos : pos+n], Pos: pos}
}

// significant returns the tokens of sql that are neither space nor comment.
func significant(sql string) []Token {
	all := Tokens(sql)
	out := all[:0]
	for _, t := range all {
		if t.Significant() {
			out = append(out, t)
		}
	}
	return out
}

func isSpace(c byte) bool { return lexer.IsSpace(c) }

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// isIdentStart accepts bytes of multi-byte UTF-8 sequences because SQLite
// and PostgreSQL both treat every non-ASCII byte as an identifier character.
func isIdentStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c >= 0x80
}

func isIdentByte(c byte) bool { return lexer.IsIdentByte(c) }

// multiOps lists the multi-character operators of the three dialects,
// longest first so that the first match is the longest. Anything else
// lexes one character at a time, so "a<-1" and "a < -1" give the same
// tokens, as the engines read them.
var multiOps = []string{
	"!~~*", "->>", "#>>", "!~~", "~~*", "!~*", "<->", "<=>", "<<=", ">>=", "-|-",
	"->", "#>", "<=", ">=", "<>", "!=", "==", "||", "::", ":=", "=>", "<<", ">>",
	"@>", "<@", "&&", "~~", "!~", "~*", "**", "//", "^@", "@@", "&<", "&>", "?|", "?&", "#-",
}

const opChars = "+-*/<>=~!@#%^&|?:"

// lexOne returns the kind and byte length of the token at s[i:].
func lexOne(s string, i int) (Kind, int) {
	c := s[i]
	rest := s[i:]
	switch {
	case isSpace(c):
		n := 1
		for i+n < len(s) && isSpace(s[i+n]) {
			n++
		}
		return Space, n
	case strings.HasPrefix(rest, "--"):
		if j := strings.IndexByte(rest, '\n'); j >= 0 {
			return Comment, j
		}
		return Comment, len(rest)
	case strings.HasPrefix(rest, "/*"):
		return Comment, blockComment(rest)
	case c == '\'':
		return String, quoted(rest, 1, '\'', false)
	case c == '"':
		return QuotedIdent, quoted(rest, 1, '"', false)
	case c == '`':
		return QuotedIdent, quoted(rest, 1, '`', false)
	case c == '[':
		if n := bracketIdent(s, i); n > 0 {
			return QuotedIdent, n
		}
		return Punct, 1
	case isIdentStart(c):
		return word(rest)
	case isDigit(c) || c == '.' && len(rest) > 1 && isDigit(rest[1]):
		return Number, number(rest)
	case c == '$':
		return dollar(rest)
	case c == '?':
		n := 1
		for n < len(rest) && isDigit(rest[n]) {
			n++
		}
		return Param, n
	case (c == ':' || c == '@') && len(rest) > 1 && isIdentStart(rest[1]) && !strings.HasPrefix(rest, "::"):
		n := 2
		for n < len(rest) && (isIdentStart(rest[n]) || isDigit(rest[n])) {
			n++
		}
		return Param, n
	case strings.IndexByte("()[]{},;.", c) >= 0:
		return Punct, 1
	case strings.IndexByte(opChars, c) >= 0:
		for _, op := range multiOps {
			if strings.HasPrefix(rest, op) {
				return Operator, len(op)
			}
		}
		return Operator, 1
	}
	return Other, 1
}

// blockComment measures a /* */ comment. PostgreSQL nests block comments,
// SQLite and DuckDB do not: the nested reading is used when it closes, and
// otherwise the comment ends at the first */ as in SQLite, so that
// "/* a /* b */ SELECT 1" still shows its SELECT.
func blockComment(s string) int {
	depth := 1
	for j := 2; j+1 < len(s); {
		switch {
		case s[j] == '/' && s[j+1] == '*':
			depth++
			j += 2
		case s[j] == '*' && s[j+1] == '/':
			depth--
			j += 2
			if depth == 0 {
				return j
			}
		default:
			j++
		}
	}
	if j := strings.Index(s[2:], "*/"); j >= 0 {
		return j + 4
	}
	return len(s)
}

// quoted measures a literal or identifier that opened at s[start-1] with q,
// where a doubled q stands for itself and, in an E'...' string, a backslash
// escapes the next byte. Unclosed, it runs to the end.
func quoted(s string, start int, q byte, backslash bool) int {
	n, _ := lexer.QuotedEnd(s, start-1, q, backslash)
	return n
}

// word lexes an identifier or keyword, or a prefixed literal: E'..',
// X'..', B'..', N'..', U&'..' (and U&".." identifiers).
func word(s string) (Kind, int) {
	if len(s) > 1 && s[1] == '\'' {
		switch s[0] {
		case 'e', 'E':
			return String, quoted(s, 2, '\'', true)
		case 'x', 'X', 'b', 'B', 'n', 'N':
			return String, quoted(s, 2, '\'', false)
		}
	}
	if len(s) > 2 && (s[0] == 'u' || s[0] == 'U') && s[1] == '&' {
		switch s[2] {
		case '\'':
			return String, quoted(s, 3, '\'', false)
		case '"':
			return QuotedIdent, quoted(s, 3, '"', false)
		}
	}
	n := 1
	for n < len(s) && isIdentByte(s[n]) {
		n++
	}
	return Word, n
}

// number lexes digits with an optional fraction and exponent, a hex
// literal, and PostgreSQL's 1_000 digit separators.
func number(s string) int {
	n := 0
	if len(s) > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') && isHex(s[2]) {
		n = 2
		for n < len(s) && (isHex(s[n]) || s[n] == '_') {
			n++
		}
		return n
	}
	digits := func() {
		for n < len(s) && (isDigit(s[n]) || s[n] == '_' && n+1 < len(s) && isDigit(s[n+1])) {
			n++
		}
	}
	digits()
	if n < len(s) && s[n] == '.' && !(n+1 < len(s) && s[n+1] == '.') {
		n++
		digits()
	}
	if n < len(s) && (s[n] == 'e' || s[n] == 'E') {
		m := n + 1
		if m < len(s) && (s[m] == '+' || s[m] == '-') {
			m++
		}
		if m < len(s) && isDigit(s[m]) {
			n = m
			digits()
		}
	}
	return n
}

func isHex(c byte) bool { return isDigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

// dollar lexes what starts with $: a positional parameter $1, a
// dollar-quoted string $$..$$ or $tag$..$tag$, or a named parameter $name
// (SQLite). A $tag$ without its closing tag is read as the parameter $tag,
// since in SQLite that is what it is; an unclosed $$ runs to the end.
func dollar(s string) (Kind, int) {
	if len(s) > 1 && isDigit(s[1]) {
		n := 2
		for n < len(s) && isDigit(s[n]) {
			n++
		}
		return Param, n
	}
	n := 1
	for n < len(s) && (isIdentStart(s[n]) || n > 1 && isDigit(s[n])) {
		n++
	}
	if n < len(s) && s[n] == '$' {
		tag := s[:n+1]
		if j := strings.Index(s[n+1:], tag); j >= 0 {
			return String, n + 1 + j + len(tag)
		}
		if n == 1 {
			return String, len(s)
		}
	}
	if n > 1 {
		return Param, n
	}
	return Other, 1
}

// subscripts reports whether a [ right after byte c is a subscript.
func subscripts(c byte) bool {
	return isIdentByte(c) || c == ']' || c == ')' || c == '\'' || c == '"' || c == '`'
}

// bracketIdent returns the length of a SQLite [identifier] at s[i], or 0
// when the bracket is punctuation: an array subscript (right after a word,
// a literal or a closing bracket) or a DuckDB list literal (its contents up
// to the closing bracket hold a string, a quoted identifier, a comma, a
// parenthesis or a semicolon, which SQLite identifiers in practice never do).
func bracketIdent(s string, i int) int {
	if i > 0 && subscripts(s[i-1]) {
		return 0
	}
	for j := i + 1; j < len(s); {
		if s[j] == '[' {
			return 0
		}
		k, n := lexOne(s, j)
		switch k {
		case String, QuotedIdent:
			return 0
		case Punct:
			switch s[j] {
			case ']':
				if j == i+1 {
					return 0
				}
				return j + 1 - i
			case ',', '(', ')', ';', '{', '}':
				return 0
			}
		}
		j += n
	}
	return 0
}
