package duckdb

import (
	"context"
	"database/sql/driver"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"

	duck "github.com/duckdb/duckdb-go/v2"

	"github.com/sqlgym/sqlgym"
)

// allowedTableFunctions is the allow-list of table functions (and DuckDB's
// built-in table macros) a statement may call: row generators, JSON
// walkers and the read-only catalog. Every other table function is
// refused, whatever DuckDB version adds: among them the ones that change
// the instance for later statements (enable_logging, disable_logging,
// truncate_duckdb_logs, enable_profiling, disable_profiling,
// enable_peg_parser, disable_peg_parser, checkpoint, force_checkpoint),
// read what other statements did (duckdb_logs, duckdb_log_contexts,
// duckdb_prepared_statements, duckdb_variables, duckdb_temporary_files,
// duckdb_memory), run SQL from a string the gate never sees (query,
// query_table, json_execute_serialized_sql), or read files (read_*, glob,
// parquet_*, sniff_csv; also refused by enable_external_access).
var allowedTableFunctions = map[string]bool{
	"range": true, "generate_series": true, "unnest": true, "repeat": true, "repeat_row": true,
	"json_each": true, "json_tree": true, "histogram": true, "histogram_values": true,
	"duckdb_tables": true, "duckdb_columns": true, "duckdb_constraints": true, "duckdb_schemas": true,
	"duckdb_views": true, "duckdb_indexes": true, "duckdb_types": true, "duckdb_functions": true,
	"duckdb_keywords": true, "duckdb_settings": true, "duckdb_databases": true, "duckdb_dependencies": true,
	"duckdb_sequences": true, "duckdb_optimizers": true, "duckdb_coordinate_systems": true,
	"duckdb_approx_database_count": true,
	"pragma_table_info":            true, "pragma_show": true, "pragma_version": true, "pragma_platform": true,
	"pragma_collations": true, "pragma_database_size": true, "pragma_storage_info": true,
	"pragma_metadata_info": true, "pragma_user_agent": true,
	"summary": true, "test_all_types": true, "pg_timezone_names": true, "icu_calendar_names": true,
}

// reviewedVolatile are the scalar functions DuckDB marks as having side
// effects that only read or make up values: allowed. A function marked so
// that is not listed here is refused, so a DuckDB upgrade that adds one
// fails closed until someone reads it.
var reviewedVolatile = map[string]bool{
	"random": true, "uuid": true, "gen_random_uuid": true, "uuidv4": true, "uuidv7": true,
	"error": true, "current_query": true, "current_query_id": true, "current_transaction_id": true,
	"current_connection_id": true, "stats": true,
}

// deniedScalars are scalar functions and macros refused although DuckDB
// may not mark them: setseed changes the random sequence of every later
// statement on the connection; nextval and currval touch sequences;
// sleep_ms and pg_sleep wait without using CPU (the CPU-time budget would
// not stop them); write_log writes to the instance's log; json_serialize_plan
// binds and plans SQL given as a string, which the gate never sees; getenv
// reads the worker's environment.
var deniedScalars = map[string]bool{
	"setseed": true, "nextval": true, "currval": true, "sleep_ms": true, "pg_sleep": true,
	"write_log": true, "json_serialize_plan": true, "getenv": true,
}

// funcCatalog is what the gate needs of one DuckDB instance's function
// catalog, read once when the database opens, before any model SQL. The
// first worker of an engine sends it back to the parent, which hands it to
// the workers it starts later (reading it costs about 20 ms of CPU).
type funcCatalog struct {
	// ScalarDenied holds the names a call outside FROM may not use: the
	// refused scalars and macros, and the refused table functions (DuckDB
	// binds none of those outside FROM, but the gate does not rely on
	// it). A name DuckDB's catalog does not hold is left to DuckDB, which
	// either binds it as a built-in form (unnest, row_number, grouping) or
	// fails.
	ScalarDenied map[string]bool
	// Table holds the table function and table macro names FROM may use.
	Table map[string]bool
	// DeniedViews are DuckDB's internal views over a refused table
	// function (duckdb_logs, pg_prepared_statements): a bare name in FROM
	// reaches them without a call.
	DeniedViews map[string]bool
}

