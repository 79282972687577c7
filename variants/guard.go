package variants

import (
	"context"
	"fmt"
	"strings"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/constraints"
	"github.com/sqlgym/sqlgym/engine/sqlite"
	"github.com/sqlgym/sqlgym/sqltext"
)

// sqliteGuards writes the TEMP triggers that make a SQLite edit keep the
// constraints the file does not enforce itself: a NULL in any key
// (SQLite lets a key that is not an INTEGER PRIMARY KEY hold NULLs), a
// duplicate of an implied key, a child row of an implied foreign key
// whose parent is missing, and a parent deleted or renumbered under its
// children. Each trigger fires per row after the change and aborts the
// statement, which sqlite.EditGuarded then leaves out, as it leaves out
// one that breaks a declared constraint. Checking after the row is
// changed sees every earlier row of the statement: the last row to make a
// duplicate or an orphan is the one refused.
//
// Unless unseen, the column facts are kept too: a NULL only goes into a
// column whose data holds one, and a text column whose data never
// repeats a value (a name) gets no namesake, whichever edit would write
// it (a copied row, a boundary value, a relabel).
func sqliteGuards(schema *sqlgym.Schema, cons *constraints.Set, implied, unseen bool) []string {
	var out []string
	n := 0
	trigger := func(event, table, when string) {
		n++
		out = append(out, fmt.Sprintf("CREATE TEMP TRIGGER sg_guard_%d AFTER %s ON main.%s WHEN %s BEGIN SELECT RAISE(ABORT, 'sqlgym: a kept constraint'); END",
			n, event, quoteIdent(table), when))
	}
	for _, k := range cons.Keys {
		if !k.Declared && !implied {
			continue
		}
		var null, same []string
		for _, c := range k.Columns {
			null = append(null, "NEW."+quoteIdent(c)+" IS NULL")
			same = append(same, quoteIdent(c)+" = NEW."+quoteIdent(c))
		}
		when := strings.Join(null, " OR ")
		if !k.Declared {
			when += fmt.Sprintf(" OR (SELECT COUNT(*) FROM main.%s WHERE %s) > 1", quoteIdent(k.Table), strings.Join(same, " AND "))
		}
		trigger("INSERT", k.Table, when)
		trigger("UPDATE", k.Table, when)
	}
	if !unseen {
		for _, t := range schema.Tables {
			for i := range t.Columns {
				c := &t.Columns[i]
				if inKey(&t, c.Name) {
					continue
				}
				notNull, unique := cons.Observed(&t, c)
				q := quoteIdent(c.Name)
				if notNull && !c.NotNull {
					trigger("INSERT", t.Name, "NEW."+q+" IS NULL")
					trigger("UPDATE OF "+q, t.Name, "NEW."+q+" IS NULL")
				}
				if unique && !c.Unique {
					dup := fmt.Sprintf("NEW.%[1]s IS NOT NULL AND (SELECT COUNT(*) FROM main.%[2]s WHERE %[1]s = NEW.%[1]s) > 1", q, quoteIdent(t.Name))
					trigger("INSERT", t.Name, dup)
					trigger("UPDATE OF "+q, t.Name, dup)
				}
			}
		}
	}
	if !implied {
		return out
	}
	for _, f := range cons.ForeignKeys {
		if f.Declared || len(f.Columns) != 1 || schema.Table(f.RefTable) == nil {
			continue
		}
		c, p, pc := quoteIdent(f.Columns[0]), quoteIdent(f.RefTable), quoteIdent(f.RefColumns[0])
		orphan := fmt.Sprintf("NEW.%s IS NOT NULL AND NOT EXISTS (SELECT 1 FROM main.%s WHERE %s = NEW.%s)", c, p, pc, c)
		trigger("INSERT", f.Table, orphan)
		trigger("UPDATE OF "+c, f.Table, orphan)
		gone := fmt.Sprintf("EXISTS (SELECT 1 FROM main.%s WHERE %s = OLD.%s) AND NOT EXISTS (SELECT 1 FROM main.%s WHERE %s = OLD.%s)",
			quoteIdent(f.Table), c, pc, p, pc, pc)
		trigger("DELETE", f.RefTable, gone)
		trigger("UPDATE OF "+pc, f.RefTable, gone)
	}
	return out
}

// guards are the SQLite guards of the generator's kept constraints.
func (g *Generator) guards() []string {
	if g.dialect != sqlgym.DialectSQLite {
		return nil
	}
	return sqliteGuards(g.schema, g.cons, !g.opt.DeclaredOnly, g.opt.UnseenValues)
}

// guardFilter gives a build only the guards on the tables its statements
// can write: a TEMP trigger is compiled into the editing connection
// whether or not it ever fires, and creating every guard cost about a
// quarter of a candidate build's CPU on Spider's concert_singer (64
// triggers for statements that write two or three tables). A trigger
// fires only on its own table, so leaving out those on tables no
// statement writes changes no statement's fate. Foreign-key actions
// write the children of a written table, so those count as written, to
// the end of the chain; a file with triggers of its own, which may write
// anywhere, and a statement whose table is not read here, get every
// guard.
type guardFilter struct {
	all      []string
	on       []string            // each guard's table, lower case ("" not read: always kept)
	children map[string][]string // a table, lower case -> the tables with a foreign key to it
	whole    bool                // the file has triggers of its own
}

