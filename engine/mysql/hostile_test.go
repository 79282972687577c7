package mysql

import (
	"testing"
	"time"

	"github.com/sqlgym/sqlgym/engine/enginetest"
)

// runaway is the budget of statements only the clock or the caps stop.
const runaway = 300 * time.Millisecond

// hostileFixture adds what the MySQL corpus aims at: a stored function
// and a procedure the reader must not be able to call.
var hostileFixture = []string{
	"CREATE FUNCTION evil_fn() RETURNS INT DETERMINISTIC RETURN (SELECT count(*) FROM people)",
	"CREATE PROCEDURE evil_proc() DELETE FROM people",
}

// mysqlHostile is the MySQL and MariaDB part of the hostile corpus:
// executable comments, waits and locks, server files, user variables and
// SET, locking reads, HANDLER, stored code, session and server control.
func mysqlHostile() []enginetest.Hostile {
	return []enginetest.Hostile{
		// Executable comments run their contents.
		{Name: "my_exec_comment_delete", SQL: `/*! DELETE FROM people */`},
		{Name: "my_exec_comment_versioned_drop", SQL: `/*!50000 DROP TABLE people */`},
		{Name: "my_exec_comment_mariadb", SQL: `/*M! DELETE FROM people */`},
		{Name: "my_exec_comment_mariadb_versioned", SQL: `/*M!100100 DROP TABLE nums */`},
		{Name: "my_exec_comment_sleep", SQL: `SELECT /*! SLEEP(5), */ 1`, Budget: runaway},
		{Name: "my_exec_comment_into_outfile", SQL: `SELECT * FROM people /*!50000 INTO OUTFILE '{{DIR}}/ec.txt' */`},
		{Name: "my_exec_comment_second_statement", SQL: `SELECT 1 /*!; DELETE FROM people */`},
		{Name: "my_exec_comment_nested", SQL: `SELECT 1 /*! /* x */ , SLEEP(5) */`, Budget: runaway},
		{Name: "my_exec_comment_for_update", SQL: `SELECT * FROM people /*! FOR UPDATE */`},
		{Name: "my_optimizer_hint_set_var", SQL: `SELECT /*+ SET_VAR(max_execution_time=0) */ count(*) FROM nums a, nums b, nums c`, Budget: runaway},
		{Name: "my_optimizer_hint_max_time", SQL: `SELECT /*+ MAX_EXECUTION_TIME(100000) */ count(*) FROM nums a, nums b, nums c`, Budget: runaway},

		// Waits and locks.
		{Name: "my_sleep", SQL: `SELECT SLEEP(5)`, Budget: runaway},
		{Name: "my_sleep_per_row", SQL: `SELECT SLEEP(1) FROM nums`, Budget: runaway},
		{Name: "my_sleep_spaced", SQL: "SELECT sleep /* x */ (5)", Budget: runaway},
		{Name: "my_sleep_backticked", SQL: "SELECT `sleep`(5)", Budget: runaway},
		{Name: "my_sleep_in_where", SQL: `SELECT id FROM people WHERE SLEEP(5) = 0`, Budget: runaway},
		{Name: "my_benchmark", SQL: `SELECT BENCHMARK(100000000000, MD5('x'))`, Budget: runaway},
		{Name: "my_get_lock", SQL: `SELECT GET_LOCK('sqlgym', 10)`},
		{Name: "my_release_lock", SQL: `SELECT RELEASE_LOCK('sqlgym')`},
		{Name: "my_release_all_locks", SQL: `SELECT RELEASE_ALL_LOCKS()`},
		{Name: "my_is_free_lock", SQL: `SELECT IS_FREE_LOCK('sqlgym')`},
		{Name: "my_is_used_lock", SQL: `SELECT IS_USED_LOCK('sqlgym')`},
		{Name: "my_master_pos_wait", SQL: `SELECT MASTER_POS_WAIT('log.000001', 4, 10)`, Budget: runaway},
		{Name: "my_master_gtid_wait", SQL: `SELECT MASTER_GTID_WAIT('0-1-100', 10)`, Budget: runaway},
		{Name: "my_lock_tables", SQL: `LOCK TABLES people READ`},
		{Name: "my_unlock_tables", SQL: `UNLOCK TABLES`},
		{Name: "my_flush_tables_read_lock", SQL: `FLUSH TABLES WITH READ LOCK`},
		{Name: "my_backup_lock", SQL: `BACKUP LOCK people`},

		// Locking reads.
		{Name: "my_for_update_nowait", SQL: `SELECT * FROM people FOR UPDATE NOWAIT`},
		{Name: "my_for_share", SQL: `SELECT * FROM people FOR SHARE`},
		{Name: "my_lock_in_share_mode", SQL: `SELECT * FROM people LOCK IN SHARE MODE`},
		{Name: "my_for_update_skip_locked", SQL: `SELECT id FROM orders FOR UPDATE SKIP LOCKED`},
		{Name: "my_for_update_in_subquery", SQL: `SELECT * FROM (SELECT * FROM people FOR UPDATE) p`},

		// Server files.
		{Name: "my_load_file", SQL: `SELECT LOAD_FILE('/etc/passwd')`},
		{Name: "my_load_file_hex", SQL: `SELECT HEX(LOAD_FILE(0x2f6574632f706173737764))`},
		{Name: "my_into_outfile", SQL: `SELECT * FROM people INTO OUTFILE '{{DIR}}/people.txt'`},
		{Name: "my_into_dumpfile", SQL: `SELECT name FROM people LIMIT 1 INTO DUMPFILE '{{DIR}}/dump.bin'`},
		{Name: "my_into_outfile_before_from", SQL: `SELECT id INTO OUTFILE '{{DIR}}/x.txt' FROM people`},
		{Name: "my_load_data_infile", SQL: `LOAD DATA INFILE '/etc/passwd' INTO TABLE empty_t`},
		{Name: "my_load_data_local", SQL: `LOAD DATA LOCAL INFILE '/etc/passwd' INTO TABLE empty_t`},
		{Name: "my_load_xml", SQL: `LOAD XML INFILE '/etc/passwd' INTO TABLE empty_t`},

		// User variables and SET.
		{Name: "my_set_user_variable", SQL: `SET @x = 1`},
		{Name: "my_select_assign_variable", SQL: `SELECT @x := count(*) FROM people`},
		{Name: "my_select_into_variable", SQL: `SELECT count(*) INTO @n FROM people`},
		{Name: "my_read_user_variable", SQL: `SELECT @x`},
		{Name: "my_system_variable", SQL: `SELECT @@secure_file_priv`},
		{Name: "my_system_variable_global", SQL: `SELECT @@GLOBAL.max_statement_time`},
		{Name: "my_set_max_statement_time", SQL: `SET SESSION max_statement_time = 0`},
		{Name: "my_set_max_execution_time", SQL: `SET max_execution_time = 0`},
		{Name: "my_set_sql_mode", SQL: `SET sql_mode = 'ANSI_QUOTES'`},
		{Name: "my_set_statement_for", SQL: `SET STATEMENT max_statement_time = 0 FOR SELECT count(*) FROM nums a, nums b, nums c`},
		{Name: "my_set_transaction_rw", SQL: `SET TRANSACTION READ WRITE`},
		{Name: "my_set_global", SQL: `SET GLOBAL max_connections = 1`},
		{Name: "my_set_names", SQL: `SET NAMES latin1`},
		{Name: "my_set_password", SQL: `SET PASSWORD = PASSWORD('x')`},
		{Name: "my_set_role", SQL: `SET ROLE ALL`},
		{Name: "my_last_insert_id_set", SQL: `SELECT LAST_INSERT_ID(42)`},

		// HANDLER reads outside the transaction's snapshot.
		{Name: "my_handler_open", SQL: `HANDLER people OPEN`},
		{Name: "my_handler_read", SQL: `HANDLER people READ FIRST`},
		{Name: "my_handler_close", SQL: `HANDLER people CLOSE`},

		// Stored code.
		{Name: "my_stored_function_call", SQL: `SELECT evil_fn()`},
		{Name: "my_stored_function_qualified", SQL: `SELECT DATABASE(), evil_fn() FROM people`},
		{Name: "my_call_procedure", SQL: `CALL evil_proc()`},
		{Name: "my_create_function", SQL: `CREATE FUNCTION f2() RETURNS INT RETURN 1`},
		{Name: "my_create_event", SQL: `CREATE EVENT e ON SCHEDULE EVERY 1 SECOND DO DELETE FROM people`},
		{Name: "my_create_trigger", SQL: `CREATE TRIGGER t BEFORE INSERT ON people FOR EACH ROW SET NEW.age = 0`},
		{Name: "my_do_sleep", SQL: `DO SLEEP(5)`},
		{Name: "my_prepare", SQL: `PREPARE s FROM 'DELETE FROM people'`},
		{Name: "my_execute", SQL: `EXECUTE s`},
		{Name: "my_execute_immediate", SQL: `EXECUTE IMMEDIATE 'DELETE FROM people'`},
		{Name: "my_begin_not_atomic", SQL: `BEGIN NOT ATOMIC DELETE FROM people; END`},
		{Name: "my_xa_start", SQL: `XA START 'x'`},

		// Writes MySQL spells its own way.
		{Name: "my_replace_into", SQL: `REPLACE INTO people (id, name) VALUES (1, 'x')`},
		{Name: "my_insert_ignore", SQL: `INSERT IGNORE INTO empty_t VALUES (1, 'x')`},
		{Name: "my_insert_on_duplicate", SQL: `INSERT INTO people (id, name) VALUES (1, 'x') ON DUPLICATE KEY UPDATE name = 'pwned'`},
		{Name: "my_update_join", SQL: `UPDATE people p JOIN orders o ON o.person_id = p.id SET p.age = 0`},
		{Name: "my_delete_join", SQL: `DELETE p FROM people p JOIN orders o ON o.person_id = p.id`},
		{Name: "my_with_delete", SQL: `WITH x AS (SELECT 1) DELETE FROM people`},
		{Name: "my_with_update", SQL: `WITH x AS (SELECT 1 AS a) UPDATE people SET age = 0`},
		{Name: "my_rename_table", SQL: `RENAME TABLE people TO folks`},
		{Name: "my_create_temporary", SQL: `CREATE TEMPORARY TABLE t AS SELECT * FROM people`},
		{Name: "my_create_user", SQL: `CREATE USER evil IDENTIFIED BY 'x'`},
		{Name: "my_grant_all", SQL: `GRANT ALL PRIVILEGES ON *.* TO CURRENT_USER`},

		// Session and server control, information.
		{Name: "my_kill_connection", SQL: `KILL CONNECTION_ID()`},
		{Name: "my_kill_query", SQL: `KILL QUERY 1`},
		{Name: "my_shutdown", SQL: `SHUTDOWN`},
		{Name: "my_flush_privileges", SQL: `FLUSH PRIVILEGES`},
		{Name: "my_install_plugin", SQL: `INSTALL SONAME 'ha_connect'`},
		{Name: "my_show_processlist", SQL: `SHOW PROCESSLIST`},
		{Name: "my_show_grants", SQL: `SHOW GRANTS`},
		{Name: "my_use_mysql", SQL: `USE mysql`},
		{Name: "my_analyze_table", SQL: `ANALYZE TABLE people`},
		{Name: "my_optimize_table", SQL: `OPTIMIZE TABLE people`},
		{Name: "my_procedure_analyse", SQL: `SELECT * FROM people PROCEDURE ANALYSE()`},
		{Name: "my_next_value_for", SQL: `SELECT NEXT VALUE FOR sqlgym_seq`},
		{Name: "my_nextval", SQL: `SELECT NEXTVAL(sqlgym_seq)`},
		{Name: "my_mysql_user_table", SQL: `SELECT user, authentication_string FROM mysql.user`},
		{Name: "my_multi_backslash_quote", SQL: `SELECT 'a\\'; DELETE FROM people; -- '`},

		// Runaways MySQL spells its own way.
		{Name: "my_recursive_forever", SQL: `WITH RECURSIVE c AS (SELECT 1 AS n UNION ALL SELECT n + 1 FROM c) SELECT count(*) FROM c`, Budget: runaway},
		{Name: "my_repeat_per_row", SQL: `SELECT REPEAT(a.label, 100000) FROM nums a`, Budget: runaway},
		{Name: "my_group_concat_cross", SQL: `SELECT LENGTH(GROUP_CONCAT(a.label)) FROM nums a, nums b, nums c`, Budget: runaway},
		{Name: "my_regexp_backtrack", SQL: `SELECT count(*) FROM nums a, nums b WHERE CONCAT(a.label, b.label) REGEXP '(a+)+$'`, Budget: runaway},
	}
}

func TestHostile(t *testing.T) {
	corpus := append(enginetest.CommonHostile(), mysqlHostile()...)
	enginetest.RunHostile(t, harness(hostileFixture), corpus)
}
