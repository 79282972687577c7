package shopdb

import "strings"

// splitStatements cuts SQL text at semicolons that are not inside a quoted
// string, a quoted identifier or a -- comment, and drops the comments that
// stand before a statement. It knows the SQL that shop.sql holds, not
// every dialect's (no dollar quoting, no block comments).
func splitStatements(text string) []string {
	var out []string
	var quote byte // the open quote, or 0
	start := 0
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0 // a doubled quote reopens at once on the next byte
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '-' && i+1 < len(text) && text[i+1] == '-':
			if j := strings.IndexByte(text[i:], '\n'); j >= 0 {
				i += j
			} else {
				i = len(text)
			}
		case c == ';':
			if st := trimStatement(text[start:i]); st != "" {
				out = append(out, st)
			}
			start = i + 1
		}
	}
	if st := trimStatement(text[start:]); st != "" {
		out = append(out, st)
	}
	return out
}

// trimStatement drops surrounding space and the comment lines before the
// statement proper; it returns "" when nothing else is left.
func trimStatement(s string) string {
	s = strings.TrimSpace(s)
	for strings.HasPrefix(s, "--") {
		_, rest, ok := strings.Cut(s, "\n")
		if !ok {
			return ""
		}
		s = strings.TrimSpace(rest)
	}
	return s
}