func newGuardFilter(guards []string, schema *sqlgym.Schema, ownTriggers bool) *guardFilter {
	f := &guardFilter{all: guards, children: map[string][]string{}, whole: ownTriggers}
	for _, g := range guards {
		f.on = append(f.on, guardTable(g))
	}
	for _, t := range schema.Tables {
		for _, fk := range t.ForeignKeys {
			p := strings.ToLower(fk.RefTable)
			f.children[p] = append(f.children[p], strings.ToLower(t.Name))
		}
	}
	return f
}

// forStmts is the guards a build of stmts needs.
func (f *guardFilter) forStmts(stmts []string) []string {
	if f == nil || f.whole || len(f.all) == 0 {
		if f == nil {
			return nil
		}
		return f.all
	}
	written := map[string]bool{}
	var queue []string
	for _, s := range stmts {
		t := writtenTable(s)
		if t == "" {
			return f.all
		}
		if !written[t] {
			written[t] = true
			queue = append(queue, t)
		}
	}
	for len(queue) > 0 {
		t := queue[0]
		queue = queue[1:]
		for _, c := range f.children[t] {
			if !written[c] {
				written[c] = true
				queue = append(queue, c)
			}
		}
	}
	var out []string
	for i, g := range f.all {
		if f.on[i] == "" || written[f.on[i]] {
			out = append(out, g)
		}
	}
	return out
}

// guardTable is the table a guard of sqliteGuards is on, lower case.
func guardTable(guard string) string {
	_, rest, ok := strings.Cut(guard, " ON main.")
	if !ok {
		return ""
	}
	name, _, ok := strings.Cut(rest, " WHEN ")
	if !ok {
		return ""
	}
	return guardIdent(name)
}

// writtenTable is the table an INSERT, REPLACE, UPDATE or DELETE
// statement writes, lower case, after any WITH clause; "" when the
// statement is not read as one of those.
func writtenTable(stmt string) string {
	depth, pos := 0, 0
	next := func() (sqltext.Token, bool) {
		for pos < len(stmt) {
			t := sqltext.TokenAt(stmt, pos)
			pos += len(t.Text)
			if t.Significant() {
				return t, true
			}
		}
		return sqltext.Token{}, false
	}
	for {
		t, ok := next()
		if !ok {
			return ""
		}
		switch {
		case t.IsPunct("("):
			depth++
			continue
		case t.IsPunct(")"):
			depth--
			continue
		case depth > 0:
			continue
		}
		var want string
		switch {
		case t.IsWord("INSERT"), t.IsWord("REPLACE"):
			want = "INTO"
		case t.IsWord("DELETE"):
			want = "FROM"
		case t.IsWord("UPDATE"):
		default:
			continue
		}
		t, ok = next()
		if ok && t.IsWord("OR") { // INSERT OR IGNORE, UPDATE OR REPLACE
			if _, ok = next(); ok {
				t, ok = next()
			}
		}
		if want != "" {
			if !ok || !t.IsWord(want) {
				return ""
			}
			t, ok = next()
		}
		if !ok || (t.Kind != sqltext.Word && t.Kind != sqltext.QuotedIdent) {
			return ""
		}
		name := t.Text
		save := pos
		if d, ok := next(); ok && d.IsPunct(".") { // schema.table
			if n, ok := next(); ok && (n.Kind == sqltext.Word || n.Kind == sqltext.QuotedIdent) {
				name = n.Text
			} else {
				return ""
			}
		} else {
			pos = save
		}
		return guardIdent(name)
	}
}

// guardIdent is an identifier as SQLite names it, lower case.
func guardIdent(s string) string {
	if len(s) >= 2 {
		switch q := s[0]; q {
		case '"', '`':
			if s[len(s)-1] == q {
				s = strings.ReplaceAll(s[1:len(s)-1], string([]byte{q, q}), string(q))
			}
		case '[':
			if s[len(s)-1] == ']' {
				s = s[1 : len(s)-1]
			}
		}
	}
	return strings.ToLower(s)
}

// ownTriggers reports whether the SQLite file at path has triggers of its
// own, which may write any table (guardFilter then gives every guard).
func ownTriggers(ctx context.Context, path string) (bool, error) {
	eng, err := sqlite.Open(path, sqlite.Options{PoolSize: 1})
	if err != nil {
		return false, fmt.Errorf("read the database's triggers: %w", err)
	}
	defer eng.Close()
	rs, err := eng.Query(ctx, "SELECT COUNT(*) FROM sqlite_master WHERE type = 'trigger'", sqlgym.Limits{})
	if err != nil {
		return false, fmt.Errorf("read the database's triggers: %w", err)
	}
	return len(rs.Rows) == 1 && rs.Rows[0][0].Int > 0, nil
}
