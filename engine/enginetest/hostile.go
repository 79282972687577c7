package enginetest

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym"
)

// runawayBudget keeps the statements that can only be stopped by the clock
// cheap, so the whole corpus runs in seconds.
const runawayBudget = 300 * time.Millisecond

// CommonHostile is the part of the corpus that applies to every engine:
// writes, DDL, transaction and session control, multi-statement tricks,
// runaway recursion and cross joins, result explosions, and file access
// through syntax more than one engine knows (COPY, ATTACH, read_csv).
// Every statement here must fail (or be stopped) in SQLite, PostgreSQL and
// DuckDB alike; a statement another engine does not even parse fails
// harmlessly. Dialect-specific statements live in each engine's tests.
func CommonHostile() []Hostile {
	h := []Hostile{
		// Writes.
		{Name: "insert_values", SQL: `INSERT INTO people (id, name) VALUES (100, 'Mallory')`},
		{Name: "insert_select", SQL: `INSERT INTO empty_t (a, b) SELECT n, label FROM nums`},
		{Name: "insert_default_values", SQL: `INSERT INTO empty_t DEFAULT VALUES`},
		{Name: "insert_with_cte", SQL: `WITH x AS (SELECT 1 AS a) INSERT INTO empty_t (a) SELECT a FROM x`},
		{Name: "upsert", SQL: `INSERT INTO people (id, name) VALUES (1, 'x') ON CONFLICT (id) DO UPDATE SET name = 'pwned'`},
		{Name: "update_all", SQL: `UPDATE people SET name = 'pwned'`},
		{Name: "update_where", SQL: `UPDATE orders SET qty = qty + 1 WHERE id = 1`},
		{Name: "update_from", SQL: `UPDATE people SET age = o.qty FROM orders o WHERE o.person_id = people.id`},
		{Name: "delete_all", SQL: `DELETE FROM people`},
		{Name: "delete_where", SQL: `DELETE FROM nums WHERE n > 10`},
		{Name: "delete_returning", SQL: `DELETE FROM people RETURNING id`},
		{Name: "dml_in_cte", SQL: `WITH d AS (DELETE FROM people RETURNING id) SELECT count(*) FROM d`},
		{Name: "truncate", SQL: `TRUNCATE people`},
		{Name: "truncate_table", SQL: `TRUNCATE TABLE orders`},
		{Name: "merge", SQL: `MERGE INTO people p USING orders o ON p.id = o.person_id WHEN MATCHED THEN DELETE`},
		{Name: "select_into", SQL: `SELECT * INTO evil FROM people`},
		{Name: "select_for_update", SQL: `SELECT * FROM people FOR UPDATE`},

		// DDL.
		{Name: "create_table", SQL: `CREATE TABLE evil (a INTEGER)`},
		{Name: "create_table_as", SQL: `CREATE TABLE evil AS SELECT * FROM people`},
		{Name: "create_temp_table", SQL: `CREATE TEMP TABLE evil (a INTEGER)`},
		{Name: "create_temporary_table_as", SQL: `CREATE TEMPORARY TABLE evil AS SELECT 1 AS a`},
		{Name: "create_view", SQL: `CREATE VIEW evil AS SELECT * FROM people`},
		{Name: "create_temp_view", SQL: `CREATE TEMP VIEW evil AS SELECT 1 AS a`},
		{Name: "create_index", SQL: `CREATE INDEX evil_idx ON people (age)`},
		{Name: "create_unique_index", SQL: `CREATE UNIQUE INDEX evil_uidx ON nums (label)`},
		{Name: "create_schema", SQL: `CREATE SCHEMA evil`},
		{Name: "create_sequence", SQL: `CREATE SEQUENCE evil_seq`},
		{Name: "drop_table", SQL: `DROP TABLE people`},
		{Name: "drop_table_if_exists", SQL: `DROP TABLE IF EXISTS nums`},
		{Name: "drop_missing_if_exists", SQL: `DROP TABLE IF EXISTS no_such_tbl`},
		{Name: "drop_view_if_exists", SQL: `DROP VIEW IF EXISTS no_such_view`},
		{Name: "drop_index_if_exists", SQL: `DROP INDEX IF EXISTS no_such_idx`},
		{Name: "alter_add_column", SQL: `ALTER TABLE people ADD COLUMN evil INTEGER`},
		{Name: "alter_rename_table", SQL: `ALTER TABLE people RENAME TO folks`},
		{Name: "alter_rename_column", SQL: `ALTER TABLE people RENAME COLUMN name TO nm`},
		{Name: "alter_drop_column", SQL: `ALTER TABLE orders DROP COLUMN placed`},
		{Name: "comment_on", SQL: `COMMENT ON TABLE people IS 'pwned'`},
		{Name: "grant", SQL: `GRANT ALL ON people TO PUBLIC`},
		{Name: "create_role", SQL: `CREATE ROLE evil`},
		{Name: "create_database", SQL: `CREATE DATABASE evil`},

		// Transaction and session control.
		{Name: "begin", SQL: `BEGIN`},
		{Name: "begin_transaction", SQL: `BEGIN TRANSACTION`},
		{Name: "start_transaction", SQL: `START TRANSACTION`},
		{Name: "commit", SQL: `COMMIT`},
		{Name: "end", SQL: `END`},
		{Name: "rollback", SQL: `ROLLBACK`},
		{Name: "savepoint", SQL: `SAVEPOINT sp1`},
		{Name: "release_savepoint", SQL: `RELEASE SAVEPOINT sp1`},
		{Name: "rollback_to_savepoint", SQL: `ROLLBACK TO SAVEPOINT sp1`},
		{Name: "set_transaction_read_write", SQL: `SET TRANSACTION READ WRITE`},
		{Name: "set_session_read_write", SQL: `SET SESSION CHARACTERISTICS AS TRANSACTION READ WRITE`},
		{Name: "set_statement_timeout", SQL: `SET statement_timeout = 0`},
		{Name: "set_search_path", SQL: `SET search_path TO pg_catalog`},
		{Name: "reset_all", SQL: `RESET ALL`},
		{Name: "lock_table", SQL: `LOCK TABLE people IN ACCESS EXCLUSIVE MODE`},
		{Name: "notify", SQL: `NOTIFY evil`},
		{Name: "do_block", SQL: `DO $$ BEGIN DELETE FROM people; END $$`},

		// One statement only: tricks to smuggle a second one.
		{Name: "multi_drop", SQL: `SELECT 1; DROP TABLE people`},
		{Name: "multi_write_first", SQL: `DELETE FROM people; SELECT 1`},
		{Name: "multi_three", SQL: `SELECT 1; SELECT 2; DELETE FROM orders`},
		{Name: "multi_line_comment", SQL: "SELECT 1 -- harmless\n; DELETE FROM people"},
		{Name: "multi_block_comment", SQL: `SELECT 1 /* harmless */; DELETE FROM people`},
		{Name: "multi_nested_comment", SQL: `SELECT 1 /* /* nested */ */; DROP TABLE people`},
		{Name: "multi_string_semicolon", SQL: `SELECT 'a;b'; UPDATE people SET age = 0`},
		{Name: "multi_identifier_semicolon", SQL: `SELECT 1 AS "x;y"; DELETE FROM people`},
		{Name: "multi_dollar_quote", SQL: `SELECT $$a;$$; DROP TABLE people`},
		{Name: "multi_newlines", SQL: "SELECT 1;\n\n\nDROP TABLE nums;"},
		{Name: "multi_empty_between", SQL: `SELECT 1;;DROP TABLE people`},
		{Name: "multi_transaction", SQL: `BEGIN; DELETE FROM people; COMMIT`},
		{Name: "multi_fullwidth_semicolon", SQL: `SELECT 1；DROP TABLE people`},

		// Runaways: only the clock or the caps stop these.
		{Name: "recursive_count_forever", SQL: RunawaySQL, Budget: runawayBudget},
		{Name: "recursive_rows_forever", SQL: `WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c) SELECT n FROM c`, Budget: runawayBudget},
		{Name: "recursive_fanout", SQL: `WITH RECURSIVE c(n) AS (SELECT n FROM nums UNION ALL SELECT c.n + 1 FROM c) SELECT count(*) FROM c`, Budget: runawayBudget},
		{Name: "recursive_text_growth", SQL: `WITH RECURSIVE c(n, s) AS (SELECT 1, 'x' UNION ALL SELECT n + 1, s || 'x' FROM c) SELECT max(length(s)) FROM c`, Budget: runawayBudget},
		{Name: "cross_join_count", SQL: `SELECT count(*) FROM nums a, nums b, nums c`, Budget: runawayBudget},
		{Name: "cross_join_filter", SQL: `SELECT count(*) FROM nums a, nums b, nums c WHERE a.label || b.label || c.label LIKE '%zzz%'`, Budget: runawayBudget},
		{Name: "cross_join_rows", SQL: `SELECT a.n, b.n, c.n FROM nums a, nums b, nums c`, Budget: runawayBudget},
		{Name: "cross_join_string_agg", SQL: `SELECT length(string_agg(a.label, ',')) FROM nums a, nums b, nums c`, Budget: runawayBudget},
		{Name: "series_huge", SQL: `SELECT count(*) FROM generate_series(1, 1000000000000)`, Budget: runawayBudget},
		{Name: "repeat_per_row", SQL: `SELECT repeat(a.label, 2000) FROM nums a, nums b WHERE b.n <= 100`, Budget: runawayBudget},
		{Name: "deep_parentheses", SQL: "SELECT " + strings.Repeat("(", 100000) + "1" + strings.Repeat(")", 100000)},

		// Files and network through syntax several engines know.
		{Name: "copy_to_file", SQL: `COPY people TO '{{DIR}}/people.csv'`},
		{Name: "copy_query_to_file", SQL: `COPY (SELECT * FROM people) TO '{{DIR}}/q.csv'`},
		{Name: "copy_from_file", SQL: `COPY people FROM '/etc/passwd'`},
		{Name: "attach_database", SQL: `ATTACH DATABASE '{{DIR}}/evil.db' AS evil`},
		{Name: "attach", SQL: `ATTACH '{{DIR}}/evil2.db' AS evil2`},
		{Name: "read_csv_local", SQL: `SELECT * FROM read_csv('/etc/passwd')`},
		{Name: "read_csv_http", SQL: `SELECT * FROM read_csv('http://127.0.0.1:9/x.csv')`},
		{Name: "export_database", SQL: `EXPORT DATABASE '{{DIR}}'`},
	}
	return h
}

