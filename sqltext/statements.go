package sqltext

// CountStatements counts the statements of sql (split at top-level
// semicolons, empty ones not counted) without building their strings.
func CountStatements(sql string) int {
	n := 0
	open := false
	for _, t := range Tokens(sql) {
		switch {
		case t.IsPunct(";"):
			open = false
		case t.Significant() && !open:
			open = true
			n++
		}
	}
	return n
}

// TrimStatement returns sql from its first significant token to its last
// one that is not a semicolon: surrounding white space and comments and
// trailing semicolons go, everything in between stays byte for byte. It
// returns "" when sql holds no statement.
func TrimStatement(sql string) string {
	first, last := -1, -1
	for _, t := range Tokens(sql) {
		if !t.Significant() || t.IsPunct(";") {
			continue
		}
		if first < 0 {
			first = t.Pos
		}
		last = t.End()
	}
	if first < 0 {
		return ""
	}
	return sql[first:last]
}

// LooksLikeSQL reports whether s, after white space, comments and opening
// parentheses, starts with SELECT, WITH or VALUES: the statements a
// text-to-SQL answer can be.
func LooksLikeSQL(s string) bool {
	for _, t := range Tokens(s) {
		switch {
		case !t.Significant() || t.IsPunct("("):
			continue
		case t.IsWord("select") || t.IsWord("with") || t.IsWord("values"):
			return true
		}
		return false
	}
	return false
}
