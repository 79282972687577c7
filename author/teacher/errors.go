package teacher

import (
	"errors"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/model"
)

// Error is a failed call to a teacher's server. Infra marks a server that
// stayed unavailable through every retry (never the model's fault); a
// request the server refused has Infra false and a Hint.
type Error struct {
	Provider string
	URL      string
	Status   int
	Attempts int
	Infra    bool
	Msg      string
	Hint     string
	Err      error
}

func (e *Error) Error() string { return e.Msg }

// Unwrap exposes the cause and, with a hint, a *sqlgym.UserError so the
// CLI prints the hint.
func (e *Error) Unwrap() []error {
	errs := []error{e.Err}
	if e.Hint != "" {
		errs = append(errs, &sqlgym.UserError{Msg: e.Msg, Hint: e.Hint})
	}
	return errs
}

// IsInfra reports whether err is a teacher server's infrastructure
// failure, from either provider.
func IsInfra(err error) bool {
	var te *Error
	if errors.As(err, &te) {
		return te.Infra
	}
	return model.IsInfra(err)
}
