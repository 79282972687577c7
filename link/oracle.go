package link

import (
	"sort"
	"strings"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/sqltext"
)

// Used is what a query reads, in a schema's own spelling.
type Used struct {
	Tables []string `json:"tables"`
	// Columns are "table.column".
	Columns []string `json:"columns"`
}

// clauseEnds are the keywords after which a FROM list is over.
var clauseEnds = setOf(`where group order having limit offset union except intersect on using select window qualify returning fetch`)

// notAlias are words that can follow a table name without being its alias.
var notAlias = setOf(`where group order having limit offset union except intersect on using join inner left right full outer cross natural as select window qualify set returning fetch lateral`)

// sqlRef is one token that names a schema table.
type sqlRef struct {
	table    int // the table's index in the schema
	position int // the token's byte offset in the SQL
}

// ident is an identifier token's name without its quotes.
func ident(t sqltext.Token) (string, bool) {
	switch t.Kind {
	case sqltext.Word:
		return t.Text, true
	case sqltext.QuotedIdent:
		s := t.Text
		if len(s) >= 2 {
			q := s[:1]
			if q == "[" {
				return s[1 : len(s)-1], true
			}
			return strings.ReplaceAll(s[1:len(s)-1], q+q, q), true
		}
	}
	return "", false
}

// tableRefs walks a query's tokens with the repository's SQL tokenizer
// and finds where it names the schema's tables: in a FROM or JOIN list
// (at any nesting depth, so subqueries and CTE bodies count), or as the
// qualifier of a column (singer.name). String literals and comments are
// tokens of their own, so a table name inside 'text' is never taken.
func tableRefs(sql string, s *sqlgym.Schema) (toks []sqltext.Token, refs []sqlRef, aliases map[string]int) {
	byName := map[string]int{}
	for i, t := range s.Tables {
		byName[strings.ToLower(t.Name)] = i
	}
	for _, t := range sqltext.Tokens(sql) {
		if t.Significant() {
			toks = append(toks, t)
		}
	}
	aliases = map[string]int{}
	inFrom := []bool{false} // per parenthesis depth
	for i, t := range toks {
		switch {
		case t.IsPunct("("):
			inFrom = append(inFrom, false)
			continue
		case t.IsPunct(")"):
			if len(inFrom) > 1 {
				inFrom = inFrom[:len(inFrom)-1]
			}
			continue
		case t.IsWord("from") || t.IsWord("join"):
			inFrom[len(inFrom)-1] = true
			continue
		case t.Kind == sqltext.Word && clauseEnds[strings.ToLower(t.Text)]:
			inFrom[len(inFrom)-1] = false
			continue
		}
		name, ok := ident(t)
		if !ok {
			continue
		}
		ti, isName := byName[strings.ToLower(name)]
		prev, next := tokAt(toks, i-1), tokAt(toks, i+1)
		if prev.IsPunct(".") {
			continue // a column, read below
		}
		listed := inFrom[len(inFrom)-1] && (prev.IsWord("from") || prev.IsWord("join") || prev.IsPunct(","))
		if isName && (listed || next.IsPunct(".") && !isAlias(aliases, name)) {
			refs = append(refs, sqlRef{table: ti, position: t.Pos})
			if listed {
				// table [AS] alias
				j := i + 1
				if tokAt(toks, j).IsWord("as") {
					j++
				}
				if a, ok := ident(tokAt(toks, j)); ok && !notAlias[strings.ToLower(a)] && !tokAt(toks, j+1).IsPunct(".") {
					aliases[strings.ToLower(a)] = ti
				}
			}
		}
	}
	return toks, refs, aliases
}

func isAlias(aliases map[string]int, name string) bool {
	_, ok := aliases[strings.ToLower(name)]
	return ok
}

func tokAt(toks []sqltext.Token, i int) sqltext.Token {
	if i < 0 || i >= len(toks) {
		return sqltext.Token{Kind: sqltext.Space}
	}
	return toks[i]
}

