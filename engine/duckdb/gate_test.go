package duckdb

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/engine/enginetest"
)

// instanceState reads, through the engine, the settings the refused
// functions would change.
const instanceState = `SELECT string_agg(name || '=' || coalesce(value, 'NULL'), ', ' ORDER BY name) AS s FROM duckdb_settings()
	WHERE name IN ('enable_logging', 'enabled_log_types', 'logging_storage', 'logging_mode', 'enable_profiling',
	               'profiling_mode', 'allow_parser_override_extension')`

// The gate refuses every call that would change the DuckDB instance for
// later statements or read what earlier statements ran (issue 18.3), in
// every place a call can hide; the worker then still serves, its state is
// unchanged, and no statement can read the SQL run before it.
func TestGateRefusesStateChangingFunctions(t *testing.T) {
	for _, mode := range []struct {
		name string
		opts Options
	}{{"worker", Options{PoolSize: 1}}, {"in-process", Options{PoolSize: 1, InProcess: true}}} {
		t.Run(mode.name, func(t *testing.T) {
			eng, path := openDB(t, enginetest.Fixture(), mode.opts)
			logDir := filepath.Join(filepath.Dir(path), "logs")
			before := query(t, eng, instanceState).Rows[0][0].Str
			refused := []string{
				`SELECT * FROM enable_logging(storage = 'file', storage_path = '` + logDir + `')`,
				`SELECT * FROM enable_logging('QueryLog')`,
				`SELECT * FROM enable_logging()`,
				`FROM disable_logging()`,
				`SELECT * FROM truncate_duckdb_logs()`,
				`SELECT * FROM enable_profiling()`,
				`SELECT * FROM disable_profiling()`,
				`SELECT * FROM enable_peg_parser()`,
				`SELECT * FROM disable_peg_parser()`,
				`SELECT * FROM checkpoint()`,
				`SELECT * FROM force_checkpoint()`,
				`SELECT setseed(0.5)`,
				`SELECT nextval('s')`,
				`SELECT sleep_ms(100000)`,
				`SELECT pg_sleep(100)`,
				`SELECT write_log('x')`,
				`SELECT json_serialize_plan('SELECT * FROM enable_logging()')`,
				// Reading other statements' SQL or state.
				`SELECT * FROM duckdb_logs()`,
				`FROM duckdb_logs`,
				`SELECT message FROM main.duckdb_logs`,
				`SELECT * FROM duckdb_logs_parsed('QueryLog')`,
				`SELECT * FROM duckdb_log_contexts()`,
				`SELECT * FROM duckdb_prepared_statements()`,
				`SELECT * FROM pg_catalog.pg_prepared_statements`,
				`SELECT * FROM duckdb_variables()`,
				`SELECT * FROM duckdb_temporary_files()`,
				// SQL inside a string, which the gate cannot read.
				`SELECT * FROM query('SELECT * FROM enable_logging()')`,
				`SELECT * FROM query_table('people')`,
				// Hiding places.
				`SELECT * FROM people WHERE id IN (SELECT 1 FROM enable_logging('QueryLog'))`,
				`WITH x AS (SELECT * FROM enable_profiling()) SELECT * FROM people`,
				`WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r, checkpoint() WHERE i < 3) SELECT * FROM r`,
				`SELECT * FROM people, LATERAL (SELECT * FROM enable_logging('QueryLog'))`,
				`SELECT (SELECT count(*) FROM enable_logging('QueryLog')) FROM people`,
				`SELECT * FROM people UNION ALL SELECT * FROM enable_peg_parser()`,
				`SELECT * FROM system.main.enable_logging('QueryLog')`,
				`SELECT * FROM ENABLE_LOGGING('QueryLog')`,
				`SELECT * FROM "enable_logging"('QueryLog')`,
				`SELECT list_transform([1], x -> setseed(0.1))`,
				`SELECT sum(setseed(0.1)) OVER () FROM people`,
				`DESCRIBE SELECT * FROM enable_logging('QueryLog')`,
				`SUMMARIZE SELECT * FROM enable_logging('QueryLog')`,
				`EXPLAIN SELECT * FROM enable_logging('QueryLog')`,
				`EXPLAIN ANALYZE SELECT * FROM enable_logging('QueryLog')`,
				`EXPLAIN (FORMAT json) SELECT * FROM checkpoint()`,
				`EXPLAIN (SELECT * FROM checkpoint())`,
				// A quote in the options once ended them for the gate
				// elsewhere than for DuckDB.
				`EXPLAIN (ANALYZE ') SELECT ') SELECT * FROM enable_logging() -- '`,
				`EXPLAIN (ANALYZE ') SELECT ') SELECT setseed(0.1) -- '`,
				`CALL enable_logging('QueryLog')`,
				`PRAGMA enable_profiling`,
				`PRAGMA enable_logging`,
				`PRAGMA table_info(upper('people'))`,
				`PIVOT people ON name USING count(*)`,
			}
			for _, sql := range refused {
				_, err := eng.Query(context.Background(), sql, sqlgym.Limits{})
				var ee *sqlgym.ExecError
				if !errors.As(err, &ee) {
					t.Errorf("%s: want an ExecError, got %T %v", sql, err, err)
					continue
				}
				// DuckDB's parser reads PIVOT as several statements.
				if ee.Kind != sqlgym.ErrKindForbidden && !(strings.HasPrefix(sql, "PIVOT") && ee.Kind == sqlgym.ErrKindMulti) {
					t.Errorf("%s: want kind forbidden, got %s: %s", sql, ee.Kind, ee.Msg)
				}
				// The worker still serves and nothing changed.
				if got := query(t, eng, instanceState).Rows[0][0].Str; got != before {
					t.Fatalf("%s changed the instance:\n  %s\n->%s", sql, before, got)
				}
			}
			// A gold ran; nothing after it can read its text.
			query(t, eng, "SELECT 'gold-secret-7f3a' AS g")
			for _, sql := range []string{`SELECT * FROM duckdb_logs`, `SELECT * FROM duckdb_logs()`,
				`SELECT * FROM duckdb_logs_parsed('QueryLog')`, `SELECT * FROM query('FROM duckdb_logs')`} {
				res, err := eng.Query(context.Background(), sql, sqlgym.Limits{})
				if err == nil {
					t.Errorf("%s: read the logs: %v", sql, res.Rows)
				}
			}
			if got := listDir(t, filepath.Dir(path)); len(got) != 1 {
				t.Errorf("files appeared beside the database: %q", got)
			}
		})
	}
}

