package sqltext

import "strings"

// RemoveDistinct rewrites sql as Spider's test-suite scorer does by default
// before running a query (its keep_distinct flag turns this off). That
// scorer splits the text into tokens with the Python sqlparse library,
// keeps only the first statement, and joins the tokens back without every
// token that lower-cases to "distinct". So, like the original:
//
//   - DISTINCT goes wherever it is a bare word: SELECT DISTINCT a becomes
//     "SELECT  a" (the spaces around it stay), count(DISTINCT x) becomes
//     "count( x)", and "a IS DISTINCT FROM b" becomes "a IS  FROM b", which
//     no longer runs;
//   - DISTINCT in a string, a quoted identifier or a comment stays;
//   - only the first statement survives, up to its semicolon and the
//     spaces and line comments after it on the same line: "SELECT 1;
//     DROP TABLE t" becomes "SELECT 1; ". Statements are cut at a semicolon
//     where sqlparse's nesting level is not positive: parentheses raise it,
//     and so does nothing else for a query, while every END keyword lowers
//     it.
//
// The original raises an error on an empty text; here an empty or blank
// text comes back unchanged. Known differences from sqlparse remain in
// texts no scorer meets in practice: sqlparse reads backslash escapes in
// plain strings, "# " comments and non-nested /* */ comments.
func RemoveDistinct(sql string) string {
	toks := Tokens(sql)
	end := len(sql)
	level := 0
	for _, t := range toks {
		switch {
		case t.IsPunct("("):
			level++
		case t.IsPunct(")") || t.IsWord("end"):
			level--
		case t.IsPunct(";") && level <= 0:
			end = afterSemicolon(sql, t.End())
		}
		if end < len(sql) {
			break
		}
	}
	var b strings.Builder
	b.Grow(end)
	for _, t := range toks {
		if t.Pos >= end {
			break
		}
		if t.IsWord("distinct") {
			continue
		}
		text := t.Text
		if t.End() > end {
			// sqlparse keeps the spaces after the semicolon, not the newline.
			text = text[:end-t.Pos]
		}
		b.WriteString(text)
	}
	return b.String()
}

// afterSemicolon returns where sqlparse ends a statement whose semicolon
// ends at i: it keeps consuming spaces and tabs and -- comments (with their
// line break) and stops at a line break or anything else.
func afterSemicolon(sql string, i int) int {
	for i < len(sql) {
		switch c := sql[i]; {
		case c == ' ' || c == '\t' || c == '\f' || c == '\v':
			i++
		case strings.HasPrefix(sql[i:], "--"):
			j := strings.IndexAny(sql[i:], "\r\n")
			if j < 0 {
				return len(sql)
			}
			i += j + 1
			if sql[i-1] == '\r' && i < len(sql) && sql[i] == '\n' {
				i++
			}
		default:
			return i
		}
	}
	return i
}
