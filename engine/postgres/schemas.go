package postgres

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/sqlgym/sqlgym"
)

// tableSchemasQuery lists the schemas that hold tables or views and that
// the role may use, most tables first: a schema the role cannot use is not
// where its tables are (and a superuser may use them all).
const tableSchemasQuery = `SELECT n.nspname::text FROM pg_catalog.pg_class c
JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
WHERE c.relkind IN ('r', 'v', 'm', 'p', 'f')
  AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname !~ '^pg_'
  AND has_schema_privilege(n.oid, 'USAGE')
GROUP BY n.nspname ORDER BY count(*) DESC, n.nspname`

// tableSchemas lists the schemas holding tables; on failure it returns
// none, since it only improves a hint.
func (e *Engine) tableSchemas(ctx context.Context) []string {
	rows, err := e.pool.Query(ctx, tableSchemasQuery, pgx.QueryExecModeSimpleProtocol)
	if err != nil {
		return nil
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil
	}
	return names
}

// hintSchema is the schema a hint should grant on and name: the one given,
// else public when it holds tables, else the schema that holds the most.
// moved is true when the tables are not where sqlgym would look
// (no --pg-schema given, public empty).
func hintSchema(given string, holding []string) (schema string, moved bool) {
	if given != "" {
		return given, false
	}
	if len(holding) == 0 || slices.Contains(holding, "public") {
		return "public", false
	}
	return holding[0], true
}

// schemaFlagHint is the line a hint adds about --pg-schema: which schema
// holds the tables and what to pass.
func schemaFlagHint(given string, holding []string) string {
	schema, moved := hintSchema(given, holding)
	switch {
	case given != "":
		return "and keep --pg-schema " + given + " so sqlgym reads the tables there"
	case moved:
		return fmt.Sprintf("and pass --pg-schema %s: the tables are in schema %s (schemas with tables: %s), not public",
			schema, schema, strings.Join(holding, ", "))
	}
	return "the tables are in schema public, so no --pg-schema is needed (pass --pg-schema S for tables in another schema)"
}

// tablesElsewhere refuses a connection with no --pg-schema whose public
// schema holds no tables while another schema does: every gold would fail
// with "relation does not exist", so no task could be scored.
func tablesElsewhere(database string, holding []string) error {
	schema, moved := hintSchema("", holding)
	if !moved {
		return nil
	}
	return &sqlgym.UserError{
		Msg: fmt.Sprintf("postgres database %q: schema public holds no tables; they are in schema %s (schemas with tables: %s)",
			database, schema, strings.Join(holding, ", ")),
		Hint: "pass --pg-schema " + schema,
	}
}
