package sqlite

import "strings"

// collations reads the COLLATE clauses of a CREATE TABLE statement's
// column definitions: SQLite's pragmas report a column's type and NOT NULL
// but not its collating sequence, which only the statement SQLite keeps in
// sqlite_schema holds. It returns the lower-cased column name's collation
// (upper-cased) for every column that declares one other than BINARY.
// Table constraints and anything inside a column's parentheses (a CHECK, a
// generated column's expression) are not column collations and are
// skipped.
func collations(ddl string) map[string]string {
	toks := ddlTokens(ddl)
	out := map[string]string{}
	depth := 0
	start := -1 // first token of the current column definition
	for k, t := range toks {
		switch {
		case t == "(":
			depth++
			if depth == 1 {
				start = k + 1
			}
			continue
		case t == ")":
			depth--
			continue
		case depth != 1:
			continue
		case t == ",":
			start = k + 1
			continue
		}
		if !strings.EqualFold(t, "collate") || k+1 >= len(toks) || start < 0 || start >= k {
			continue
		}
		switch strings.ToLower(toks[start]) {
		case "constraint", "primary", "unique", "check", "foreign":
			continue // a table constraint
		}
		if c := strings.ToUpper(unquoteName(toks[k+1])); c != "BINARY" {
			out[strings.ToLower(unquoteName(toks[start]))] = c
		}
	}
	return out
}

// ddlTokens splits a statement into words, quoted names and strings (with
// their quotes), and single punctuation characters, dropping white space
// and comments. It is enough for reading column definitions; the engine
// cannot use the project's tokenizer (sqltext), whose tests use the engine.
func ddlTokens(s string) []string {
	var out []string
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '-' && i+1 < len(s) && s[i+1] == '-':
			for i < len(s) && s[i] != '\n' {
				i++
			}
		case c == '/' && i+1 < len(s) && s[i+1] == '*':
			end := strings.Index(s[i+2:], "*/")
			if end < 0 {
				return out
			}
			i += end + 4
		case c == '\'' || c == '"' || c == '`' || c == '[':
			closer := c
			if c == '[' {
				closer = ']'
			}
			j := i + 1
			for j < len(s) {
				if s[j] == closer {
					if closer != ']' && j+1 < len(s) && s[j+1] == closer {
						j += 2 // a doubled quote
						continue
					}
					break
				}
				j++
			}
			if j >= len(s) {
				return append(out, s[i:])
			}
			out = append(out, s[i:j+1])
			i = j + 1
		case c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80:
			j := i
			for j < len(s) && (s[j] == '_' || s[j] == '$' || s[j] >= '0' && s[j] <= '9' || s[j] >= 'a' && s[j] <= 'z' ||
				s[j] >= 'A' && s[j] <= 'Z' || s[j] >= 0x80) {
				j++
			}
			out = append(out, s[i:j])
			i = j
		default:
			out = append(out, s[i:i+1])
			i++
		}
	}
	return out
}

// unquoteName strips SQLite's identifier quotes: "x", [x], `x`, 'x'.
func unquoteName(s string) string {
	if len(s) >= 2 {
		switch s[0] {
		case '"', '`', '\'':
			return strings.ReplaceAll(s[1:len(s)-1], s[:1]+s[:1], s[:1])
		case '[':
			return s[1 : len(s)-1]
		}
	}
	return s
}
