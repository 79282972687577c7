package sqlgym

import (
	"errors"
	"fmt"
)

// ErrorKind classifies an error the database reported for a statement.
type ErrorKind string

const (
	ErrKindSyntax    ErrorKind = "syntax"
	ErrKindNoTable   ErrorKind = "no_such_table"
	ErrKindNoColumn  ErrorKind = "no_such_column"
	ErrKindType      ErrorKind = "type"
	ErrKindForbidden ErrorKind = "forbidden" // the sandbox refused it: a write, DDL, a file or network access
	ErrKindMulti     ErrorKind = "multiple_statements"
	ErrKindOther     ErrorKind = "other"
)

// ExecError is a statement's own failure: the SQL is at fault.
type ExecError struct {
	Kind ErrorKind
	Msg  string // the engine's message, verbatim where possible
	Err  error
}

func (e *ExecError) Error() string { return string(e.Kind) + ": " + e.Msg }
func (e *ExecError) Unwrap() error { return e.Err }

// ErrTimeout and ErrTooLarge are wrapped by engines' errors for a statement
// stopped by a time or step limit and for a result past the caps.
var (
	ErrTimeout  = errors.New("statement stopped: time limit reached")
	ErrTooLarge = errors.New("result too large")
	// ErrStepBudget is wrapped (with ErrTimeout) when SQLite's
	// deterministic step budget stopped a statement.
	ErrStepBudget = errors.New("virtual-machine step budget spent")
	// ErrCPUCap is wrapped (with ErrTimeout) when a SQLite statement
	// spent the thread CPU its step budget allows (engine/sqlite's
	// CPUPerStep per step) on work the budget does not count: the
	// model's doing, like a spent budget.
	ErrCPUCap = errors.New("CPU cap of the step budget spent on work the budget does not count")
	// ErrSafetyNet is wrapped by the *InfraError a SQLite statement gets
	// when the wall-clock safety net, not its step budget, stopped it.
	ErrSafetyNet = errors.New("stopped by the wall-clock safety net before its step budget was spent: the machine is too busy")
)

// InfraError means the database could not be used (unreachable, closed,
// out of connections): never the SQL's fault, never scored.
type InfraError struct{ Err error }

func (e *InfraError) Error() string { return "database unavailable: " + e.Err.Error() }
func (e *InfraError) Unwrap() error { return e.Err }

// IsInfra reports whether err is, or wraps, an *InfraError.
func IsInfra(err error) bool {
	var ie *InfraError
	return errors.As(err, &ie)
}

// UserError is an error meant for a person running sqlgym: it says what is
// wrong and Hint says how to fix it. The CLI prints the whole error chain,
// then the hint. Err is the cause, kept so errors.Is and errors.As see
// through a UserError (a missing file is still fs.ErrNotExist).
type UserError struct {
	Msg  string
	Hint string
	Err  error
}

// Error is Msg, which holds the cause's text when Userf built it from a %w;
// a UserError with only a cause reads as the cause.
func (e *UserError) Error() string {
	if e.Msg == "" && e.Err != nil {
		return e.Err.Error()
	}
	return e.Msg
}

// Unwrap is the cause.
func (e *UserError) Unwrap() error { return e.Err }

// Userf builds a UserError with a hint. A %w verb in format keeps its
// operand as the cause, as fmt.Errorf does.
func Userf(hint, format string, args ...any) error {
	err := fmt.Errorf(format, args...)
	return &UserError{Msg: err.Error(), Hint: hint, Err: errors.Unwrap(err)}
}
