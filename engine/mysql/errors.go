package mysql

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"net"

	"github.com/go-sql-driver/mysql"
	"github.com/sqlgym/sqlgym"
)

// Server error numbers the engine tells apart (MySQL's and MariaDB's
// share the range below 2000; the timeouts differ).
const (
	erParse               = 1064
	erEmptyQuery          = 1065
	erNoSuchTable         = 1146
	erBadField            = 1054
	erBadTable            = 1051
	erUnknownTable        = 1109
	erTableAccessDenied   = 1142
	erColumnAccessDenied  = 1143
	erDBAccessDenied      = 1044
	erSpecificAccess      = 1227
	erProcAccessDenied    = 1370
	erReadOnlyTransaction = 1792
	erQueryInterrupted    = 1317
	erLockWaitTimeout     = 1205
	erDeadlock            = 1213
	erTooManyConnections  = 1040
	erUserLimitReached    = 1226
	erTooManyUserConns    = 1203
	erServerShutdown      = 1053
	erConnKilled          = 1927
	erMariaDBStmtTimeout  = 1969
	erMySQLQueryTimeout   = 3024
	erOutOfRange          = 1690
	erTruncatedValue      = 1292
	erDivisionByZero      = 1365
	erUnsupportedPrepared = 1295
	erNotSupportedYet     = 1235
	erOutOfMemory         = 1037
	erOutOfSortMemory     = 1038
	erRecordFileFull      = 1114
	erOperandColumns      = 1241
	erSubqueryRows        = 1242
	erWrongArguments      = 1210
	erFuncNotExist        = 1305
)

// classify turns a driver error into the sandbox's kinds: a statement's
// own failure is an *ExecError, the server's limit ErrTimeout, anything
// that says the server or the connection is unwell an *InfraError.
func classify(err error, lim sqlgym.Limits) error {
	var me *mysql.MySQLError
	if !errors.As(err, &me) {
		var ne net.Error
		if errors.Is(err, driver.ErrBadConn) || errors.Is(err, mysql.ErrInvalidConn) || errors.As(err, &ne) || errors.Is(err, context.DeadlineExceeded) {
			return &sqlgym.InfraError{Err: fmt.Errorf("mysql connection: %w", err)}
		}
		return &sqlgym.InfraError{Err: fmt.Errorf("mysql: %w", err)}
	}
	switch me.Number {
	case erMariaDBStmtTimeout, erMySQLQueryTimeout:
		return fmt.Errorf("%w (%v): %s", sqlgym.ErrTimeout, lim.Timeout, me.Message)
	case erParse, erEmptyQuery:
		return execErr(sqlgym.ErrKindSyntax, me)
	case erNoSuchTable, erUnknownTable, erBadTable:
		return execErr(sqlgym.ErrKindNoTable, me)
	case erBadField:
		return execErr(sqlgym.ErrKindNoColumn, me)
	case erTableAccessDenied, erColumnAccessDenied, erDBAccessDenied, erSpecificAccess, erProcAccessDenied, erReadOnlyTransaction:
		return execErr(sqlgym.ErrKindForbidden, me)
	case erOutOfRange, erTruncatedValue, erDivisionByZero, erOperandColumns, erWrongArguments:
		return execErr(sqlgym.ErrKindType, me)
	case erOutOfMemory, erOutOfSortMemory, erRecordFileFull:
		// The statement asked for more than the server gives one query.
		return fmt.Errorf("%w: %s", sqlgym.ErrTooLarge, me.Message)
	case erLockWaitTimeout, erDeadlock, erTooManyConnections, erUserLimitReached, erTooManyUserConns,
		erServerShutdown, erConnKilled, erQueryInterrupted:
		// Lock waits are another session's doing, and an interrupted
		// statement the engine did not interrupt was killed from outside.
		return &sqlgym.InfraError{Err: fmt.Errorf("mysql error %d: %w", me.Number, err)}
	}
	return execErr(sqlgym.ErrKindOther, me)
}

func execErr(kind sqlgym.ErrorKind, me *mysql.MySQLError) *sqlgym.ExecError {
	return &sqlgym.ExecError{Kind: kind, Msg: fmt.Sprintf("Error %d: %s", me.Number, me.Message), Err: me}
}
