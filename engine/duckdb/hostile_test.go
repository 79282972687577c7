package duckdb

import (
	"os"
	"time"

	"github.com/sqlgym/sqlgym/engine/enginetest"
)

const runaway = 300 * time.Millisecond

// duckHostile is the DuckDB-specific part of the hostile corpus: its file
// and network functions, extensions, settings, secrets, macros and its own
// ways to blow up time and memory.
func duckHostile() []enginetest.Hostile {
	return []enginetest.Hostile{
		// Extensions.
		{Name: "duck_install_httpfs", SQL: `INSTALL httpfs`},
		{Name: "duck_force_install", SQL: `FORCE INSTALL httpfs`},
		{Name: "duck_install_from_repo", SQL: `INSTALL httpfs FROM 'http://127.0.0.1:9/'`},
		{Name: "duck_load_httpfs", SQL: `LOAD httpfs`},
		{Name: "duck_load_path", SQL: `LOAD '{{DIR}}/evil.duckdb_extension'`},
		{Name: "duck_load_json", SQL: `LOAD json`},
		{Name: "duck_autoload_via_url", SQL: `SELECT * FROM 'https://127.0.0.1:9/x.parquet'`},
		{Name: "duck_extensions_list", SQL: `SELECT * FROM duckdb_extensions()`},

		// Reading files.
		{Name: "duck_read_csv_auto", SQL: `SELECT * FROM read_csv_auto('/etc/passwd')`},
		{Name: "duck_read_text", SQL: `SELECT * FROM read_text('/etc/passwd')`},
		{Name: "duck_read_blob", SQL: `SELECT * FROM read_blob('/etc/passwd')`},
		{Name: "duck_read_json", SQL: `SELECT * FROM read_json('/etc/passwd')`},
		{Name: "duck_read_json_auto", SQL: `SELECT * FROM read_json_auto('/etc/hostname')`},
		{Name: "duck_read_ndjson", SQL: `SELECT * FROM read_ndjson_objects('/etc/hostname')`},
		{Name: "duck_read_parquet", SQL: `SELECT * FROM read_parquet('/etc/passwd')`},
		{Name: "duck_parquet_metadata", SQL: `SELECT * FROM parquet_metadata('/etc/passwd')`},
		{Name: "duck_read_csv_dir", SQL: `SELECT * FROM read_csv('{{DIR}}/*.csv')`},
		{Name: "duck_read_text_dir", SQL: `SELECT * FROM read_text('{{DIR}}/*')`},
		{Name: "duck_read_db_itself", SQL: `SELECT * FROM read_blob('*.duckdb')`},
		{Name: "duck_replacement_scan_csv", SQL: `SELECT * FROM '/etc/passwd'`},
		{Name: "duck_replacement_scan_dir", SQL: `SELECT * FROM '{{DIR}}/x.csv'`},
		{Name: "duck_glob_etc", SQL: `SELECT * FROM glob('/etc/*')`},
		{Name: "duck_glob_dir", SQL: `SELECT * FROM glob('{{DIR}}/*')`},
		{Name: "duck_sniff_csv", SQL: `SELECT * FROM sniff_csv('/etc/passwd')`},
		{Name: "duck_read_csv_in_subquery", SQL: `SELECT count(*) FROM people WHERE name IN (SELECT column0 FROM read_csv('/etc/passwd'))`},
		{Name: "duck_read_csv_in_cte", SQL: `WITH f AS (SELECT * FROM read_csv('/etc/passwd', header = false)) SELECT * FROM f`},
		{Name: "duck_query_table_file", SQL: `SELECT * FROM query_table('/etc/passwd')`},
		{Name: "duck_http_csv", SQL: `SELECT * FROM read_csv('https://127.0.0.1:9/x.csv')`},
		{Name: "duck_s3_parquet", SQL: `SELECT * FROM read_parquet('s3://bucket/x.parquet')`},
		{Name: "duck_getenv", SQL: `SELECT getenv('HOME')`},

		// Writing files.
		{Name: "duck_copy_table_to", SQL: `COPY nums TO '{{DIR}}/x.csv'`},
		{Name: "duck_copy_parquet", SQL: `COPY (SELECT * FROM nums) TO '{{DIR}}/x.parquet' (FORMAT parquet)`},
		{Name: "duck_copy_json", SQL: `COPY people TO '{{DIR}}/x.json' (FORMAT json)`},
		{Name: "duck_copy_partitioned", SQL: `COPY nums TO '{{DIR}}/part' (FORMAT csv, PARTITION_BY (grp))`},
		{Name: "duck_copy_from", SQL: `COPY empty_t FROM '{{DIR}}/x.csv'`},
		{Name: "duck_copy_database", SQL: `COPY FROM DATABASE test TO memory`},
		{Name: "duck_export_parquet", SQL: `EXPORT DATABASE '{{DIR}}/export' (FORMAT parquet)`},
		{Name: "duck_import_database", SQL: `IMPORT DATABASE '{{DIR}}'`},
		{Name: "duck_explain_copy", SQL: `EXPLAIN COPY people TO '{{DIR}}/e.csv'`},

		// Other databases.
		{Name: "duck_attach_duckdb", SQL: `ATTACH '{{DIR}}/x.duckdb'`},
		{Name: "duck_attach_memory", SQL: `ATTACH ':memory:' AS mem`},
		{Name: "duck_attach_sqlite", SQL: `ATTACH '{{DIR}}/x.sqlite' (TYPE sqlite)`},
		{Name: "duck_attach_readonly_etc", SQL: `ATTACH '/etc/passwd' (READ_ONLY)`},
		{Name: "duck_detach", SQL: `DETACH test`},
		{Name: "duck_use", SQL: `USE memory`},
		{Name: "duck_create_in_temp", SQL: `CREATE TABLE temp.main.evil AS SELECT 1 AS a`},
		{Name: "duck_create_in_system", SQL: `CREATE TABLE system.main.evil (a INTEGER)`},

		// Settings: every change must be refused, including the lock itself.
		{Name: "duck_set_memory_limit", SQL: `SET memory_limit = '100GB'`},
		{Name: "duck_set_threads", SQL: `SET threads = 64`},
		{Name: "duck_set_external_access", SQL: `SET enable_external_access = true`},
		{Name: "duck_set_lock", SQL: `SET lock_configuration = false`},
		{Name: "duck_set_global_lock", SQL: `SET GLOBAL lock_configuration = false`},
		{Name: "duck_set_access_mode", SQL: `SET access_mode = 'READ_WRITE'`},
		{Name: "duck_set_autoload", SQL: `SET autoload_known_extensions = true`},
		{Name: "duck_set_autoinstall", SQL: `SET autoinstall_known_extensions = true`},
		{Name: "duck_set_temp_directory", SQL: `SET temp_directory = '{{DIR}}'`},
		{Name: "duck_set_profiling_output", SQL: `SET profiling_output = '{{DIR}}/profile.json'`},
		{Name: "duck_set_log_query_path", SQL: `SET log_query_path = '{{DIR}}/queries.log'`},
		{Name: "duck_set_allowed_dirs", SQL: `SET allowed_directories = ['/']`},
		{Name: "duck_set_variable", SQL: `SET VARIABLE x = 1`},
		{Name: "duck_reset_memory_limit", SQL: `RESET memory_limit`},
		{Name: "duck_reset_all", SQL: `RESET ALL`},
		{Name: "duck_pragma_threads", SQL: `PRAGMA threads = 8`},
		{Name: "duck_pragma_memory_limit", SQL: `PRAGMA memory_limit = '50GB'`},
		{Name: "duck_pragma_enable_profiling", SQL: `PRAGMA enable_profiling`},
		{Name: "duck_pragma_profile_output", SQL: `PRAGMA profile_output = '{{DIR}}/p.txt'`},
		{Name: "duck_pragma_checkpoint", SQL: `PRAGMA force_checkpoint`},
		{Name: "duck_pragma_disable_checkpoint", SQL: `PRAGMA disable_checkpoint_on_shutdown`},
		{Name: "duck_call_pragma", SQL: `CALL pragma_table_info('people')`},

		// Catalog objects, even temporary ones that would shadow tables for
		// the next statement on the same connection.
		{Name: "duck_create_secret", SQL: `CREATE SECRET s (TYPE s3, KEY_ID 'a', SECRET 'b')`},
		{Name: "duck_create_persistent_secret", SQL: `CREATE PERSISTENT SECRET s (TYPE s3, KEY_ID 'a', SECRET 'b')`},
		{Name: "duck_drop_secret", SQL: `DROP SECRET IF EXISTS s`},
		{Name: "duck_create_macro", SQL: `CREATE MACRO evil(a) AS a + 1`},
		{Name: "duck_create_temp_macro", SQL: `CREATE TEMP MACRO evil(a) AS a + 1`},
		{Name: "duck_create_table_macro", SQL: `CREATE MACRO people() AS TABLE SELECT 1 AS id`},
		{Name: "duck_create_temp_table_shadow", SQL: `CREATE TEMP TABLE people AS SELECT 1 AS id`},
		{Name: "duck_create_or_replace_temp_view", SQL: `CREATE OR REPLACE TEMP VIEW people AS SELECT 1 AS id`},
		{Name: "duck_create_temp_sequence", SQL: `CREATE TEMP SEQUENCE s`},
		{Name: "duck_create_type", SQL: `CREATE TYPE mood AS ENUM ('sad', 'happy')`},
		{Name: "duck_create_function", SQL: `CREATE FUNCTION evil(a) AS a`},
		{Name: "duck_prepare", SQL: `PREPARE p AS SELECT 1`},
		{Name: "duck_execute", SQL: `EXECUTE p`},
		{Name: "duck_deallocate", SQL: `DEALLOCATE p`},
		{Name: "duck_checkpoint", SQL: `CHECKPOINT`},
		{Name: "duck_force_checkpoint", SQL: `FORCE CHECKPOINT`},
		{Name: "duck_call_checkpoint", SQL: `CALL checkpoint()`},
		{Name: "duck_vacuum", SQL: `VACUUM`},
		{Name: "duck_analyze", SQL: `ANALYZE`},
		{Name: "duck_nextval", SQL: `SELECT nextval('no_such_seq')`},
		{Name: "duck_query_function_write", SQL: `SELECT * FROM query('CREATE TABLE evil (a INTEGER)')`},
		{Name: "duck_query_function_multi", SQL: `SELECT * FROM query('SELECT 1; DELETE FROM people')`},

		// Instance state and other statements' traces (the function gate).
		{Name: "duck_enable_logging_file", SQL: `SELECT * FROM enable_logging(storage = 'file', storage_path = '{{DIR}}/logs')`},
		{Name: "duck_enable_logging_query_log", SQL: `SELECT * FROM enable_logging('QueryLog')`},
		{Name: "duck_truncate_logs", SQL: `SELECT * FROM truncate_duckdb_logs()`},
		{Name: "duck_read_logs", SQL: `SELECT message FROM duckdb_logs`},
		{Name: "duck_enable_profiling_fn", SQL: `SELECT * FROM enable_profiling()`},
		{Name: "duck_enable_peg_parser", SQL: `SELECT * FROM enable_peg_parser()`},
		{Name: "duck_checkpoint_fn_in_subquery", SQL: `SELECT * FROM people WHERE id IN (SELECT 1 FROM force_checkpoint())`},
		{Name: "duck_setseed", SQL: `SELECT setseed(0.5)`},
		{Name: "duck_sleep_ms", SQL: `SELECT sleep_ms(100000)`},
		{Name: "duck_nul_byte", SQL: "SELECT 1\x00; DROP TABLE people"},

		// Multi-statement tricks specific to DuckDB's syntax.
		{Name: "duck_multi_pragma", SQL: `SELECT 1; PRAGMA enable_profiling`},
		{Name: "duck_multi_set_then_select", SQL: `SET VARIABLE v = 1; SELECT getvariable('v')`},
		{Name: "duck_multi_from_first", SQL: `FROM people; FROM nums`},
		{Name: "duck_multi_temp_then_select", SQL: `CREATE TEMP TABLE x AS SELECT 1; FROM x`},

		// Time and memory.
		{Name: "duck_range_aggregate", SQL: `SELECT sum(range) FROM range(1000000000000)`, Budget: runaway},
		{Name: "duck_range_cross", SQL: `SELECT count(*) FROM range(1000000) a, range(1000000) b`, Budget: runaway},
		{Name: "duck_range_rows", SQL: `SELECT * FROM range(1000000000000)`, Budget: runaway},
		{Name: "duck_range_list", SQL: `SELECT list(range) FROM range(1000000000000)`, Budget: runaway},
		{Name: "duck_range_sort", SQL: `SELECT range FROM range(1000000000) ORDER BY random() LIMIT 1`, Budget: runaway},
		{Name: "duck_range_group", SQL: `SELECT range % 1000000007 AS k, count(*) FROM range(1000000000000) GROUP BY k`, Budget: runaway},
		{Name: "duck_string_agg_explosion", SQL: `SELECT length(string_agg(repeat('x', 1000), '')) FROM range(100000000)`, Budget: runaway},
		{Name: "duck_recursive_union_all", SQL: `WITH RECURSIVE r(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM r) SELECT max(i) FROM r`, Budget: runaway},
		{Name: "duck_recursive_using_key", SQL: `WITH RECURSIVE r(i, j) USING KEY (i) AS (SELECT 0, 0 UNION SELECT i, j + 1 FROM r) SELECT * FROM r`, Budget: runaway},
		{Name: "duck_recursive_lists", SQL: `WITH RECURSIVE r(l) AS (SELECT [1] UNION ALL SELECT list_concat(l, l) FROM r) SELECT len(l) FROM r`, Budget: runaway},
		{Name: "duck_generate_series_ts", SQL: `SELECT count(*) FROM generate_series(TIMESTAMP '0001-01-01', TIMESTAMP '9999-01-01', INTERVAL 1 SECOND)`, Budget: runaway},
		{Name: "duck_unnest_explosion", SQL: `SELECT count(*) FROM (SELECT unnest(range(100000)) FROM range(100000))`, Budget: runaway},

		// Last, so that the work they leave running competes with as few
		// timed statements as possible.
		{Name: "duck_repeat_huge", SQL: `SELECT repeat('x', 100000000)`, Budget: runaway},
		{Name: "duck_repeat_huge_length", SQL: `SELECT length(repeat('x', 100000000))`, Budget: runaway},
		// Planning folds constant expressions without checking for
		// interrupts (this one takes 2-4 s, the repeats above about 2 s
		// each): Query must still return on time. heavyHostile has the
		// full-size versions.
		{Name: "duck_list_folded_at_plan", SQL: `SELECT len(range(10000000))`, Budget: runaway},
		{Name: "duck_list_per_row", SQL: `SELECT len(range(x)) FROM (VALUES (100000000)) t(x)`, Budget: runaway},
	}
}

// heavyHostile are the full-size explosions. In a worker each is killed
// at its time limit (or refused by the worker's memory cap), so they cost
// a fraction of a second; in-process DuckDB would keep folding the constant
// for 10-25 s and about 2 GB after Query returned, so there they only run
// with SQLGYM_DUCKDB_HEAVY=1.
func heavyHostile() []enginetest.Hostile {
	if !workersSupported && os.Getenv("SQLGYM_DUCKDB_HEAVY") != "1" {
		return nil
	}
	return []enginetest.Hostile{
		{Name: "duck_heavy_repeat_1e9", SQL: `SELECT repeat('x', 1000000000)`, Budget: runaway},
		{Name: "duck_heavy_repeat_length_1e9", SQL: `SELECT length(repeat('x', 1000000000))`, Budget: runaway},
		{Name: "duck_heavy_range_folded_1e9", SQL: `SELECT len(range(1000000000))`, Budget: runaway},
		{Name: "duck_heavy_range_per_row_1e9", SQL: `SELECT len(range(x)) FROM (VALUES (1000000000)) t(x)`, Budget: runaway},
	}
}
