package cli

import (
	"io"

	"github.com/spf13/cobra"

	"github.com/sqlgym/sqlgym/verify/compare"
)

// The pieces of the command tree that command packages outside it use
// (internal/cmd/bench, linked only into cmd/sqlgym-bench): one way to
// report a usage error, write --json, refuse an output file and read
// --mode, shared with the commands of sqlgym itself.

// Usagef is an error in how a command was called: exit code 2.
func Usagef(format string, args ...any) error { return usagef(format, args...) }

// UsageError marks err (a flag that cobra could not parse) as a usage error.
func UsageError(err error) error { return usageError{err} }

// WriteJSON writes v as the one indented JSON document of --json.
func WriteJSON(w io.Writer, v any) error { return writeJSON(w, v) }

// AddReplaceFlag adds --replace, the one way to overwrite an output file.
func AddReplaceFlag(cmd *cobra.Command, replace *bool) { addReplaceFlag(cmd, replace) }

// CheckOutput refuses to write out over a file unless replace, or over an input.
func CheckOutput(flag, out string, replace bool, inputs ...string) error {
	return checkOutput(flag, out, replace, inputs...)
}

// ParseMode reads --mode; a wrong name is a usage error listing the modes.
func ParseMode(s string) (compare.Mode, error) { return parseMode(s) }

// ModeNames lists the comparison modes for a --mode flag's help.
func ModeNames() string { return modeNames() }

// MarkRuns marks the errors of root's commands as the commands' own (exit
// 1 and the codes they choose), apart from cobra's usage errors.
func MarkRuns(root *cobra.Command) { markRuns(root) }
