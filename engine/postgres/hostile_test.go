package postgres

import (
	"os"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym/engine/enginetest"
)

// runaway is the budget of statements only the clock or the caps stop.
const runaway = 300 * time.Millisecond

// postgresHostile is the PostgreSQL part of the hostile corpus: server
// files and programs, roles and session state, sequences, locks, signals,
// dynamic SQL, and resource explosions. The hostile fixture adds the
// sequence sqlgym_seq.
func postgresHostile() []enginetest.Hostile {
	return []enginetest.Hostile{
		// Server files and programs.
		{Name: "pg_copy_to_program", SQL: `COPY people TO PROGRAM 'touch {{DIR}}/pwned'`},
		{Name: "pg_copy_query_to_program", SQL: `COPY (SELECT 1) TO PROGRAM 'touch {{DIR}}/pwned2'`},
		{Name: "pg_copy_from_program", SQL: `COPY people FROM PROGRAM 'id'`},
		{Name: "pg_copy_to_stdout", SQL: `COPY people TO STDOUT`},
		{Name: "pg_copy_from_stdin", SQL: `COPY people FROM STDIN`},
		{Name: "pg_read_file", SQL: `SELECT pg_read_file('/etc/passwd')`},
		{Name: "pg_read_file_qualified", SQL: `SELECT pg_catalog.pg_read_file('/etc/passwd')`},
		{Name: "pg_read_file_quoted", SQL: `SELECT "pg_read_file"('/etc/passwd')`},
		{Name: "pg_read_file_comment", SQL: `SELECT pg_read_file/**/ ('/etc/passwd', 0, 100)`},
		{Name: "pg_read_file_unicode_ident", SQL: `SELECT U&"\0070g_read_file"('/etc/passwd')`},
		{Name: "pg_read_binary_file", SQL: `SELECT pg_read_binary_file('/etc/passwd')`},
		{Name: "pg_ls_dir", SQL: `SELECT * FROM pg_ls_dir('.')`},
		{Name: "pg_ls_waldir", SQL: `SELECT * FROM pg_ls_waldir()`},
		{Name: "pg_stat_file", SQL: `SELECT * FROM pg_stat_file('postgresql.conf')`},
		{Name: "pg_lo_import", SQL: `SELECT lo_import('/etc/passwd')`},
		{Name: "pg_lo_export", SQL: `SELECT lo_export(lo_from_bytea(0, 'x'), '{{DIR}}/lo.bin')`},
		{Name: "pg_lo_create", SQL: `SELECT lo_create(0)`},
		{Name: "pg_dblink", SQL: `SELECT * FROM dblink('host=127.0.0.1 user=postgres dbname=postgres', 'SELECT 1') AS t(x int)`},
		{Name: "pg_dblink_exec", SQL: `SELECT dblink_exec('host=127.0.0.1 user=postgres', 'DROP TABLE people')`},
		{Name: "pg_data_directory", SQL: `SELECT current_setting('data_directory')`},
		{Name: "pg_authid", SQL: `SELECT rolname, rolpassword FROM pg_authid`},
		{Name: "pg_shadow", SQL: `SELECT * FROM pg_shadow`},

		// Roles and session state.
		{Name: "pg_set_role", SQL: `SET ROLE postgres`},
		{Name: "pg_set_local_role", SQL: `SET LOCAL ROLE postgres`},
		{Name: "pg_reset_role", SQL: `RESET ROLE`},
		{Name: "pg_set_session_authorization", SQL: `SET SESSION AUTHORIZATION postgres`},
		{Name: "pg_set_config_read_write", SQL: `SELECT set_config('default_transaction_read_only', 'off', false)`},
		{Name: "pg_set_config_tx_read_write", SQL: `SELECT set_config('transaction_read_only', 'off', true)`},
		{Name: "pg_set_config_role", SQL: `SELECT set_config('role', 'postgres', false)`},
		{Name: "pg_set_config_timeout", SQL: `SELECT set_config('statement_timeout', '0', false), count(*) FROM nums a, nums b`, Budget: runaway},
		{Name: "pg_set_default_read_write", SQL: `SET default_transaction_read_only = off`},
		{Name: "pg_set_session_ro_off", SQL: `SET SESSION default_transaction_read_only = off`},
		{Name: "pg_set_local_timeout", SQL: `SET LOCAL statement_timeout = 0`},
		{Name: "pg_discard_all", SQL: `DISCARD ALL`},
		{Name: "pg_begin_read_write", SQL: `BEGIN READ WRITE`},
		{Name: "pg_start_transaction_rw", SQL: `START TRANSACTION ISOLATION LEVEL SERIALIZABLE READ WRITE`},
		{Name: "pg_abort", SQL: `ABORT`},
		{Name: "pg_prepare_transaction", SQL: `PREPARE TRANSACTION 'evil'`},
		{Name: "pg_commit_prepared", SQL: `COMMIT PREPARED 'evil'`},
		{Name: "pg_alter_role", SQL: `ALTER ROLE CURRENT_USER SET statement_timeout = 0`},
		{Name: "pg_alter_system", SQL: `ALTER SYSTEM SET work_mem = '64GB'`},
		{Name: "pg_show_all", SQL: `SHOW ALL`},

		// Sequences, locks, notifications, transaction ids.
		{Name: "pg_nextval", SQL: `SELECT nextval('sqlgym_seq')`},
		{Name: "pg_setval", SQL: `SELECT setval('sqlgym_seq', 1000)`},
		{Name: "pg_nextval_in_where", SQL: `SELECT id FROM people WHERE nextval('sqlgym_seq') > 0`},
		{Name: "pg_advisory_lock", SQL: `SELECT pg_advisory_lock(42)`},
		{Name: "pg_advisory_lock_shared", SQL: `SELECT pg_advisory_lock_shared(42)`},
		{Name: "pg_try_advisory_lock", SQL: `SELECT pg_try_advisory_lock(1, 2)`},
		{Name: "pg_advisory_xact_lock", SQL: `SELECT pg_advisory_xact_lock(42)`},
		{Name: "pg_advisory_lock_per_row", SQL: `SELECT pg_catalog.pg_advisory_lock(id) FROM people`},
		{Name: "pg_lock_table_share", SQL: `LOCK TABLE people IN SHARE MODE`},
		{Name: "pg_select_for_share", SQL: `SELECT * FROM people FOR SHARE`},
		{Name: "pg_select_for_update_skip_locked", SQL: `SELECT * FROM people FOR UPDATE SKIP LOCKED`},
		{Name: "pg_select_for_no_key_update", SQL: `SELECT id FROM orders FOR NO KEY UPDATE`},
		{Name: "pg_listen", SQL: `LISTEN evil`},
		{Name: "pg_unlisten", SQL: `UNLISTEN *`},
		{Name: "pg_notify_function", SQL: `SELECT pg_notify('evil', 'payload')`},
		{Name: "pg_txid_current", SQL: `SELECT txid_current()`},
		{Name: "pg_current_xact_id", SQL: `SELECT pg_current_xact_id()`},

		// Signals and server control.
		{Name: "pg_terminate_self", SQL: `SELECT pg_terminate_backend(pg_backend_pid())`},
		{Name: "pg_terminate_siblings", SQL: `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = current_user AND pid <> pg_backend_pid()`},
		{Name: "pg_cancel_self", SQL: `SELECT pg_cancel_backend(pg_backend_pid())`},
		{Name: "pg_reload_conf", SQL: `SELECT pg_reload_conf()`},
		{Name: "pg_checkpoint", SQL: `CHECKPOINT`},
		{Name: "pg_load_library", SQL: `LOAD 'plpgsql'`},

		// Code, statements kept in the session, maintenance.
		{Name: "pg_create_function", SQL: `CREATE FUNCTION evil() RETURNS int LANGUAGE sql AS 'SELECT 1'`},
		{Name: "pg_create_procedure", SQL: `CREATE PROCEDURE evil() LANGUAGE sql AS 'DELETE FROM people'`},
		{Name: "pg_call", SQL: `CALL evil()`},
		{Name: "pg_do_commit", SQL: `DO $$ BEGIN COMMIT; END $$`},
		{Name: "pg_do_language_sql", SQL: `DO LANGUAGE plpgsql 'BEGIN PERFORM pg_sleep(100); END'`},
		{Name: "pg_create_extension", SQL: `CREATE EXTENSION IF NOT EXISTS dblink`},
		{Name: "pg_create_trigger", SQL: `CREATE TRIGGER evil BEFORE INSERT ON people FOR EACH ROW EXECUTE FUNCTION evil()`},
		{Name: "pg_prepare", SQL: `PREPARE evil AS DELETE FROM people`},
		{Name: "pg_execute", SQL: `EXECUTE evil`},
		{Name: "pg_deallocate_all", SQL: `DEALLOCATE ALL`},
		{Name: "pg_declare_with_hold", SQL: `DECLARE c CURSOR WITH HOLD FOR SELECT * FROM people`},
		{Name: "pg_fetch", SQL: `FETCH ALL FROM c`},
		{Name: "pg_explain_analyze_delete", SQL: `EXPLAIN ANALYZE DELETE FROM people`},
		{Name: "pg_vacuum", SQL: `VACUUM people`},
		{Name: "pg_vacuum_full", SQL: `VACUUM FULL`},
		{Name: "pg_analyze", SQL: `ANALYZE people`},
		{Name: "pg_cluster", SQL: `CLUSTER people USING people_pkey`},
		{Name: "pg_reindex", SQL: `REINDEX TABLE people`},
		{Name: "pg_refresh_matview", SQL: `REFRESH MATERIALIZED VIEW evil`},
		{Name: "pg_security_label", SQL: `SECURITY LABEL ON TABLE people IS 'x'`},
		{Name: "pg_import_foreign_schema", SQL: `IMPORT FOREIGN SCHEMA public FROM SERVER evil INTO public`},

		// Writes hidden inside queries.
		{Name: "pg_cte_insert_returning", SQL: `WITH x AS (INSERT INTO people (id, name) VALUES (200, 'x') RETURNING *) SELECT * FROM x`},
		{Name: "pg_cte_update_returning", SQL: `WITH u AS (UPDATE nums SET x = 0 RETURNING n) SELECT count(*) FROM u`},
		{Name: "pg_select_into_temp", SQL: `SELECT * INTO TEMP evil FROM people`},
		{Name: "pg_select_into_unlogged", SQL: `SELECT * INTO UNLOGGED TABLE evil FROM people`},
		{Name: "pg_create_unlogged", SQL: `CREATE UNLOGGED TABLE evil (a int)`},
		{Name: "pg_create_temp_on_commit", SQL: `CREATE TEMP TABLE evil ON COMMIT DROP AS SELECT 1 AS a`},
		{Name: "pg_values_insert", SQL: `VALUES ((SELECT 1)), ((WITH d AS (DELETE FROM people RETURNING 1) SELECT 1))`},

		// Dynamic SQL that would slip past a screen.
		{Name: "pg_query_to_xml_delete", SQL: `SELECT query_to_xml('DELETE FROM people RETURNING id', true, false, '')`},
		{Name: "pg_query_to_xml_sleep", SQL: `SELECT query_to_xml('SELECT pg_sleep(100)', true, false, '')`},
		{Name: "pg_ts_stat", SQL: `SELECT * FROM ts_stat('SELECT to_tsvector(name) FROM people')`},

		// Time and size explosions.
		{Name: "pg_sleep", SQL: `SELECT pg_sleep(100)`, Budget: runaway},
		{Name: "pg_sleep_in_where", SQL: `SELECT id FROM people WHERE pg_sleep(100) IS NULL`, Budget: runaway},
		{Name: "pg_sleep_lateral", SQL: `SELECT * FROM people, LATERAL (SELECT pg_sleep_for('100 seconds')) s`, Budget: runaway},
		{Name: "pg_sleep_values", SQL: `VALUES (pg_sleep(100))`, Budget: runaway},
		{Name: "pg_series_rows", SQL: `SELECT * FROM generate_series(1, 1000000000000)`, Budget: runaway},
		{Name: "pg_series_numeric", SQL: `SELECT count(*) FROM generate_series(1, 1e12)`, Budget: runaway},
		{Name: "pg_series_sum", SQL: `SELECT sum(g) FROM generate_series(1::bigint, 1000000000000::bigint) g`, Budget: runaway},
		{Name: "pg_repeat_1e9", SQL: `SELECT repeat('x', 1000000000)`},
		{Name: "pg_repeat_rows", SQL: `SELECT repeat('x', 10000000) FROM generate_series(1, 100)`},
		{Name: "pg_string_agg_gigabyte", SQL: `SELECT length(string_agg(repeat('x', 1000), '')) FROM generate_series(1, 1000000)`, Budget: runaway},
		{Name: "pg_sort_spill", SQL: `SELECT a.n FROM nums a, nums b ORDER BY random() LIMIT 1`, Budget: runaway},
		{Name: "pg_recursive_deep", SQL: `WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 1000000000) SELECT max(n) FROM r`, Budget: runaway},
		{Name: "pg_array_explosion", SQL: `SELECT array_length(array_agg(g), 1) FROM generate_series(1, 1000000000) g`, Budget: runaway},
	}
}