// loadFunctions reads the catalog. Macros and table macros the database
// file defines itself are allowed: the database is the task author's.
func loadFunctions(ctx context.Context, c *duck.Conn) (*funcCatalog, error) {
	fc := &funcCatalog{ScalarDenied: map[string]bool{}, Table: map[string]bool{}, DeniedViews: map[string]bool{}}
	known, scalar := map[string]bool{}, map[string]bool{}
	refusedScalar := map[string]bool{}
	tableFuncs := map[string]bool{}
	err := queryRows(ctx, c, `SELECT DISTINCT lower(function_name), function_type, coalesce(has_side_effects, false), internal
		FROM duckdb_functions()`, 4, func(v []driver.Value) {
		name, _ := v[0].(string)
		typ, _ := v[1].(string)
		sideEffects, _ := v[2].(bool)
		internal, _ := v[3].(bool)
		known[name] = true
		switch typ {
		case "scalar", "aggregate", "macro":
			if deniedScalars[name] || (sideEffects && !reviewedVolatile[name]) {
				refusedScalar[name] = true
			} else {
				scalar[name] = true
			}
		case "table", "table_macro":
			tableFuncs[name] = true
			if allowedTableFunctions[name] || (typ == "table_macro" && !internal) {
				fc.Table[name] = true
			}
		}
	})
	if err != nil {
		return nil, fmt.Errorf("read the function catalog: %w", err)
	}
	// A name with one refused overload is refused whole.
	for name := range refusedScalar {
		delete(scalar, name)
		fc.ScalarDenied[name] = true
	}
	for name := range tableFuncs {
		if !fc.Table[name] && !scalar[name] {
			fc.ScalarDenied[name] = true
		}
	}
	call := regexp.MustCompile(`([A-Za-z_][A-Za-z0-9_]*)\s*\(`)
	err = queryRows(ctx, c, `SELECT lower(view_name), sql FROM duckdb_views() WHERE internal`, 2, func(v []driver.Value) {
		name, _ := v[0].(string)
		body, _ := v[1].(string)
		for _, m := range call.FindAllStringSubmatch(body, -1) {
			f := strings.ToLower(m[1])
			if tableFuncs[f] && !fc.Table[f] {
				fc.DeniedViews[name] = true
			}
		}
	})
	if err != nil {
		return nil, fmt.Errorf("read the internal views: %w", err)
	}
	if !fc.Table["range"] || fc.Table["enable_logging"] || !known["enable_logging"] || !fc.DeniedViews["duckdb_logs"] {
		return nil, fmt.Errorf("the function catalog does not look like DuckDB's: refusing to run SQL")
	}
	return fc, nil
}

// queryRows runs a fixed query and hands each row to fn.
func queryRows(ctx context.Context, c *duck.Conn, q string, ncol int, fn func([]driver.Value)) error {
	rows, err := c.QueryContext(ctx, q, nil)
	if err != nil {
		return err
	}
	defer rows.Close()
	dst := make([]driver.Value, ncol)
	for {
		err := rows.Next(dst)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		fn(dst)
	}
}

// check walks a parse tree and refuses the first call the allow-lists do
// not admit. It reads the tree generically, so every node that names a
// function is seen, wherever the serializer puts it: a table function is
// the "function" of a TABLE_FUNCTION reference, every other call is an
// object with a "function_name" (scalars, aggregates, macros, window
// functions, operators).
func (fc *funcCatalog) check(tree any) error {
	var bad []string
	var walk func(x any, table bool)
	walk = func(x any, table bool) {
		switch n := x.(type) {
		case map[string]any:
			if name, ok := n["function_name"].(string); ok {
				name = strings.ToLower(name)
				switch {
				case table && !fc.Table[name]:
					bad = append(bad, "table function "+name)
				case !table && fc.ScalarDenied[name]:
					bad = append(bad, "function "+name)
				}
			}
			if n["type"] == "BASE_TABLE" {
				if name, ok := n["table_name"].(string); ok && fc.DeniedViews[strings.ToLower(name)] {
					bad = append(bad, "view "+strings.ToLower(name))
				}
			}
			for k, v := range n {
				walk(v, k == "function" && n["type"] == "TABLE_FUNCTION")
			}
		case []any:
			for _, v := range n {
				walk(v, false)
			}
		}
	}
	walk(tree, false)
	if len(bad) == 0 {
		return nil
	}
	sort.Strings(bad)
	return &sqlgym.ExecError{Kind: sqlgym.ErrKindForbidden,
		Msg: fmt.Sprintf("%s may not be used in the sandbox: it changes the database instance for later statements, reads what other statements did, or reaches outside the database", bad[0])}
}
