package model

import (
	"errors"

	"github.com/sqlgym/sqlgym"
)

// ErrNUnsupported is wrapped by the error of a request with N > 1 that the
// server refused because it makes one choice per request (llama.cpp answers
// "Only one completion choice is allowed"). Sample handles it itself.
var ErrNUnsupported = errors.New("the server makes one choice per request")

// Error is a failed call to the model server. Infra tells an infrastructure
// failure (the server unreachable, overloaded or failing after every retry)
// from a request the server refused; neither is the model's answer, and an
// infra failure must never be scored as the model's mistake.
type Error struct {
	URL string
	// Status is the HTTP status of the last attempt; 0 when none arrived.
	Status int
	// Message is what the server or the transport said, made readable.
	Message  string
	Hint     string
	Attempts int
	Infra    bool
	Err      error

	text string
}

func (e *Error) Error() string { return e.text }

// Unwrap exposes the cause and, when there is a hint, a *sqlgym.UserError
// so the CLI prints the hint like any other user-facing error.
func (e *Error) Unwrap() []error {
	var errs []error
	if e.Err != nil {
		errs = append(errs, e.Err)
	}
	if e.Hint != "" {
		errs = append(errs, &sqlgym.UserError{Msg: e.text, Hint: e.Hint})
	}
	return errs
}

// IsInfra reports whether err is a model-server infrastructure failure that
// outlived the retries. A caller records such a sample as an infra error
// and retries it later; it is never the model's fault.
func IsInfra(err error) bool {
	var me *Error
	return errors.As(err, &me) && me.Infra
}