func TestHostile(t *testing.T) {
	// The server must be able to write here, so a file appearing would
	// really mean a sandbox failure and not a permission the test lacked.
	dir, err := os.MkdirTemp("", "sqlgym-pg-hostile-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	var opened []*sandbox
	h := harness(dir, []string{"CREATE SEQUENCE sqlgym_seq"}, &opened)
	corpus := append(append(enginetest.CommonHostile(), postgresHostile()...), screenBypasses...)
	enginetest.RunHostile(t, h, corpus)
	if len(opened) != 1 {
		t.Fatalf("RunHostile opened %d databases, want 1", len(opened))
	}
	assertNoLeftovers(t, opened[0])
}

// assertNoLeftovers fails unless the reader role has no transaction open,
// no statement running and no advisory lock held on the server.
func assertNoLeftovers(t *testing.T, s *sandbox) {
	t.Helper()
	// A statement on a connection the engine closed ends when the server
	// notices, and some work (the planner on 300 chained CTEs, a long
	// LIKE) ignores cancels for seconds, more on a loaded machine: wait
	// for it (the loop returns as soon as the role is clean).
	deadline := time.Now().Add(30 * time.Second)
	for {
		busy := adminInt(t, s.admin, `SELECT count(*) FROM pg_stat_activity WHERE usename = $1 AND state IS DISTINCT FROM 'idle'`, s.role)
		locks := adminInt(t, s.admin, `SELECT count(*) FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
			WHERE a.usename = $1 AND l.locktype = 'advisory'`, s.role)
		xacts := adminInt(t, s.admin, `SELECT count(*) FROM pg_stat_activity WHERE usename = $1 AND xact_start IS NOT NULL`, s.role)
		if busy == 0 && locks == 0 && xacts == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("reader role %s: %d sessions not idle, %d advisory locks, %d open transactions", s.role, busy, locks, xacts)
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
}
