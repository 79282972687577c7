package cmdkit

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/internal/jsonl"
	"github.com/sqlgym/sqlgym/model"
)

// Exit codes beyond ExitOK, ExitError and ExitUsage (root.go). 3 and 130
// follow restic and the GitHub CLI, 11 restic's "failed to lock": a script
// can tell "run it again", "someone else is at it" and "the user stopped
// it" from a failure. exitCodes documents them all.
const (
	// ExitIncomplete: eval, author or round stopped with work left that
	// running the same command again can do (a model server that went
	// away or failed past its retries, samples missing).
	ExitIncomplete = 3
	// ExitCriterion: a pre-registered --criterion was not met.
	ExitCriterion = 4
	// ExitLocked: another sqlgym process holds the run's lock.
	ExitLocked = 11
	// ExitInterrupted: Ctrl-C (SIGINT) or SIGTERM stopped the command.
	ExitInterrupted = 130
)

// exitCodeDoc is one row of the exit-code table.
type exitCodeDoc struct {
	Code    int
	Name    string
	Meaning string
}

// ExitCodes is the one table of exit codes: `sqlgym --help` prints it and
// a test holds README.md's table to it.
var ExitCodes = []exitCodeDoc{
	{ExitOK, "ok", ""},
	{ExitError, "error", "the message says what is wrong, a `hint:` line how to fix it"},
	{ExitUsage, "wrong usage", "an unknown command or flag, a wrong number of arguments, a required flag left out, a flag's value refused"},
	{ExitIncomplete, "incomplete", "`eval`, `author` or `round` stopped with work left (the model server went away or failed past its retries); run the same command again (`author --resume`)"},
	{ExitCriterion, "criterion not met", "`compare --criterion`: the bar was not met, or met by the estimate without a proven gain; the comparison is printed and recorded first"},
	{ExitLocked, "locked by another run", "another sqlgym process is writing the same run folder, task file or rounds folder; wait for it, or choose another `--out`"},
	{ExitInterrupted, "interrupted", "Ctrl-C (SIGINT) or SIGTERM; what was written so far is kept"},
}

// ExitCodesHelp is the table as `sqlgym --help` prints it.
func ExitCodesHelp() string {
	var b strings.Builder
	b.WriteString("Exit codes:")
	for _, c := range ExitCodes {
		fmt.Fprintf(&b, "\n  %-4d %s", c.Code, c.Name)
		if c.Meaning != "" {
			b.WriteString(": " + strings.ReplaceAll(c.Meaning, "`", ""))
		}
	}
	return b.String()
}

// incompleteError marks a run that stopped with work left which running
// the same command again continues (exit code 3).
type incompleteError struct{ err error }

func (e incompleteError) Error() string { return e.err.Error() }
func (e incompleteError) Unwrap() error { return e.err }

// Incomplete marks err as "incomplete, run again"; nil stays nil.
func Incomplete(err error) error {
	if err == nil {
		return nil
	}
	return incompleteError{err}
}

// ranError is an error a command's own run function returned. Everything
// cobra returns without one (a flag it cannot parse, an unknown command, a
// wrong number of arguments, a required flag left out, a flag group broken)
// is an error in how sqlgym was called: cobra gives those no type, so the
// type is given to the other side instead, and no message is read for words.
type ranError struct{ err error }

func (e ranError) Error() string { return e.err.Error() }
func (e ranError) Unwrap() error { return e.err }

// MarkRuns wraps the run function of c and of every command below it so
// their errors are ranErrors.
func MarkRuns(c *cobra.Command) {
	if run := c.RunE; run != nil {
		c.RunE = func(cmd *cobra.Command, args []string) error {
			if err := run(cmd, args); err != nil {
				return ranError{err}
			}
			return nil
		}
	}
	for _, sub := range c.Commands() {
		MarkRuns(sub)
	}
}

// exitCode chooses the process's exit code for err from its types. ctx is
// the context the command ran under, cancelled by SIGINT or SIGTERM.
func exitCode(ctx context.Context, err error) int {
	var us usageError
	var ran ranError
	var inc incompleteError
	var crit *CriterionError
	var locked *jsonl.LockedError
	switch {
	case err == nil:
		return ExitOK
	case errors.As(err, &us), !errors.As(err, &ran):
		return ExitUsage
	case ctx.Err() != nil:
		return ExitInterrupted
	case errors.As(err, &inc), errors.Is(err, model.ErrServerGone):
		return ExitIncomplete
	case errors.As(err, &crit):
		return ExitCriterion
	case errors.As(err, &locked):
		return ExitLocked
	}
	return ExitError
}

// reportError prints err (its whole chain, then the hint of the first
// UserError in it) and returns the exit code.
func reportError(ctx context.Context, w io.Writer, program string, err error) int {
	code := exitCode(ctx, err)
	msg := err.Error()
	if code == ExitInterrupted {
		// The signal reached the command as a cancelled context, whose
		// Go text ("context canceled") says nothing to a user.
		msg = strings.ReplaceAll(msg, context.Canceled.Error(), "stopped by Ctrl-C or SIGTERM")
	}
	fmt.Fprintf(w, "error: %s\n", msg)
	var ue *sqlgym.UserError
	switch {
	case code == ExitUsage:
		fmt.Fprintf(w, "Run '%s --help' or add --help to the command for usage.\n", program)
	case errors.As(err, &ue) && ue.Hint != "":
		fmt.Fprintf(w, "hint: %s\n", ue.Hint)
	case code == ExitInterrupted:
		fmt.Fprintln(w, "interrupted: what was written so far is kept; run the same command again to go on")
	}
	return code
}