// RunHostile opens a fresh fixture database and runs each statement with
// WallClock(Budget). Each must return an error (an *sqlgym.ExecError,
// ErrTimeout or ErrTooLarge; never an *sqlgym.InfraError and never success)
// stopped by the engine itself (not by the test's hang watchdog), leave the database digest
// unchanged and write nothing into Dir. Afterwards the engine must still answer "SELECT 1". The
// corpus must hold at least MinHostile statements with unique names. How soon each statement
// returned against its budget is logged, with the worst ratio last (`go test -v -run
// TestHostile`): a loaded machine stretches it, so it is a measurement, not an assertion.
func RunHostile(t *testing.T, h Harness, corpus []Hostile) {
	if len(corpus) < MinHostile {
		t.Errorf("hostile corpus has %d statements, the issue requires at least %d per engine", len(corpus), MinHostile)
	}
	seen := map[string]bool{}
	for _, hs := range corpus {
		if hs.Name == "" || seen[hs.Name] {
			t.Errorf("hostile statement name %q is empty or repeated", hs.Name)
		}
		seen[hs.Name] = true
	}
	dir := h.Dir
	if dir == "" {
		dir = t.TempDir()
	}
	eng, digest := h.Open(t, Fixture())
	original := digest()
	current := original
	var worst float64
	var worstName string

	for _, hs := range corpus {
		t.Run(hs.Name, func(t *testing.T) {
			budget := hs.Budget
			if budget <= 0 {
				budget = DefaultHostileBudget
			}
			sql := strings.ReplaceAll(hs.SQL, DirPlaceholder, dir)
			// A hang watchdog, so a broken engine cannot hang the suite:
			// far beyond any budget, it only ever stops a statement the
			// engine failed to stop.
			ctx, cancel := context.WithTimeout(context.Background(), max(10*budget, hangWatchdog))
			defer cancel()
			start := time.Now()
			res, err := eng.Query(ctx, sql, WallClock(budget))
			took := time.Since(start)
			if ctx.Err() != nil {
				t.Errorf("hung: the engine did not stop it, the test's watchdog did after %v (budget %v): %v", took, budget, err)
			} else {
				checkRefusal(t, shorten(sql), res, err)
			}
			t.Logf("returned after %v, budget %v", took.Round(time.Millisecond), budget)
			if r := float64(took) / float64(budget); r > worst {
				worst, worstName = r, hs.Name
			}
			if d := digest(); d != current {
				t.Errorf("database changed: digest %s -> %s", current, d)
				current = d
			}
			if names := dirEntries(t, dir); len(names) > 0 {
				t.Errorf("files appeared in the hostile directory: %q", names)
				for _, n := range names {
					_ = os.RemoveAll(filepath.Join(dir, n))
				}
			}
		})
	}

	t.Logf("slowest return against its budget: %s, %.2fx the budget", worstName, worst)
	res, err := eng.Query(context.Background(), `SELECT 1 AS x`, sqlgym.Limits{})
	if err != nil {
		t.Fatalf("engine unusable after the hostile corpus: %v", err)
	}
	ExpectRows(t, res, []string{"x"}, [][]sqlgym.Value{{sqlgym.Int(1)}})
	if d := digest(); d != original {
		t.Errorf("database digest changed over the corpus: %s -> %s", original, d)
	}
}

