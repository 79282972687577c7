package cmdkit

import (
	"fmt"
	"io"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/verify"
)

// PrintBroken writes the compact list of broken golds (first few, then
// "and M more"); nothing when there are none.
func PrintBroken(w io.Writer, broken []verify.BrokenGold) {
	if b := verify.FormatBroken(broken); b != "" {
		fmt.Fprint(w, b)
	}
}

// NothingScored is the error of a run in which no task could be scored,
// so that it does not exit 0: every gold failed, the database was away,
// or nothing was left to judge. what names the run ("verify", "screen").
func NothingScored(what string, goldErrors, infraErrors int, broken []verify.BrokenGold) error {
	switch {
	case goldErrors > 0 && infraErrors == 0:
		first := ""
		if len(broken) > 0 {
			first = fmt.Sprintf(" (the first: %s: %s)", broken[0].TaskID, broken[0].Error)
		}
		return sqlgym.Userf("check that --db/--db-dir name the databases the tasks were written for, and --pg-schema on PostgreSQL; "+
			"'sqlgym db schema NAME' shows what a database holds",
			"%s scored nothing: every gold failed on its database%s", what, first)
	case infraErrors > 0:
		return Incomplete(sqlgym.Userf("is the database server running? Run the same command again when it is back",
			"%s scored nothing: the database was unavailable for %d answers", what, infraErrors))
	}
	return sqlgym.Userf("check the inputs: every answer came back unscored (truncated replies, or nothing to judge)",
		"%s scored nothing", what)
}