// Parse finds the tables and columns a query reads. Columns are resolved
// through aliases (T1.name), qualifiers (singer.name) and, unqualified,
// to every table of the query that has a column of that name. When the
// FROM lists name no table of the schema (a dialect the walk does not
// know), any identifier that is a table name counts.
func Parse(sql string, s *sqlgym.Schema) Used {
	toks, refs, aliases := tableRefs(sql, s)
	tables := map[int]bool{}
	for _, r := range refs {
		tables[r.table] = true
	}
	if len(tables) == 0 {
		for _, t := range toks {
			if name, ok := ident(t); ok {
				if st := s.Table(name); st != nil {
					tables[indexOf(s, st)] = true
				}
			}
		}
	}
	cols := map[[2]int]bool{}
	colIndex := func(ti int, name string) int {
		for ci, c := range s.Tables[ti].Columns {
			if strings.EqualFold(c.Name, name) {
				return ci
			}
		}
		return -1
	}
	for i, t := range toks {
		name, ok := ident(t)
		if !ok || tokAt(toks, i+1).IsPunct(".") || tokAt(toks, i+1).IsPunct("(") {
			continue
		}
		if tokAt(toks, i-1).IsPunct(".") {
			q, _ := ident(tokAt(toks, i-2))
			ti, ok := aliases[strings.ToLower(q)]
			if !ok {
				st := s.Table(q)
				if st == nil {
					continue
				}
				ti = indexOf(s, st)
			}
			if ci := colIndex(ti, name); ci >= 0 {
				cols[[2]int{ti, ci}] = true
			}
			continue
		}
		for ti := range tables {
			if ci := colIndex(ti, name); ci >= 0 {
				cols[[2]int{ti, ci}] = true
			}
		}
	}
	var u Used
	for ti := range s.Tables {
		if tables[ti] {
			u.Tables = append(u.Tables, s.Tables[ti].Name)
		}
	}
	for k := range cols {
		u.Columns = append(u.Columns, s.Tables[k[0]].Name+"."+s.Tables[k[0]].Columns[k[1]].Name)
	}
	sort.Strings(u.Columns)
	return u
}

func indexOf(s *sqlgym.Schema, t *sqlgym.Table) int {
	for i := range s.Tables {
		if &s.Tables[i] == t {
			return i
		}
	}
	return -1
}

// Oracle is the selection of exactly the tables the gold reads.
func (db *Database) Oracle(gold string) *Selection {
	u := Parse(gold, db.Schema)
	used := map[string]bool{}
	for _, t := range u.Tables {
		used[strings.ToLower(t)] = true
	}
	colsOf := map[string][]Column{}
	for _, c := range u.Columns {
		t, col, _ := strings.Cut(c, ".")
		colsOf[strings.ToLower(t)] = append(colsOf[strings.ToLower(t)], Column{Name: col, Why: []Reason{{Kind: "gold"}}})
	}
	sel := &Selection{Mode: ModeOracle, TotalTables: len(db.Schema.Tables), FullChars: db.FullChars}
	for i, t := range db.Schema.Tables {
		if used[strings.ToLower(t.Name)] {
			sel.Tables = append(sel.Tables, Table{Name: t.Name, Why: []Reason{{Kind: "gold"}}, Columns: colsOf[strings.ToLower(t.Name)], Chars: len(db.TableText[i])})
			sel.Chars += len(db.TableText[i])
		}
	}
	return sel
}

// RenameTables rewrites a query's references to the schema's tables with
// rename (a table name -> its new name), leaving columns, aliases,
// literals and comments as they are. It is how a gold written for one
// database is moved onto a merged database whose tables are prefixed.
func RenameTables(sql string, s *sqlgym.Schema, rename func(string) string) string {
	_, refs, _ := tableRefs(sql, s)
	var b strings.Builder
	last := 0
	for _, r := range refs {
		t := sqltext.TokenAt(sql, r.position)
		b.WriteString(sql[last:r.position])
		b.WriteString(quoteIfNeeded(rename(s.Tables[r.table].Name)))
		last = t.End()
	}
	b.WriteString(sql[last:])
	return b.String()
}

func quoteIfNeeded(name string) string {
	for i, r := range name {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
		}
	}
	return name
}
