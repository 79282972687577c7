package failure

import (
	"errors"
	"strings"

	"github.com/sqlgym/sqlgym"
)

// fromError classifies a candidate's own failure. The engines already
// sort their errors into sqlgym.ErrorKind; the taxonomy splits two of
// those further by the engine's wording, which is the only place the
// difference is told: a missing function (SQLite and DuckDB report it as
// "other", PostgreSQL's SQLSTATE 42883 as a type error) and an ambiguous
// column (SQLite "other", DuckDB a binder error, PostgreSQL 42702).
func fromError(d sqlgym.Dialect, err error) Failure {
	switch {
	case errors.Is(err, sqlgym.ErrTooLarge):
		return Failure{Class: TooLarge, Detail: err.Error()}
	case errors.Is(err, sqlgym.ErrTimeout):
		return Failure{Class: Timeout, Detail: err.Error()}
	}
	var ee *sqlgym.ExecError
	if !errors.As(err, &ee) {
		return Failure{Class: OtherError, Detail: err.Error()}
	}
	msg := ee.Msg
	if c, ok := byMessage(d, msg); ok {
		return Failure{Class: c, Detail: msg}
	}
	switch ee.Kind {
	case sqlgym.ErrKindSyntax, sqlgym.ErrKindMulti:
		return Failure{Class: Syntax, Detail: msg}
	case sqlgym.ErrKindNoTable:
		return Failure{Class: MissingTable, Detail: msg}
	case sqlgym.ErrKindNoColumn:
		return Failure{Class: MissingColumn, Detail: msg}
	case sqlgym.ErrKindType:
		return Failure{Class: TypeError, Detail: msg}
	case sqlgym.ErrKindForbidden:
		return Failure{Class: Forbidden, Detail: msg}
	}
	return Failure{Class: OtherError, Detail: msg}
}

// byMessage finds the classes the engines' kinds do not separate, in each
// engine's own wording (pinned by tests against the real engines).
func byMessage(d sqlgym.Dialect, msg string) (Class, bool) {
	switch d {
	case sqlgym.DialectSQLite:
		switch {
		case strings.HasPrefix(msg, "no such function"):
			return MissingFunction, true
		case strings.HasPrefix(msg, "ambiguous column name"):
			return AmbiguousColumn, true
		case strings.Contains(msg, "wrong number of arguments to function"),
			strings.Contains(msg, "misuse of aggregate"):
			return TypeError, true
		}
	case sqlgym.DialectDuckDB:
		switch {
		case strings.Contains(msg, "Function with name") && strings.Contains(msg, "does not exist"):
			return MissingFunction, true
		case strings.Contains(msg, "Ambiguous reference to column"):
			return AmbiguousColumn, true
		}
	case sqlgym.DialectMySQL:
		switch {
		// "Error 1305: FUNCTION db.strftime does not exist" (a name the
		// server took for a stored function); "Error 1052: Column 'id'
		// in field list is ambiguous".
		// The reader account may execute no stored routine, and the
		// server checks that before whether the routine exists (1370,
		// "execute command denied ... for routine"): to the model, any
		// name it called that way is a function this database lacks.
		case strings.HasPrefix(msg, "Error 1305:"),
			strings.HasPrefix(msg, "Error 1370:") && strings.Contains(msg, "for routine"):
			return MissingFunction, true
		case strings.HasPrefix(msg, "Error 1052:"):
			return AmbiguousColumn, true
		case strings.HasPrefix(msg, "Error 1582:"), strings.HasPrefix(msg, "Error 1111:"):
			return TypeError, true
		}
	case sqlgym.DialectPostgres:
		switch {
		// "function strftime(unknown, date) does not exist": PostgreSQL
		// says the same for a name it has with other argument types;
		// either way the model called a function this engine lacks.
		case strings.HasPrefix(msg, "function ") && strings.HasSuffix(msg, "does not exist"):
			return MissingFunction, true
		case strings.HasPrefix(msg, "column reference") && strings.HasSuffix(msg, "is ambiguous"):
			return AmbiguousColumn, true
		}
	}
	return "", false
}
