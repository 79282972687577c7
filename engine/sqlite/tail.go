package sqlite

import "strings"

// onlyTrivia reports whether the text SQLite left unparsed after the first
// statement holds no further statement: only whitespace, semicolons and
// comments. SQLite's tokenizer already skipped the first statement's
// string literals and quoted identifiers, so a ';' inside them never
// reaches here. An unterminated block comment runs to the end of the
// input, as in SQLite.
func onlyTrivia(tail string) bool {
	for i := 0; i < len(tail); {
		switch c := tail[i]; {
		case c == ';' || c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			i++
		case strings.HasPrefix(tail[i:], "--"):
			nl := strings.IndexByte(tail[i:], '\n')
			if nl < 0 {
				return true
			}
			i += nl + 1
		case strings.HasPrefix(tail[i:], "/*"):
			end := strings.Index(tail[i+2:], "*/")
			if end < 0 {
				return true
			}
			i += 2 + end + 2
		default:
			return false
		}
	}
	return true
}
