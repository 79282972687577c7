package sqlite

import (
	"errors"
	"fmt"
	"strings"

	"github.com/sqlgym/sqlgym"
)

// ErrClosed is wrapped by the InfraError a closed engine returns.
var ErrClosed = errors.New("sqlite engine is closed")

// Primary result codes that classify uses (sqlite3.h).
const (
	codeInternal = 2
	codePerm     = 3
	codeBusy     = 5
	codeLocked   = 6
	codeReadOnly = 8
	codeIOErr    = 10
	codeCorrupt  = 11
	codeFull     = 13
	codeCantOpen = 14
	codeProtocol = 15
	codeMismatch = 20
	codeMisuse   = 21
	codeAuth     = 23
	codeNotADB   = 26
)

// classify turns an error SQLite reported for a statement into the
// sqlgym error it means. Interrupts are handled by the caller, which
// knows why it interrupted; out of memory is returned as is, for the
// caller to re-run the statement alone (heap.go).
func classify(err error) error {
	if errors.Is(err, errNoMem) {
		return err
	}
	var se *sqliteError
	if !errors.As(err, &se) {
		return &sqlgym.ExecError{Kind: sqlgym.ErrKindOther, Msg: err.Error(), Err: err}
	}
	switch se.primary() {
	case codeCantOpen, codeNotADB, codeCorrupt, codeIOErr, codeFull,
		codeProtocol, codeMisuse, codeInternal, codeBusy, codeLocked:
		// The file or the connection is at fault, never the SQL.
		return &sqlgym.InfraError{Err: fmt.Errorf("sqlite: %w", err)}
	case codeAuth, codeReadOnly, codePerm:
		return &sqlgym.ExecError{Kind: sqlgym.ErrKindForbidden, Msg: se.msg, Err: err}
	case codeMismatch:
		return &sqlgym.ExecError{Kind: sqlgym.ErrKindType, Msg: se.msg, Err: err}
	}
	return &sqlgym.ExecError{Kind: kindOf(se.msg), Msg: se.msg, Err: err}
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
