package cmdkit

import (
	"context"
	"fmt"
	"os"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/catalog"
	"github.com/sqlgym/sqlgym/schema"
)

// CatalogFor builds the catalog and opens and checks every database the
// tasks name (checkDatabases), so a missing --db, a file that is not a
// database, an unreachable or refused server or an empty schema is one
// clear error before any work starts, not a file of gold_errors or a
// server that fails per request. The caller closes the catalog.
func (f DBFlags) CatalogFor(ctx context.Context, tasks []sqlgym.Task) (*catalog.Catalog, error) {
	cat, err := f.Catalog()
	if err != nil {
		return nil, err
	}
	if err := checkDatabases(ctx, cat, tasks, f.PGSchema); err != nil {
		cat.Close()
		return nil, err
	}
	return cat, nil
}

// checkDatabases is the one check every command makes of its databases
// before work: each database the tasks name resolves, opens as its engine
// opens it for the verifier (a PostgreSQL role that may do more than read
// is refused there), and shows at least one table. The engines stay open
// in the catalog for the work that follows.
func checkDatabases(ctx context.Context, cat *catalog.Catalog, tasks []sqlgym.Task, pgSchema string) error {
	seen := map[string]bool{}
	for _, t := range tasks {
		if seen[t.DB] {
			continue
		}
		seen[t.DB] = true
		if err := checkDatabase(ctx, cat, t.DB, pgSchema); err != nil {
			return fmt.Errorf("task %s: %w", t.ID, err)
		}
	}
	return checkVariantFiles(tasks)
}

// checkVariantFiles makes sure every variant file the tasks' db_variants
// name is there before any work: a folder of variants copied without one
// of its files is named as such, not reported later as a database that
// cannot be reached (issue 24).
func checkVariantFiles(tasks []sqlgym.Task) error {
	seen := map[string]bool{}
	for _, t := range tasks {
		for _, u := range t.DBVariants {
			p := sqlgym.VariantFile(u)
			if p == "" || seen[p] {
				continue
			}
			seen[p] = true
			if _, err := os.Stat(p); err != nil {
				return sqlgym.Userf("copy or move the variants folder whole (its tasks.jsonl and every NAME/ folder beside it), or make the variants again with sqlgym variants",
					"task %s: variant database file %s is missing (named in its db_variants): %w", t.ID, p, err)
			}
		}
	}
	return nil
}

func checkDatabase(ctx context.Context, cat *catalog.Catalog, name, pgSchema string) error {
	if _, err := cat.Resolve(name); err != nil {
		return err
	}
	eng, err := cat.Engine(ctx, name)
	switch {
	case err != nil && ctx.Err() != nil:
		return err
	case sqlgym.IsInfra(err):
		return sqlgym.Userf("is the database server running and reachable? Check the --db URL of "+name,
			"database %s cannot be reached: %w", name, err)
	case err != nil:
		return fmt.Errorf("database %s: %w", name, err)
	}
	s, err := schema.Load(ctx, eng, 0)
	if err != nil {
		return fmt.Errorf("database %s: read its tables: %w", name, err)
	}
	if len(s.Tables) > 0 {
		return nil
	}
	hint := "load the data first, or point --db " + name + " at the database that holds it"
	if eng.Dialect() == sqlgym.DialectPostgres {
		where := "schema public"
		if pgSchema != "" {
			where = "schema " + pgSchema
		}
		hint = "pass --pg-schema with the schema that holds the tables (sqlgym db create prints it), or load them into " + where
	}
	return sqlgym.Userf(hint, "database %s has no tables this role can read", name)
}
