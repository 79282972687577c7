package sqlite

import (
	"strings"

	"github.com/sqlgym/sqlgym/sqltext"
)

// collations reads the COLLATE clauses of a CREATE TABLE statement's
// column definitions: SQLite's pragmas report a column's type and NOT NULL
// but not its collating sequence, which only the statement SQLite keeps in
// sqlite_schema holds. It returns the lower-cased column name's collation
// (upper-cased) for every column that declares one other than BINARY.
// Table constraints and anything inside a column's parentheses (a CHECK, a
// generated column's expression) are not column collations and are
// skipped.
func collations(ddl string) map[string]string {
	var toks []sqltext.Token
	for _, t := range sqltext.Tokens(ddl) {
		if t.Significant() {
			toks = append(toks, t)
		}
	}
	out := map[string]string{}
	depth := 0
	start := -1 // first token of the current column definition
	for k, t := range toks {
		switch {
		case t.IsPunct("("):
			depth++
			if depth == 1 {
				start = k + 1
			}
			continue
		case t.IsPunct(")"):
			depth--
			continue
		case depth != 1:
			continue
		case t.IsPunct(","):
			start = k + 1
			continue
		}
		if !t.IsWord("collate") || k+1 >= len(toks) || start < 0 || start >= k {
			continue
		}
		def := toks[start]
		if def.IsWord("constraint") || def.IsWord("primary") || def.IsWord("unique") || def.IsWord("check") ||
			def.IsWord("foreign") {
			continue
		}
		if c := strings.ToUpper(unquoteName(toks[k+1].Text)); c != "BINARY" {
			out[strings.ToLower(unquoteName(def.Text))] = c
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