func checkRefusal(t *testing.T, sql string, res *sqlgym.ResultSet, err error) {
	t.Helper()
	if err == nil {
		n := 0
		if res != nil {
			n = len(res.Rows)
		}
		t.Errorf("hostile statement succeeded (%d rows): %s", n, sql)
		return
	}
	if sqlgym.IsInfra(err) {
		t.Errorf("hostile statement broke the engine (InfraError): %v\n%s", err, sql)
		return
	}
	var ee *sqlgym.ExecError
	switch {
	case errors.Is(err, sqlgym.ErrTimeout), errors.Is(err, sqlgym.ErrTooLarge):
	case errors.As(err, &ee):
		if ee.Msg == "" {
			t.Errorf("ExecError kind %s has an empty Msg", ee.Kind)
		}
	default:
		t.Errorf("want *sqlgym.ExecError, ErrTimeout or ErrTooLarge, got %T: %v", err, err)
	}
	t.Logf("refused: %v", shorten(err.Error()))
}

func dirEntries(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatalf("read hostile directory: %v", err)
	}
	names := make([]string, len(ents))
	for i, e := range ents {
		names[i] = e.Name()
	}
	return names
}

func shorten(s string) string {
	if len(s) > 200 {
		return s[:200] + "..."
	}
	return s
}
