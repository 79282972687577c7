package cmdkit

import (
	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/catalog"
)

// UseEngineGolds sets each task's SQL to the gold written for the engine
// its database resolves to (Task.GoldFor), for commands that hand the gold
// on as text (export's gold_sql and ground_truth), so a trainer scoring on
// the shop in PostgreSQL gets PostgreSQL SQL. A database that does not
// resolve keeps its task unchanged; the catalog's checks report it.
func UseEngineGolds(cat *catalog.Catalog, tasks []sqlgym.Task) {
	dialect := DialectOf(cat)
	for i := range tasks {
		t := &tasks[i]
		if len(t.GoldByDialect) > 0 {
			t.SQL = t.GoldFor(dialect(t.DB))
		}
	}
}

// DialectOf names the engine a database name resolves to in cat, or ""
// (which Task.GoldFor reads as the task's sql) when it does not resolve.
func DialectOf(cat *catalog.Catalog) func(db string) sqlgym.Dialect {
	return func(db string) sqlgym.Dialect {
		u, err := cat.Resolve(db)
		if err != nil {
			return ""
		}
		return sqlgym.URLDialect(u)
	}
}
