package sqlite

import (
	"errors"
	"fmt"
	"strings"

	"github.com/ncruces/go-sqlite3"

	"github.com/sqlgym/sqlgym"
)

// ErrClosed is wrapped by the InfraError a closed engine returns.
var ErrClosed = errors.New("sqlite engine is closed")

// message is SQLite's own message for err, without ncruces's
// "sqlite3: <code text>: " prefix.
func message(err error) string {
	var se *sqlite3.Error
	if errors.As(err, &se) {
		s := se.Error()
		if m, ok := strings.CutPrefix(s, se.Code().Error()+": "); ok {
			return m
		}
		return strings.TrimPrefix(s, "sqlite3: ")
	}
	return strings.TrimPrefix(err.Error(), "sqlite3: ")
}

// classify turns an error SQLite reported for a statement into the
// sqlgym error it means. Interrupts are handled by the caller, which
// knows why it interrupted.
func classify(err error) error {
	var code sqlite3.ErrorCode
	if !errors.As(err, &code) {
		return &sqlgym.ExecError{Kind: sqlgym.ErrKindOther, Msg: message(err), Err: err}
	}
	switch code {
	case sqlite3.CANTOPEN, sqlite3.NOTADB, sqlite3.CORRUPT, sqlite3.IOERR, sqlite3.FULL,
		sqlite3.PROTOCOL, sqlite3.MISUSE, sqlite3.INTERNAL, sqlite3.BUSY, sqlite3.LOCKED:
		// The file or the connection is at fault, never the SQL.
		return &sqlgym.InfraError{Err: fmt.Errorf("sqlite: %w", err)}
	case sqlite3.AUTH, sqlite3.READONLY, sqlite3.PERM:
		return &sqlgym.ExecError{Kind: sqlgym.ErrKindForbidden, Msg: message(err), Err: err}
	case sqlite3.MISMATCH:
		return &sqlgym.ExecError{Kind: sqlgym.ErrKindType, Msg: message(err), Err: err}
	}
	msg := message(err)
	return &sqlgym.ExecError{Kind: kindOf(msg), Msg: msg, Err: err}
}

// kindOf classifies SQLite's message text; SQLite reports most statement
// errors with the one code SQLITE_ERROR, so the text is all there is.
func kindOf(msg string) sqlgym.ErrorKind {
	switch {
	case strings.Contains(msg, "syntax error"), strings.Contains(msg, "incomplete input"),
		strings.Contains(msg, "unrecognized token"):
		return sqlgym.ErrKindSyntax
	case strings.Contains(msg, "no such table"):
		return sqlgym.ErrKindNoTable
	case strings.Contains(msg, "no such column"):
		return sqlgym.ErrKindNoColumn
	case strings.Contains(msg, "datatype mismatch"):
		return sqlgym.ErrKindType
	case strings.Contains(msg, "not authorized"), strings.Contains(msg, "readonly database"),
		strings.Contains(msg, "prohibited"), strings.Contains(msg, "unsafe use of"):
		return sqlgym.ErrKindForbidden
	}
	return sqlgym.ErrKindOther
}
