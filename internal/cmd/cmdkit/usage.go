package cmdkit

import (
	"fmt"
)

// usageError marks an error in how a command was called (exit code 2).
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }

func (e usageError) Unwrap() error { return e.err }

func Usagef(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

// UsageError marks err (a flag that cobra could not parse) as a usage error.
func UsageError(err error) error { return usageError{err} }
