package postgres

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/sqlgym/sqlgym"
)

// roleInfo is what Open learns about the role it logged in as.
type roleInfo struct {
	user, database              string
	superuser, createRole       bool
	createDB, replication       bool
	bypassRLS, signalBackend    bool
	readFiles, writeFiles, exec bool
	fileFuncs                   bool
	// canSignal: the role may call pg_cancel_backend or
	// pg_terminate_backend, so a cancel or termination of its session
	// may have come from a statement of the same role rather than from
	// an administrator.
	canSignal                  bool
	schemaExists, schemaUsable bool
	// connLimit is the fewest connections the role may hold at once
	// (role, database and server limits); -1 when none applies.
	connLimit int32
}

const roleQuery = `SELECT current_user::text, current_database()::text,
  r.rolsuper, r.rolcreaterole, r.rolcreatedb, r.rolreplication, r.rolbypassrls,
  pg_has_role(current_user, 'pg_signal_backend', 'MEMBER'),
  pg_has_role(current_user, 'pg_read_server_files', 'MEMBER'),
  pg_has_role(current_user, 'pg_write_server_files', 'MEMBER'),
  pg_has_role(current_user, 'pg_execute_server_program', 'MEMBER'),
  has_function_privilege('pg_catalog.pg_read_file(text)', 'EXECUTE')
    OR has_function_privilege('pg_catalog.pg_read_binary_file(text)', 'EXECUTE')
    OR has_function_privilege('pg_catalog.pg_ls_dir(text)', 'EXECUTE')
    OR has_function_privilege('pg_catalog.pg_stat_file(text)', 'EXECUTE')
    OR has_function_privilege('pg_catalog.lo_import(text)', 'EXECUTE')
    OR has_function_privilege('pg_catalog.lo_export(oid, text)', 'EXECUTE'),
  has_function_privilege('pg_catalog.pg_terminate_backend(integer, bigint)', 'EXECUTE')
    OR has_function_privilege('pg_catalog.pg_cancel_backend(integer)', 'EXECUTE'),
  n.oid IS NOT NULL,
  n.oid IS NOT NULL AND has_schema_privilege(n.oid, 'USAGE'),
  (SELECT min(l) FROM unnest(ARRAY[
     r.rolconnlimit,
     (SELECT d.datconnlimit FROM pg_catalog.pg_database d WHERE d.datname = current_database()),
     current_setting('max_connections')::int - current_setting('superuser_reserved_connections')::int
   ]) AS l WHERE l >= 0)
FROM pg_catalog.pg_roles r
LEFT JOIN pg_catalog.pg_namespace n ON n.nspname = $1
WHERE r.rolname = current_user`

func (e *Engine) checkRole(ctx context.Context, opts Options) (roleInfo, error) {
	schema := opts.Schema
	if schema == "" {
		schema = "public"
	}
	var ri roleInfo
	var connLimit *int32
	// The simple protocol leaves no prepared statement behind on the pooled
	// connection.
	err := e.pool.QueryRow(ctx, roleQuery, pgx.QueryExecModeSimpleProtocol, schema).Scan(&ri.user, &ri.database,
		&ri.superuser, &ri.createRole, &ri.createDB, &ri.replication, &ri.bypassRLS, &ri.signalBackend,
		&ri.readFiles, &ri.writeFiles, &ri.exec, &ri.fileFuncs, &ri.canSignal, &ri.schemaExists, &ri.schemaUsable, &connLimit)
	if err != nil {
		if pgErr, ok := asPgError(err); ok && !isInfraCode(pgErr.Code) {
			return ri, fmt.Errorf("postgres: check the role's privileges: %w", err)
		}
		return ri, &sqlgym.InfraError{Err: fmt.Errorf("postgres: %w", err)}
	}
	ri.connLimit = -1
	if connLimit != nil {
		ri.connLimit = *connLimit
	}
	if !opts.AllowPrivileged {
		if why := ri.privileges(); len(why) > 0 {
			// The hint grants on the schema that holds the tables, which
			// need not be public, and says which --pg-schema to pass.
			holding := e.tableSchemas(ctx)
			hs, _ := hintSchema(opts.Schema, holding)
			return ri, &sqlgym.UserError{
				Err: ErrPrivilegedRole,
				Msg: fmt.Sprintf("postgres role %q %s: a read-only transaction does not stop such a role from "+
					"reading server files, running programs, signalling other sessions or making changes that "+
					"outlive the transaction, so sqlgym will not run model-written SQL as it",
					ri.user, strings.Join(why, ", ")),
				Hint: ReaderRoleHint(ri.database, hs) + ",\n" + schemaFlagHint(opts.Schema, holding),
			}
		}
	}
	if opts.Schema == "" {
		if err := tablesElsewhere(ri.database, e.tableSchemas(ctx)); err != nil {
			return ri, err
		}
	}
	if opts.Schema != "" && !ri.schemaExists {
		return ri, sqlgym.Userf("pass the schema that holds your tables (psql's \\dn lists them) in --pg-schema or ?schema=; "+
			"'sqlgym db create shop --engine postgres --schema NAME' loads only the built-in shop database",
			"postgres schema %q does not exist in database %q", opts.Schema, ri.database)
	}
	if opts.Schema != "" && !ri.schemaUsable {
		return ri, sqlgym.Userf(ReaderRoleHint(ri.database, schema),
			"postgres role %q may not use schema %q", ri.user, opts.Schema)
	}
	return ri, nil
}

// ErrPrivilegedRole is the cause of the refusal of a role that may do
// more than read (a superuser, say): the one error a caller that runs no
// model-written SQL (db schema) may go past with AllowPrivileged.
var ErrPrivilegedRole = errors.New("postgres role may do more than read")

