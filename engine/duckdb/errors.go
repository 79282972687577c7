package duckdb

import (
	"context"
	"errors"
	"strings"

	duck "github.com/duckdb/duckdb-go/v2"

	"github.com/sqlgym/sqlgym"
)

// msgMulti is the ExecError message for text holding several statements;
// the driver's own message talks about its API, not the SQL.
const msgMulti = "only one statement may run: DuckDB's parser found several in the text"

// classifyPrepare maps an error from the driver's Prepare, which also
// reports the statement count DuckDB's parser found.
func classifyPrepare(err error) error {
	var de *duck.Error
	if !errors.As(err, &de) {
		msg := err.Error()
		switch {
		case strings.Contains(msg, "multi-statement"):
			return &sqlgym.ExecError{Kind: sqlgym.ErrKindMulti, Msg: msgMulti, Err: err}
		case strings.Contains(msg, "empty query"):
			return &sqlgym.ExecError{Kind: sqlgym.ErrKindSyntax, Msg: "the text holds no SQL statement", Err: err}
		case strings.Contains(msg, "closed connection"):
			return &sqlgym.InfraError{Err: err}
		}
	}
	return classify(err)
}

// classify turns a driver error into an *sqlgym.ExecError, keeping
// DuckDB's message verbatim. Context errors pass through unchanged: the
// caller decides between a time limit and a cancellation.
func classify(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return err
	}
	var de *duck.Error
	if !errors.As(err, &de) {
		if strings.Contains(err.Error(), "closed connection") {
			return &sqlgym.InfraError{Err: err}
		}
		return &sqlgym.ExecError{Kind: sqlgym.ErrKindOther, Msg: err.Error(), Err: err}
	}
	return &sqlgym.ExecError{Kind: errorKind(de), Msg: de.Msg, Err: err}
}

// forbiddenPhrases mark a refusal by the sandbox settings, whatever error
// type DuckDB filed it under.
var forbiddenPhrases = []string{
	"read-only mode",
	"configuration has been locked",
	"disabled by configuration",
	"disabled through configuration",
	"external access",
	"Cannot access file",
	"Cannot access directory",
}

// typePhrases mark a binder error that is about types, not names.
var typePhrases = []string{
	"No function matches",
	"Could not choose a best candidate function",
	"Cannot compare values of type",
	"Cannot mix values of type",
	"cannot be cast",
	"Cannot cast",
	"Implicit cast",
}

func errorKind(de *duck.Error) sqlgym.ErrorKind {
	msg := de.Msg
	for _, p := range forbiddenPhrases {
		if strings.Contains(msg, p) {
			return sqlgym.ErrKindForbidden
		}
	}
	switch de.Type {
	case duck.ErrorTypeParser, duck.ErrorTypeSyntax:
		return sqlgym.ErrKindSyntax
	case duck.ErrorTypePermission, duck.ErrorTypeMissingExtension, duck.ErrorTypeAutoLoad:
		return sqlgym.ErrKindForbidden
	case duck.ErrorTypeConversion, duck.ErrorTypeMismatchType, duck.ErrorTypeInvalidType:
		return sqlgym.ErrKindType
	case duck.ErrorTypeCatalog:
		// "Table with name x does not exist!" also covers views; a missing
		// schema is reported the same way ("... because schema s does not
		// exist").
		if strings.Contains(msg, "Table with name") && strings.Contains(msg, "does not exist") {
			return sqlgym.ErrKindNoTable
		}
	case duck.ErrorTypeBinder:
		switch {
		case strings.Contains(msg, "Referenced column") && strings.Contains(msg, "not found"),
			strings.Contains(msg, "does not have a column named"),
			// A qualified column whose table is not in FROM: SQLite calls
			// it "no such column: x.a".
			strings.Contains(msg, "Referenced table") && strings.Contains(msg, "not found"):
			return sqlgym.ErrKindNoColumn
		}
		for _, p := range typePhrases {
			if strings.Contains(msg, p) {
				return sqlgym.ErrKindType
			}
		}
	}
	return sqlgym.ErrKindOther
}
