package variants

import (
	"fmt"
	"strings"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/constraints"
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
