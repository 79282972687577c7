package postgres

import (
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/sqlgym/sqlgym"
)

// multiStatementMsg is the server's refusal of a Parse message holding
// more than one statement: a syntax error by SQLSTATE, a multi-statement
// error for sqlgym.
const multiStatementMsg = "cannot insert multiple commands into a prepared statement"

// execKinds maps SQLSTATEs to error kinds; codes not listed are "other".
var execKinds = map[string]sqlgym.ErrorKind{
	"42601": sqlgym.ErrKindSyntax,   // syntax_error
	"42P01": sqlgym.ErrKindNoTable,  // undefined_table
	"3F000": sqlgym.ErrKindNoTable,  // invalid_schema_name: a qualified table in no schema
	"42703": sqlgym.ErrKindNoColumn, // undefined_column
	"42804": sqlgym.ErrKindType,     // datatype_mismatch
	"42883": sqlgym.ErrKindType,     // undefined_function: no function for these argument types
	"42846": sqlgym.ErrKindType,     // cannot_coerce
	"42725": sqlgym.ErrKindType,     // ambiguous_function
	"42P18": sqlgym.ErrKindType,     // indeterminate_datatype
	"22P02": sqlgym.ErrKindType,     // invalid_text_representation
	"22007": sqlgym.ErrKindType,     // invalid_datetime_format
	"22005": sqlgym.ErrKindType,     // error_in_assignment
	"25006": sqlgym.ErrKindForbidden,
	"42501": sqlgym.ErrKindForbidden,
	"2D000": sqlgym.ErrKindForbidden, // invalid_transaction_termination
	"25001": sqlgym.ErrKindForbidden, // active_sql_transaction: a command that must run outside one
}

// isInfraCode reports whether a server error says the database itself is
// unusable (shutting down, unreachable, out of connections), which is
// never the statement's fault.
func isInfraCode(code string) bool {
	switch {
	case strings.HasPrefix(code, "08"), // connection_exception
		strings.HasPrefix(code, "28"),  // invalid authorization
		strings.HasPrefix(code, "57P"), // admin/crash shutdown, cannot connect now, database dropped
		strings.HasPrefix(code, "58"),  // system error, I/O error
		code == "53300",                // too_many_connections
		code == "3D000":                // invalid_catalog_name: the database is gone
		return true
	}
	return false
}

// classify turns a server error into an *sqlgym.ExecError or an
// *sqlgym.InfraError. The query path handles statement_timeout and
// temp_file_limit first, since only it knows whether it sent a cancel.
func classify(pgErr *pgconn.PgError) error {
	if detail := infraCause(pgErr); detail != "" {
		return &sqlgym.InfraError{Err: fmt.Errorf("%s: %w", detail, pgErr)}
	}
	if pgErr.Code == "42601" && pgErr.Message == multiStatementMsg {
		return &sqlgym.ExecError{Kind: sqlgym.ErrKindMulti, Msg: pgErr.Message, Err: pgErr}
	}
	kind, ok := execKinds[pgErr.Code]
	if !ok {
		kind = sqlgym.ErrKindOther
	}
	return &sqlgym.ExecError{Kind: kind, Msg: pgErr.Message, Err: pgErr}
}

// infraCause says, for a server error that is never the statement's
// fault, what happened; "" for an error that may be.
func infraCause(pgErr *pgconn.PgError) string {
	switch {
	case pgErr.Code == "57P01":
		return "the server ended the session (an administrator's pg_terminate_backend or a shutdown)"
	case pgErr.Code == "57P02":
		return "the server ended the session because another server process crashed"
	case pgErr.Code == "57P03":
		return "the server does not accept connections now (starting up, shutting down or in recovery)"
	case pgErr.Code == "53300":
		return "too many connections: the server's, the database's or the role's connection limit is reached " +
			"(other clients of the same role, or backends still running statements sqlgym gave up on)"
	case pgErr.Code == codeLockTimeout:
		// A query only takes ACCESS SHARE locks, which conflict with
		// nothing but ACCESS EXCLUSIVE: DDL, VACUUM FULL, a migration.
		return "the statement waited longer than lock_timeout for a table lock another session holds (DDL or a migration)"
	case pgErr.Code == codeQueryCanceled && pgErr.Message != msgStatementTimeout:
		// sqlgym's own cancels are recognised by the caller before this.
		return "another session cancelled the statement (pg_cancel_backend)"
	case isInfraCode(pgErr.Code):
		return "the database is unusable"
	}
	return ""
}

func asPgError(err error) (*pgconn.PgError, bool) {
	var pgErr *pgconn.PgError
	ok := errors.As(err, &pgErr)
	return pgErr, ok
}

// Codes the query path treats specially.
const (
	codeQueryCanceled = "57014" // statement_timeout or a cancel request
	codeLockTimeout   = "55P03" // lock_timeout
	codeTempFileLimit = "53400" // configuration_limit_exceeded: temp_file_limit
	codeInsufficient  = "42501" // insufficient_privilege
	codeAdminShutdown = "57P01" // admin_shutdown: pg_terminate_backend

	// msgStatementTimeout is how the server words its own
	// statement_timeout; every other 57014 is a cancel request.
	msgStatementTimeout = "canceling statement due to statement timeout"
)