// privileges lists what disqualifies the role, in words for the error.
func (ri roleInfo) privileges() []string {
	var why []string
	add := func(cond bool, s string) {
		if cond {
			why = append(why, s)
		}
	}
	add(ri.superuser, "is a superuser")
	add(ri.createRole, "has CREATEROLE")
	add(ri.createDB, "has CREATEDB")
	// REPLICATION lets a read-only transaction create a physical
	// replication slot, which survives the rollback and keeps WAL forever.
	add(ri.replication, "has REPLICATION")
	add(ri.bypassRLS, "has BYPASSRLS")
	add(ri.signalBackend, "is a member of pg_signal_backend")
	add(ri.readFiles, "is a member of pg_read_server_files")
	add(ri.writeFiles, "is a member of pg_write_server_files")
	add(ri.exec, "is a member of pg_execute_server_program")
	add(ri.fileFuncs, "may call server-file functions (pg_read_file, pg_ls_dir, lo_import, ...)")
	return why
}

// revokedFuncsSQL selects, in the current database, every function the
// reader must not execute: signals, waits, advisory locks, large objects,
// SQL run from text, settings, notifications, transaction ids, server
// files and dblink. PUBLIC has EXECUTE on most of them by default, and a
// grant to PUBLIC cannot be revoked from one role alone.
// pg_advisory_unlock_all stays: the engine's session reset calls it.
const revokedFuncsSQL = `SELECT p.oid::regprocedure FROM pg_catalog.pg_proc p
    JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace
    WHERE (n.nspname = 'pg_catalog' AND (p.proname IN ('pg_sleep', 'pg_sleep_for', 'pg_sleep_until',
        'pg_cancel_backend', 'pg_terminate_backend', 'set_config', 'pg_notify', 'pg_logical_emit_message',
        'txid_current', 'pg_current_xact_id', 'pg_export_snapshot', 'ts_stat', 'ts_rewrite', 'loread', 'lowrite',
        'pg_read_file', 'pg_read_binary_file', 'pg_stat_file', 'pg_ls_dir')
      OR p.proname ~ '^(pg_try_advisory_|pg_advisory_|lo_|query_to_xml|cursor_to_xml|table_to_xml|schema_to_xml|database_to_xml)')
      AND p.proname <> 'pg_advisory_unlock_all')
    OR p.proname LIKE 'dblink%'`

// HardeningSQL is what a superuser runs, once, in the database sqlgym
// reads, so the reader role itself cannot reach past its transaction.
// Function privileges belong to one database: run it in a database that
// holds sqlgym's copy of the data, or grant EXECUTE back to the other
// roles that need these functions there.
func HardeningSQL() string {
	return "DO $$ DECLARE f regprocedure; BEGIN\n" +
		"  FOR f IN " + revokedFuncsSQL + "\n" +
		"  LOOP EXECUTE format('REVOKE EXECUTE ON FUNCTION %s FROM PUBLIC', f); END LOOP;\n" +
		"END $$;"
}

// plainIdent is a name PostgreSQL takes unquoted as itself: the role is
// written bare when it is one, so the SQL reads as a person would write it.
var plainIdent = regexp.MustCompile(`^[a-z_][a-z0-9_]*$`)

// ReaderRoleSQL is the SQL, run once as a superuser in database, that
// creates role: it can log in and read the tables of one schema, nothing
// more, in a database whose dangerous functions PUBLIC may no longer
// execute. `sqlgym db reader-sql` prints it for psql; ReaderRoleHint wraps
// it in the refusal a superuser DSN gets.
func ReaderRoleSQL(database, schema, role, password string) string {
	db := pgx.Identifier{database}.Sanitize()
	sc := pgx.Identifier{schema}.Sanitize()
	r := role
	if !plainIdent.MatchString(role) {
		r = pgx.Identifier{role}.Sanitize()
	}
	pw := "'" + strings.ReplaceAll(password, "'", "''") + "'"
	return "CREATE ROLE " + r + " LOGIN PASSWORD " + pw + " CONNECTION LIMIT 16\n" +
		"  NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS;\n" +
		"ALTER ROLE " + r + " SET temp_file_limit = '1GB';\n" +
		"GRANT CONNECT ON DATABASE " + db + " TO " + r + ";\n" +
		"GRANT USAGE ON SCHEMA " + sc + " TO " + r + ";\n" +
		"GRANT SELECT ON ALL TABLES IN SCHEMA " + sc + " TO " + r + ";\n" +
		"-- signals, sleeps, advisory locks, large objects, SQL from text, set_config, pg_notify, dblink:\n" +
		HardeningSQL() + "\n"
}

// ReaderRoleHint is the hint a superuser DSN gets: ReaderRoleSQL with a
// placeholder password, and how to connect afterwards.
func ReaderRoleHint(database, schema string) string {
	sql := strings.TrimSuffix(ReaderRoleSQL(database, schema, "sqlgym_reader", "change-me"), "\n")
	return "connect as a role that can only read, created once by a superuser in database " +
		pgx.Identifier{database}.Sanitize() + "\n" +
		"(best a database holding only sqlgym's copy of the data: the REVOKE below applies to every\n" +
		"non-superuser role of that database; `sqlgym db reader-sql --database " + database +
		" --schema " + schema + " | psql ...` runs it):\n" +
		"  " + strings.ReplaceAll(sql, "\n", "\n  ") + "\n" +
		"then use user=sqlgym_reader in the DSN (postgres://sqlgym_reader:change-me@HOST:PORT/" + database + ")"
}
