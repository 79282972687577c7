package sqlite

import (
	"strings"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym/engine/enginetest"
)

// sqliteHostile is the SQLite-specific part of the hostile corpus: what
// SQLite's own syntax and functions offer an attacker beyond the common
// corpus.
func sqliteHostile() []enginetest.Hostile {
	const fast = 300 * time.Millisecond
	return []enginetest.Hostile{
		// Other databases and files.
		{Name: "attach_memory", SQL: `ATTACH ':memory:' AS m`},
		{Name: "attach_uri_rwc", SQL: `ATTACH 'file:{{DIR}}/b.db?mode=rwc' AS b`},
		{Name: "attach_temp_name", SQL: `ATTACH '' AS t2`},
		{Name: "attach_expression", SQL: `ATTACH '{{DIR}}/' || 'c.db' AS c`},
		{Name: "detach_main", SQL: `DETACH DATABASE main`},
		{Name: "detach_temp", SQL: `DETACH temp`},
		{Name: "vacuum", SQL: `VACUUM`},
		{Name: "vacuum_main", SQL: `VACUUM main`},
		{Name: "vacuum_into", SQL: `VACUUM INTO '{{DIR}}/x.db'`},
		{Name: "vacuum_temp_into", SQL: `VACUUM temp INTO '{{DIR}}/t.db'`},
		{Name: "load_extension", SQL: `SELECT load_extension('/tmp/evil.so')`},
		{Name: "load_extension_entry", SQL: `SELECT load_extension('{{DIR}}/evil', 'sqlite3_evil_init')`},
		{Name: "readfile", SQL: `SELECT readfile('/etc/passwd')`},
		{Name: "writefile", SQL: `SELECT writefile('{{DIR}}/w.txt', 'pwned')`},
		{Name: "edit", SQL: `SELECT edit('x', 'vi')`},
		{Name: "fts3_tokenizer", SQL: `SELECT fts3_tokenizer('simple')`},
		{Name: "fsdir", SQL: `SELECT * FROM fsdir('/etc')`},

		// PRAGMAs, writable or not: all are refused.
		{Name: "pragma_journal_mode_wal", SQL: `PRAGMA journal_mode = WAL`},
		{Name: "pragma_journal_mode_read", SQL: `PRAGMA journal_mode`},
		{Name: "pragma_writable_schema", SQL: `PRAGMA writable_schema = ON`},
		{Name: "pragma_user_version", SQL: `PRAGMA user_version = 7`},
		{Name: "pragma_application_id", SQL: `PRAGMA application_id = 7`},
		{Name: "pragma_schema_version", SQL: `PRAGMA schema_version = 1`},
		{Name: "pragma_query_only_off", SQL: `PRAGMA query_only = OFF`},
		{Name: "pragma_trusted_schema_on", SQL: `PRAGMA trusted_schema = ON`},
		{Name: "pragma_locking_mode", SQL: `PRAGMA locking_mode = EXCLUSIVE`},
		{Name: "pragma_temp_store_directory", SQL: `PRAGMA temp_store_directory = '{{DIR}}'`},
		{Name: "pragma_cache_size", SQL: `PRAGMA cache_size = -2000000`},
		{Name: "pragma_mmap_size", SQL: `PRAGMA mmap_size = 1000000000`},
		{Name: "pragma_hard_heap_limit", SQL: `PRAGMA hard_heap_limit = 0`},
		{Name: "pragma_soft_heap_limit", SQL: `PRAGMA soft_heap_limit = 0`},
		{Name: "pragma_foreign_keys", SQL: `PRAGMA foreign_keys = ON`},
		{Name: "pragma_integrity_check", SQL: `PRAGMA integrity_check`},
		{Name: "pragma_wal_checkpoint", SQL: `PRAGMA wal_checkpoint(TRUNCATE)`},
		{Name: "pragma_page_size", SQL: `PRAGMA main.page_size = 512`},
		{Name: "pragma_auto_vacuum", SQL: `PRAGMA auto_vacuum = FULL`},
		{Name: "pragma_optimize", SQL: `PRAGMA optimize`},
		{Name: "pragma_shrink_memory", SQL: `PRAGMA shrink_memory`},

		// Writes and DDL in SQLite's own forms.
		{Name: "replace_into", SQL: `REPLACE INTO people (id, name) VALUES (1, 'pwned')`},
		{Name: "insert_or_replace", SQL: `INSERT OR REPLACE INTO people (id, name) VALUES (1, 'pwned')`},
		{Name: "insert_or_ignore", SQL: `INSERT OR IGNORE INTO people (id, name) VALUES (1, 'pwned')`},
		{Name: "upsert_do_nothing", SQL: `INSERT INTO people (id, name) VALUES (1, 'x') ON CONFLICT DO NOTHING`},
		{Name: "update_or_rollback", SQL: `UPDATE OR ROLLBACK people SET age = 1`},
		{Name: "update_limit", SQL: `UPDATE people SET age = 1 WHERE id > 0`},
		{Name: "explain_insert", SQL: `EXPLAIN INSERT INTO people (id, name) VALUES (100, 'x')`},
		{Name: "explain_query_plan_delete", SQL: `EXPLAIN QUERY PLAN DELETE FROM people`},
		{Name: "create_trigger", SQL: `CREATE TRIGGER tr AFTER INSERT ON people BEGIN DELETE FROM orders; END`},
		{Name: "create_temp_trigger", SQL: `CREATE TEMP TRIGGER tr AFTER UPDATE ON people BEGIN DELETE FROM orders; END`},
		{Name: "drop_trigger_if_exists", SQL: `DROP TRIGGER IF EXISTS no_such_trigger`},
		{Name: "create_virtual_fts5", SQL: `CREATE VIRTUAL TABLE f USING fts5(x)`},
		{Name: "create_virtual_fts4_temp", SQL: `CREATE VIRTUAL TABLE temp.f4 USING fts4(x)`},
		{Name: "create_virtual_rtree", SQL: `CREATE VIRTUAL TABLE r USING rtree(id, a, b)`},
		{Name: "create_view_in_temp", SQL: `CREATE VIEW temp.v AS SELECT 1 AS a`},
		{Name: "create_table_strict", SQL: `CREATE TABLE s (a INTEGER) STRICT`},
		{Name: "create_table_without_rowid", SQL: `CREATE TABLE w (a INTEGER PRIMARY KEY) WITHOUT ROWID`},
		{Name: "create_index_if_not_exists", SQL: `CREATE INDEX IF NOT EXISTS people_name ON people (name)`},
		{Name: "drop_index_existing", SQL: `DROP INDEX IF EXISTS sqlite_autoindex_people_1`},
		{Name: "reindex", SQL: `REINDEX`},
		{Name: "reindex_table", SQL: `REINDEX people`},
		{Name: "analyze", SQL: `ANALYZE`},
		{Name: "analyze_table", SQL: `ANALYZE people`},
		{Name: "sqlite_master_update", SQL: `UPDATE sqlite_master SET sql = 'CREATE TABLE people (x)' WHERE name = 'people'`},
		{Name: "sqlite_schema_delete", SQL: `DELETE FROM sqlite_schema`},
		{Name: "sqlite_temp_master_insert", SQL: `INSERT INTO sqlite_temp_master VALUES ('table', 'x', 'x', 0, 'CREATE TABLE x (a)')`},
		{Name: "sqlite_stat1_insert", SQL: `INSERT INTO sqlite_stat1 VALUES ('people', NULL, '1')`},
		{Name: "sqlite_dbpage_write", SQL: `UPDATE sqlite_dbpage SET data = zeroblob(4096) WHERE pgno = 1`},

		// Transaction control in SQLite's forms.
		{Name: "begin_immediate", SQL: `BEGIN IMMEDIATE`},
		{Name: "begin_exclusive", SQL: `BEGIN EXCLUSIVE TRANSACTION`},
		{Name: "begin_deferred", SQL: `BEGIN DEFERRED`},
		{Name: "commit_transaction", SQL: `COMMIT TRANSACTION`},
		{Name: "end_transaction", SQL: `END TRANSACTION`},
		{Name: "release_plain", SQL: `RELEASE sp1`},
		{Name: "rollback_transaction_to", SQL: `ROLLBACK TRANSACTION TO sp1`},

		// Statement smuggling against SQLite's tokenizer.
		{Name: "multi_pragma", SQL: `SELECT 1; PRAGMA journal_mode = WAL`},
		{Name: "multi_attach", SQL: `SELECT 1; ATTACH ':memory:' AS m`},
		{Name: "multi_after_line_comment", SQL: "SELECT 1 --\n;\nPRAGMA writable_schema = 1"},
		{Name: "multi_after_unterminated_string", SQL: `SELECT 'a; DROP TABLE people`},
		{Name: "multi_bracket_identifier", SQL: `SELECT 1 AS [a;b]; DELETE FROM people`},
		{Name: "multi_backtick_identifier", SQL: "SELECT 1 AS `a;b`; DELETE FROM people"},
		{Name: "multi_dqs_string", SQL: `SELECT "a;b"; DELETE FROM people`},

		// Explosions SQLite's length limit stops at once.
		{Name: "randomblob_huge", SQL: `SELECT randomblob(2000000000)`},
		{Name: "zeroblob_huge", SQL: `SELECT zeroblob(2000000000)`},
		{Name: "printf_huge", SQL: `SELECT printf('%.*c', 2000000000, 'x')`},
		{Name: "format_width_huge", SQL: `SELECT format('%2000000000d', 1)`},
		{Name: "hex_randomblob", SQL: `SELECT hex(randomblob(10000000))`},
		{Name: "replace_zeroblob", SQL: `SELECT replace(hex(zeroblob(10000000)), '00', 'xyz')`},
		{Name: "group_concat_cross", SQL: `SELECT length(group_concat(a.label)) FROM nums a, nums b`, Budget: fast},
		{Name: "json_group_array_cross", SQL: `SELECT length(json_group_array(a.label)) FROM nums a, nums b`, Budget: fast},
		{Name: "recursive_doubling", SQL: `WITH RECURSIVE r(s) AS (SELECT 'x' UNION ALL SELECT s || s FROM r) SELECT length(s) FROM r`},
		{Name: "recursive_two_branches", SQL: `WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c UNION ALL SELECT n + 2 FROM c) SELECT count(*) FROM c`, Budget: fast},
		{Name: "window_cross", SQL: `SELECT count(*) OVER (ORDER BY a.n, b.n) FROM nums a, nums b`, Budget: fast},
		{Name: "sort_cross", SQL: `SELECT a.label || b.label FROM nums a, nums b ORDER BY 1 DESC LIMIT 1`, Budget: fast},

		// Parser and planner limits.
		{Name: "deep_expression", SQL: "SELECT 1" + strings.Repeat(" + 1", 5000)},
		{Name: "deep_case", SQL: "SELECT " + strings.Repeat("CASE WHEN 1 THEN ", 2000) + "1" + strings.Repeat(" END", 2000)},
		{Name: "deep_subquery", SQL: strings.Repeat("SELECT * FROM (", 2000) + "SELECT 1" + strings.Repeat(")", 2000)},
		{Name: "compound_select_many", SQL: "SELECT 1" + strings.Repeat(" UNION SELECT 1", 1000)},
		{Name: "columns_many", SQL: "SELECT 1" + strings.Repeat(", 1", 40000)},
		{Name: "like_pattern_long", SQL: `SELECT 'a' LIKE '` + strings.Repeat("%a", 40000) + `'`},
		{Name: "sql_too_long", SQL: `SELECT '` + strings.Repeat("x", 2<<20) + `'`},
	}
}

func TestHostile(t *testing.T) {
	corpus := append(enginetest.CommonHostile(), sqliteHostile()...)
	enginetest.RunHostile(t, harness(), corpus)
}
