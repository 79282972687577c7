package screen

import (
	"strings"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/sqltext"
)

// colRef is a column occurrence in a gold that the schema explains: the
// token holding the column's name, and the table it belongs to.
type colRef struct {
	at    int
	table *sqlgym.Table
	col   *sqlgym.Column
}

// columns finds the column occurrences of q that resolve to exactly one
// table of the schema: a qualified name through its table or alias, a bare
// name through the one table of those the query names that has it. Names
// that resolve to no table or to several are left out: a mutant built on a
// guess would often not run, and so tell nothing.
func (q *query) columns(s *sqlgym.Schema) []colRef {
	if s == nil {
		return nil
	}
	alias := map[string]*sqlgym.Table{}
	var named []*sqlgym.Table
	for i, t := range q.toks {
		if t.Kind != sqltext.Word && t.Kind != sqltext.QuotedIdent || q.punct(i+1, ".") || q.punct(i+1, "(") {
			continue
		}
		if !q.word(i-1, "from", "join") && !q.punct(i-1, ",") {
			continue
		}
		tb := s.Table(unquote(t.Text))
		if tb == nil {
			continue
		}
		named = append(named, tb)
		alias[strings.ToLower(tb.Name)] = tb
		a := i + 1
		if q.word(a, "as") {
			a++
		}
		if a < len(q.toks) && (q.toks[a].Kind == sqltext.QuotedIdent || q.toks[a].Kind == sqltext.Word && !reserved(q.toks[a].Text)) {
			alias[strings.ToLower(unquote(q.toks[a].Text))] = tb
		}
	}
	var out []colRef
	for i, t := range q.toks {
		if t.Kind != sqltext.Word && t.Kind != sqltext.QuotedIdent || q.punct(i+1, ".") || q.punct(i+1, "(") {
			continue
		}
		name := unquote(t.Text)
		var tb *sqlgym.Table
		if q.punct(i-1, ".") && i >= 2 {
			tb = alias[strings.ToLower(unquote(q.toks[i-2].Text))]
		} else {
			for _, n := range named {
				if column(n, name) != nil {
					if tb != nil && tb != n {
						tb = nil
						break
					}
					tb = n
				}
			}
		}
		if tb == nil {
			continue
		}
		if c := column(tb, name); c != nil {
			out = append(out, colRef{at: i, table: tb, col: c})
		}
	}
	return out
}

func column(t *sqlgym.Table, name string) *sqlgym.Column { return t.Column(name) }

func unquote(s string) string {
	if len(s) >= 2 && (s[0] == '"' || s[0] == '`' || s[0] == '[') {
		return s[1 : len(s)-1]
	}
	return s
}

// reserved lists the words that can follow a table name without being its
// alias.
func reserved(w string) bool {
	switch strings.ToLower(w) {
	case "on", "using", "join", "inner", "left", "right", "full", "cross", "natural", "where", "group", "order",
		"limit", "union", "intersect", "except", "window", "having", "offset", "as", "outer", "lateral", "fetch":
		return true
	}
	return false
}

// baseType is a column's declared type without its size: VARCHAR(50) and
// VARCHAR(120) are one type for a model choosing the wrong column.
func baseType(c *sqlgym.Column) string {
	t, _, _ := strings.Cut(strings.ToLower(strings.TrimSpace(c.Type)), "(")
	return strings.TrimSpace(t)
}

// sameType returns the other columns of the column's table with its type,
// in schema order.
func sameType(r colRef) []*sqlgym.Column {
	var out []*sqlgym.Column
	bt := baseType(r.col)
	for i := range r.table.Columns {
		c := &r.table.Columns[i]
		if c != r.col && baseType(c) == bt {
			out = append(out, c)
		}
	}
	return out
}

// keyLike reports whether a column is a key: part of the primary key, of
// a foreign key, or named like one.
func keyLike(t *sqlgym.Table, c *sqlgym.Column) bool {
	n := strings.ToLower(c.Name)
	if n == "id" || strings.HasSuffix(n, "_id") || strings.HasSuffix(n, "id") {
		return true
	}
	for _, p := range t.PrimaryKey {
		if strings.EqualFold(p, c.Name) {
			return true
		}
	}
	for _, fk := range t.ForeignKeys {
		for _, fc := range fk.Columns {
			if strings.EqualFold(fc, c.Name) {
				return true
			}
		}
	}
	return false
}
