package sqltext

// HasTopLevelOrderBy reports whether the outermost query of the first
// statement in sql ends with an ORDER BY of its own. An ORDER BY inside
// parentheses (a subquery, a CTE body, a window, an aggregate's argument
// list), a string or a comment does not count; one after a compound
// (SELECT .. UNION SELECT .. ORDER BY ..) does, and so does one inside a
// pair of parentheses that wraps the whole statement. This is the rule the
// strict comparison uses to decide that row order matters.
func HasTopLevelOrderBy(sql string) bool {
	toks := firstStatement(significant(sql))
	for len(toks) >= 2 && toks[0].IsPunct("(") && ClosingParen(toks, 0) == len(toks)-1 {
		toks = toks[1 : len(toks)-1]
	}
	depth := 0
	for i, t := range toks {
		switch {
		case t.IsPunct("(") || t.IsPunct("["):
			depth++
		case t.IsPunct(")") || t.IsPunct("]"):
			if depth > 0 {
				depth--
			}
		case depth == 0 && t.IsWord("order") && i+1 < len(toks) && toks[i+1].IsWord("by"):
			return true
		}
	}
	return false
}

// firstStatement cuts significant tokens at the first semicolon after
// leading empty statements.
func firstStatement(toks []Token) []Token {
	for len(toks) > 0 && toks[0].IsPunct(";") {
		toks = toks[1:]
	}
	for i, t := range toks {
		if t.IsPunct(";") {
			return toks[:i]
		}
	}
	return toks
}

// ClosingParen returns the index of the parenthesis closing toks[open], or
// -1 when it is not closed.
func ClosingParen(toks []Token, open int) int {
	depth := 0
	for i := open; i < len(toks); i++ {
		switch {
		case toks[i].IsPunct("("):
			depth++
		case toks[i].IsPunct(")"):
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

// ContainsOrderByQuirk reports whether the lower-cased text contains the
// substring "order by", exactly as Spider's test-suite scorer decides that
// row order matters. It is a substring test on purpose: it is fooled by
// ORDER BY in a subquery, a window, a string or a comment, and misses
// "ORDER  BY" with two spaces or a newline. Reproducing the official score
// needs the quirk; HasTopLevelOrderBy is the sound rule.
func ContainsOrderByQuirk(sql string) bool {
	// Python's str.lower maps no non-ASCII character to any of the letters
	// of "order by", so an ASCII case fold finds exactly what it finds.
	const pat = "order by"
	for i := 0; i+len(pat) <= len(sql); i++ {
		j := 0
		for ; j < len(pat); j++ {
			c := sql[i+j]
			if c >= 'A' && c <= 'Z' {
				c += 'a' - 'A'
			}
			if c != pat[j] {
				break
			}
		}
		if j == len(pat) {
			return true
		}
	}
	return false
}
