package cli

import (
	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/catalog"
)

// useEngineGolds sets each task's SQL to the gold written for the engine
// its database resolves to (Task.GoldFor), for commands that hand the gold
// on as text (export's gold_sql and ground_truth), so a trainer scoring on
// the shop in PostgreSQL gets PostgreSQL SQL. A database that does not
// resolve keeps its task unchanged; the catalog's checks report it.
func useEngineGolds(cat *catalog.Catalog, tasks []sqlgym.Task) {
	for i := range tasks {
		t := &tasks[i]
		if len(t.GoldByDialect) == 0 {
			continue
		}
		if u, err := cat.Resolve(t.DB); err == nil {
			t.SQL = t.GoldFor(sqlgym.URLDialect(u))
		}
	}
}
