package baseline

import (
	"strings"

	"github.com/sqlgym/sqlgym/sqltext"
)

// tablesUsed lists the tables a query reads, in order of first mention:
// the names after FROM and JOIN, and after the commas of a FROM list. A
// schema-qualified name gives its last part; quotes are removed. Subqueries
// are entered, since their own FROM clauses are found the same way; CTE
// names are tables here too, which is harmless for the one use of this
// list, telling an agent which tables to look at.
func tablesUsed(sql string) []string {
	var toks []sqltext.Token
	for _, t := range sqltext.Tokens(sql) {
		if t.Significant() {
			toks = append(toks, t)
		}
	}
	var out []string
	seen := map[string]bool{}
	for i := 0; i < len(toks); i++ {
		if !toks[i].IsWord("from") && !toks[i].IsWord("join") {
			continue
		}
		for j := i + 1; j < len(toks); {
			name, n := tableName(toks[j:])
			if n == 0 {
				break
			}
			if k := strings.ToLower(name); !seen[k] {
				seen[k] = true
				out = append(out, name)
			}
			j += n
			// Skip an alias, with or without AS, then go on after a comma.
			if j < len(toks) && toks[j].IsWord("as") {
				j++
			}
			if j < len(toks) && (toks[j].Kind == sqltext.QuotedIdent || toks[j].Kind == sqltext.Word && !clauseWord(toks[j])) {
				j++
			}
			if j < len(toks) && toks[j].IsPunct(",") {
				j++
				continue
			}
			break
		}
	}
	return out
}

// tableName reads a possibly qualified name at the start of toks and
// returns its last part and how many tokens it took.
func tableName(toks []sqltext.Token) (string, int) {
	n := 0
	name := ""
	for n < len(toks) {
		t := toks[n]
		if t.Kind != sqltext.Word && t.Kind != sqltext.QuotedIdent || t.Kind == sqltext.Word && clauseWord(t) {
			break
		}
		name = unquoteIdent(t.Text)
		n++
		if n < len(toks) && toks[n].IsPunct(".") {
			n++
			continue
		}
		return name, n
	}
	return "", 0
}

// clauseWord reports words that end a FROM item instead of naming an alias.
func clauseWord(t sqltext.Token) bool {
	switch strings.ToLower(t.Text) {
	case "where", "group", "order", "having", "limit", "offset", "join", "inner", "left", "right", "full",
		"outer", "cross", "natural", "on", "using", "union", "intersect", "except", "window", "as",
		"select", "lateral", "fetch", "qualify", "returning":
		return true
	}
	return false
}

func unquoteIdent(s string) string {
	if len(s) >= 2 {
		switch s[0] {
		case '"', '`':
			return strings.ReplaceAll(s[1:len(s)-1], s[:1]+s[:1], s[:1])
		case '[':
			return s[1 : len(s)-1]
		}
	}
	return s
}
