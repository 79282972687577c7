package failure

import (
	"slices"
	"strings"

	"github.com/sqlgym/sqlgym/sqltext"
)

// structure is what the taxonomy reads of a query's text. It is read off
// sqltext's tokens rather than a parse tree: no Go SQL parser reads the
// SQLite, DuckDB and PostgreSQL dialects alike (and models' SQL is often
// not valid in the one dialect a parser knows), while the few facts here,
// the tables named, the outer GROUP BY, the filters' literals and
// comparisons, the outer ORDER BY, LIMIT and DISTINCT, are at fixed places
// in the token stream of any dialect.
type structure struct {
	tables   []string // sorted, distinct, lower-cased, without schema
	groupBy  []string // outer query's GROUP BY items, qualifiers dropped
	literals []string // WHERE and HAVING literals, any depth
	ops      []string // WHERE and HAVING comparisons, any depth
	orderBy  string   // outer ORDER BY text, lower-cased
	limit    string   // outer LIMIT (and OFFSET) text
	distinct bool     // outer SELECT DISTINCT
	selects  string   // outer select list, lower-cased, qualifiers dropped
}

var comparisonWords = map[string]bool{"like": true, "ilike": true, "glob": true, "in": true,
	"between": true, "not": true, "is": true, "exists": true}

var comparisonOps = map[string]bool{"=": true, "==": true, "<": true, ">": true, "<=": true,
	">=": true, "!=": true, "<>": true}

// clauseWords start a clause of the query they are in.
var clauseWords = map[string]string{"select": "select", "from": "from", "join": "from", "where": "where",
	"having": "having", "on": "on", "limit": "limit", "offset": "limit", "union": "select",
	"intersect": "select", "except": "select", "window": "window", "qualify": "where"}

func parseStructure(sql string) structure {
	var toks []sqltext.Token
	for _, t := range sqltext.Tokens(sql) {
		if t.Significant() {
			toks = append(toks, t)
		}
	}
	if i := slices.IndexFunc(toks, func(t sqltext.Token) bool { return t.IsPunct(";") }); i >= 0 {
		toks = toks[:i]
	}
	var s structure
	clause := []string{""} // per parenthesis depth
	tableNext := false
	var order, limit []string
	groupItems := [][]string{}
	tables := map[string]bool{}
	for i, t := range toks {
		d := len(clause) - 1
		switch {
		case t.IsPunct("("):
			clause = append(clause, "")
			tableNext = false
			continue
		case t.IsPunct(")"):
			if d > 0 {
				clause = clause[:d]
			}
			continue
		}
		low := strings.ToLower(t.Text)
		if t.Kind == sqltext.Word {
			if c, ok := clauseWords[low]; ok {
				clause[d] = c
				tableNext = c == "from" && low != "on"
				if d == 0 && low == "select" && i+1 < len(toks) && toks[i+1].IsWord("distinct") {
					s.distinct = true
				}
				continue
			}
			if (low == "group" || low == "order") && i+1 < len(toks) && toks[i+1].IsWord("by") {
				clause[d] = low
				if d == 0 && low == "group" {
					groupItems = append(groupItems, nil)
				}
				continue
			}
		}
		switch clause[d] {
		case "from":
			if tableNext && (t.Kind == sqltext.Word || t.Kind == sqltext.QuotedIdent) {
				name := unquote(t.Text)
				// schema.table: keep the table.
				if i+2 < len(toks) && toks[i+1].IsPunct(".") {
					continue
				}
				tables[name] = true
				tableNext = false
			} else if t.IsPunct(",") {
				tableNext = true
			}
		case "where", "having":
			switch {
			case t.Kind == sqltext.String || t.Kind == sqltext.Number:
				s.literals = append(s.literals, t.Text)
			case t.Kind == sqltext.Operator && comparisonOps[t.Text]:
				s.ops = append(s.ops, t.Text)
			case t.Kind == sqltext.Word && comparisonWords[low]:
				s.ops = append(s.ops, low)
			}
		case "group":
			if d == 0 && !t.IsWord("by") {
				if t.IsPunct(",") {
					groupItems = append(groupItems, nil)
				} else if n := len(groupItems); n > 0 && !(i+1 < len(toks) && toks[i+1].IsPunct(".")) && !t.IsPunct(".") {
					groupItems[n-1] = append(groupItems[n-1], unquote(t.Text))
				}
			}
		case "order":
			if d == 0 && !t.IsWord("by") {
				order = append(order, low)
			}
		case "limit":
			if d == 0 {
				limit = append(limit, low)
			}
		}
	}
	s.selects = selectList(toks)
	for _, it := range groupItems {
		if len(it) > 0 {
			s.groupBy = append(s.groupBy, strings.Join(it, " "))
		}
	}
	slices.Sort(s.groupBy)
	for name := range tables {
		s.tables = append(s.tables, name)
	}
	slices.Sort(s.tables)
	s.orderBy = strings.Join(order, " ")
	s.limit = strings.Join(limit, " ")
	return s
}

func unquote(s string) string {
	if len(s) >= 2 {
		switch s[0] {
		case '"', '`', '[':
			s = s[1 : len(s)-1]
		}
	}
	return strings.ToLower(s)
}

// selectList is the outer query's first select list as text, lower-cased,
// with table qualifiers dropped (T1.name and name read alike).
func selectList(toks []sqltext.Token) string {
	var b []string
	depth, in := 0, false
	for i, t := range toks {
		switch {
		case t.IsPunct("("):
			depth++
		case t.IsPunct(")"):
			depth--
		}
		if depth == 0 && t.Kind == sqltext.Word {
			switch strings.ToLower(t.Text) {
			case "select":
				if in {
					return strings.Join(b, " ")
				}
				in = true
				continue
			case "from":
				return strings.Join(b, " ")
			}
		}
		if !in || t.IsPunct(".") || (i+1 < len(toks) && toks[i+1].IsPunct(".")) {
			continue
		}
		b = append(b, unquote(t.Text))
	}
	return strings.Join(b, " ")
}