// Ordinary statements, including the table functions and catalog reads
// on the allow-list, still run.
func TestGateAdmitsOrdinarySQL(t *testing.T) {
	eng, _ := openDB(t, enginetest.Fixture(), Options{})
	for _, sql := range []string{
		`SELECT * FROM range(3)`,
		`SELECT * FROM generate_series(1, 3)`,
		`SELECT unnest([1, 2])`,
		`FROM unnest([1, 2]) t(x)`,
		`SELECT random() < 2, uuid() IS NOT NULL, now() IS NOT NULL`,
		`SELECT current_setting('threads')`,
		`SELECT count(*) FROM duckdb_tables()`,
		`SELECT count(*) FROM duckdb_columns`,
		`SELECT count(*) FROM information_schema.tables`,
		`SELECT * FROM pg_catalog.pg_tables`,
		`SELECT * FROM json_each('[1, 2]')`,
		`SELECT upper(name), length(name) FROM people ORDER BY 1`,
		`SELECT name, row_number() OVER (ORDER BY id), sum(id) OVER w FROM people WINDOW w AS (ORDER BY id)`,
		`SELECT list_transform([1, 2], x -> x * 2)`,
		`SELECT [x + 1 FOR x IN [1, 2]]`,
		`SELECT COLUMNS('id') FROM people`,
		`EXPLAIN SELECT * FROM people`,
		`EXPLAIN ANALYZE SELECT count(*) FROM people`,
		`explain (format json) SELECT 1`,
		`PRAGMA table_info('people')`,
		`PRAGMA show_tables`,
		`DESCRIBE people`,
		`SHOW TABLES`,
		`SUMMARIZE nums`,
		`SELECT 1 -- a comment`,
		`/* leading comment */ SELECT 1`,
		`SELECT 1;`,
	} {
		if _, err := eng.Query(context.Background(), sql, sqlgym.Limits{}); err != nil {
			t.Errorf("%s: %v", sql, err)
		}
	}
}

// DuckDB's C API reads the text as a C string: everything after a NUL
// byte would be dropped unseen (issue 18.9).
func TestNULByteRefused(t *testing.T) {
	eng, _ := openDB(t, enginetest.Fixture(), Options{})
	for _, sql := range []string{"SELECT 1\x00; DROP TABLE people", "\x00", "SELECT '\x00'"} {
		_, err := eng.Query(context.Background(), sql, sqlgym.Limits{})
		enginetest.ExpectExecError(t, err, sqlgym.ErrKindSyntax)
		if err == nil || !strings.Contains(err.Error(), "NUL") {
			t.Errorf("%q: the message should name the NUL byte: %v", sql, err)
		}
	}
	query(t, eng, "SELECT count(*) FROM people")
}

// Defence in depth: should a call that changes the instance ever get past
// the gate (here one let through on purpose), the worker sees its state
// fingerprint move and is replaced before the next statement, which finds
// a pristine instance.
func TestWorkerReplacedWhenItsStateChanges(t *testing.T) {
	needWorkers(t)
	eng, _ := openDB(t, enginetest.Fixture(), Options{PoolSize: 1, unsafeAllow: []string{"enable_logging"}})
	pid := onlyWorker(t, eng)
	before := query(t, eng, instanceState).Rows[0][0].Str
	query(t, eng, "SELECT * FROM enable_logging('QueryLog')")
	if !gone(pid) {
		t.Fatalf("worker %d kept serving after its instance changed", pid)
	}
	if got := query(t, eng, instanceState).Rows[0][0].Str; got != before {
		t.Fatalf("the next statement saw the changed instance: %s", got)
	}
}

func listDir(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

// The state check does not recycle a worker for ordinary statements,
// failed ones included: the fingerprint moves only when the instance does.
func TestWorkerSurvivesOrdinaryStatements(t *testing.T) {
	needWorkers(t)
	eng, _ := openDB(t, enginetest.Fixture(), Options{PoolSize: 1})
	pid := onlyWorker(t, eng)
	for _, sql := range []string{
		"SELECT count(*) FROM people", "SELECT nope FROM people", "SELECT * FROM enable_logging()",
		"SELECT random()", "SELECT now()", "EXPLAIN ANALYZE SELECT 1", "PRAGMA table_info('people')",
		"SELECT 1 / 0", "SELECT 'a'::INTEGER", "DESCRIBE people", "SELECT current_setting('threads')",
	} {
		_, _ = eng.Query(context.Background(), sql, sqlgym.Limits{})
	}
	if got := eng.procs.pids(); len(got) != 1 || got[0] != pid {
		t.Errorf("worker %d was replaced (now %v)", pid, got)
	}
}
