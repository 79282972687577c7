package sqltext

import "strings"

// Normalize returns a canonical form of sql for deduplication where a rare
// false merge costs no more than a dropped duplicate (authored tasks,
// screening): comments removed, keywords, unquoted identifiers and numbers
// lower-cased (ASCII only), strings and quoted identifiers
// kept byte for byte, empty statements and trailing semicolons removed, and
// tokens separated by one space or none according to the pair of tokens
// alone, never the input's spacing. So two queries that differ only in case,
// white space or comments normalize equal, while 'ABC' and 'abc' do not.
// The result is still valid SQL for the same engines, and
// Normalize(Normalize(s)) == Normalize(s).
//
// It is not a key for results: its one lexer reads all three dialects at
// once, so it can merge texts that an engine reads differently (a -- comment
// ended by \r, nested comments, [x--]). The verifier keys results by Key.
func Normalize(sql string) string {
	var b strings.Builder
	b.Grow(len(sql))
	var prev Token
	prevEnd := -1 // end offset of prev in sql, to see whether [ was glued
	havePrev := false
	pendingSemi := false
	// Tokens are read one at a time rather than as a slice: the verifier
	// normalises every distinct answer of every batch.
	for i := 0; i < len(sql); {
		t := TokenAt(sql, i)
		i = t.End()
		if !t.Significant() {
			continue
		}
		if t.IsPunct(";") {
			// Leading and repeated semicolons are dropped here, a trailing
			// one by never being flushed.
			pendingSemi = havePrev
			continue
		}
		if pendingSemi {
			b.WriteByte(';')
			prev = Token{Kind: Punct, Text: ";"}
			pendingSemi = false
		}
		if havePrev && needSpace(prev, t, prevEnd == t.Pos) {
			b.WriteByte(' ')
		}
		if t.Kind == Word || t.Kind == Number {
			writeLower(&b, t.Text)
		} else {
			b.WriteString(t.Text)
		}
		prev, prevEnd, havePrev = t, t.End(), true
	}
	return b.String()
}

// writeLower writes s with ASCII letters lower-cased, without allocating.
func writeLower(b *strings.Builder, s string) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		b.WriteByte(c)
	}
}

// needSpace decides the separator between two significant tokens. Glued
// pairs are only those that lex back to the same two tokens; everything
// else gets one space, which keeps "- -" from becoming a comment and words
// and numbers apart.
func needSpace(prev, next Token, adjacent bool) bool {
	switch {
	case prev.IsPunct("(") || prev.IsPunct("["):
		return false
	case next.IsPunct(")") || next.IsPunct("]") || next.IsPunct(",") || next.IsPunct(";"):
		return false
	case next.IsPunct("("):
		return !(prev.Kind == Word || prev.Kind == QuotedIdent)
	case next.IsPunct("["):
		// A [ glued to what it followed is a subscript; spaced, it was a
		// list literal, which its contents make it again.
		return !(adjacent && subscripts(prev.Text[len(prev.Text)-1]))
	case next.IsPunct("."):
		return !(prev.Kind == Word || prev.Kind == QuotedIdent)
	case prev.IsPunct("."):
		return !(next.Kind == Word || next.Kind == QuotedIdent || next.Kind == Operator && next.Text == "*")
	case next.Kind == Operator && next.Text == "::":
		return !(subscripts(prev.Text[len(prev.Text)-1]) && prev.Kind != Other)
	case prev.Kind == Operator && prev.Text == "::":
		return !(next.Kind == Word || next.Kind == QuotedIdent)
	}
	return true
}
