package postgres

import (
	"context"
	"errors"
	"fmt"
	"regexp"

	"github.com/jackc/pgx/v5"
	"github.com/sqlgym/sqlgym"
)

// blame settles who is at fault for errors whose SQLSTATE alone does not
// say: a session that died or was cancelled under the statement, and a
// permission the reader lacks.
func (e *Engine) blame(ctx context.Context, err error) error {
	if err == nil || ctx.Err() != nil {
		return err
	}
	pgErr, isPg := asPgError(err)
	if isPg && pgErr.Code == codeInsufficient && !sqlgym.IsInfra(err) {
		return e.blameGrant(ctx, err, pgErr.Message)
	}
	// A role that can no longer signal backends (the reader recipe
	// revokes pg_cancel_backend and pg_terminate_backend) cannot have
	// cancelled or ended its own session, nor been done it by a sibling
	// statement: an administrator, the server or the network did.
	if !sqlgym.IsInfra(err) || !e.canSignal {
		return err
	}
	if isPg {
		switch pgErr.Code {
		case codeAdminShutdown, codeQueryCanceled:
		default:
			return err
		}
	}
	return e.blameSession(ctx, err)
}

// deniedObject reads the object out of PostgreSQL's permission errors:
// "permission denied for table people", "... for schema shop",
// "permission denied for column x of relation people".
var deniedObject = regexp.MustCompile(`^permission denied for (?:column .+ of relation (.+)|(?:table|view|materialized view|foreign table|sequence) (.+)|(schema) (.+))$`)

// blameGrant decides a permission error. A model reading a system object
// the reader may not read gets its own forbidden error; a table or the
// schema of the task itself that the reader cannot read means the grants
// were changed under sqlgym (a REVOKE, a table recreated without its
// grant): an *sqlgym.InfraError that says so, since no SQL could have
// read the task's data.
func (e *Engine) blameGrant(ctx context.Context, orig error, msg string) error {
	err := orig
	// The InfraError wraps the server's error, not the ExecError, which
	// errors.As would otherwise still find.
	if pgErr, ok := asPgError(err); ok {
		err = pgErr
	}
	m := deniedObject.FindStringSubmatch(msg)
	if m == nil {
		return orig
	}
	schema := e.schema
	if schema == "" {
		schema = "public"
	}
	if m[3] != "" {
		if m[4] != schema {
			return orig
		}
		return &sqlgym.InfraError{Err: fmt.Errorf("the reader role may not use the task's schema %s (GRANT USAGE ON SCHEMA %s TO the reader): %w",
			schema, pgx.Identifier{schema}.Sanitize(), err)}
	}
	rel := m[1] + m[2]
	qctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), probeTimeout)
	defer cancel()
	var denied bool
	qerr := e.pool.QueryRow(qctx, `SELECT NOT has_table_privilege(c.oid, 'SELECT')
		FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname = $1 AND c.relname = $2`, pgx.QueryExecModeSimpleProtocol, schema, rel).Scan(&denied)
	if errors.Is(qerr, pgx.ErrNoRows) || qerr == nil && !denied {
		return orig
	}
	if qerr != nil {
		return &sqlgym.InfraError{Err: fmt.Errorf("permission denied, and checking the task's grants failed (%v): %w", qerr, err)}
	}
	return &sqlgym.InfraError{Err: fmt.Errorf("the reader role lost SELECT on %s.%s, a table of the task's schema (GRANT SELECT ON ALL TABLES IN SCHEMA %s TO the reader): %w",
		schema, rel, pgx.Identifier{schema}.Sanitize(), err)}
}

// blameSession decides who is at fault when the session died while the
// model's statement ran. If the server still answers on a fresh
// connection, the database was available and the statement ended its own
// session (pg_terminate_backend(pg_backend_pid()) reached by some path
// the screen missed, or a backend crash it caused): an *sqlgym.ExecError,
// so such SQL can never turn a wrong answer into an unscored one. If the
// server does not answer, the error stays an *sqlgym.InfraError.
func (e *Engine) blameSession(ctx context.Context, err error) error {
	pctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), probeTimeout)
	defer cancel()
	// A connection of its own: the pool may be busy with other
	// statements, and its idle connections prove nothing.
	probe, perr := pgx.ConnectConfig(pctx, e.pool.Config().ConnConfig)
	if perr != nil {
		return err
	}
	perr = probe.Ping(pctx)
	probe.Close(pctx)
	if perr != nil {
		return err
	}
	// The ExecError must not wrap the InfraError, or IsInfra would still
	// report it.
	inner := err
	var ie *sqlgym.InfraError
	if errors.As(err, &ie) {
		inner = ie.Err
	}
	msg := inner.Error()
	if pgErr, ok := asPgError(inner); ok {
		msg = pgErr.Message
	}
	return &sqlgym.ExecError{Kind: sqlgym.ErrKindOther,
		Msg: msg + " (the server is up and the reader role may signal backends, so the statement itself may have done it; " +
			"revoke pg_cancel_backend and pg_terminate_backend from PUBLIC (see the reader recipe) to have this reported as the database's failure)",
		Err: inner}
}
