package run

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/sqlgym/sqlgym"

	"github.com/sqlgym/sqlgym/internal/cmd/cmdkit"
)

const runsPruneLong = `Remove old demo runs: the run folders named demo-* that 'sqlgym demo' leaves
under the cache ($SQLGYM_CACHE/runs), or under DIR, all but the --keep newest.
It lists what it would remove and asks first; --yes skips the question (for
scripts). A run another process is writing is never removed, nor any folder
that is not a demo run. The ledger keeps its lines: it is never rewritten.`

func newRunsPruneCmd(io cmdkit.IO) *cobra.Command {
	var opts runsOptions
	cmd := &cobra.Command{
		Use:   "prune [DIR]",
		Short: "Remove old demo runs, asking first",
		Long:  runsPruneLong,
		Example: `  sqlgym runs prune            # keep the 3 newest demo runs under the cache
  sqlgym runs prune --keep 0 --yes
  sqlgym runs prune runs/ --keep 1`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runRunsPrune(io, opts, args)
		},
	}
	cmd.Flags().IntVar(&opts.Keep, "keep", 3, "demo runs to keep, the newest")
	cmd.Flags().BoolVar(&opts.Yes, "yes", false, "remove without asking")
	return cmd
}

func runRunsPrune(io cmdkit.IO, opts runsOptions, args []string) error {
	if opts.Keep < 0 {
		return cmdkit.Usagef("--keep %d: 0 or more", opts.Keep)
	}
	dir := ""
	if len(args) == 1 {
		dir = args[0]
	} else {
		d, err := demoRunsDir()
		if err != nil {
			return err
		}
		dir = d
	}
	if _, err := os.Stat(dir); os.IsNotExist(err) {
		fmt.Fprintf(io.ErrOut, "no demo runs: %s does not exist\n", dir)
		return nil
	}
	rows, err := listRuns(dir)
	if err != nil {
		return err
	}
	var demos []RunRow
	for _, r := range rows {
		if strings.HasPrefix(r.ID, "demo-") && filepath.Dir(r.Dir) == absOr(dir) && r.Status != runRunning {
			demos = append(demos, r)
		}
	}
	// rows are oldest first: all but the last Keep go.
	if len(demos) <= opts.Keep {
		fmt.Fprintf(io.ErrOut, "nothing to remove: %d demo runs in %s, --keep %d\n", len(demos), dir, opts.Keep)
		return nil
	}
	gone := demos[:len(demos)-opts.Keep]
	for _, r := range gone {
		fmt.Fprintf(io.ErrOut, "  %s  %s  %s\n", r.ID, r.Started.Local().Format("2006-01-02 15:04"), r.Status)
	}
	if !opts.Yes && !confirm(io, fmt.Sprintf("Remove these %d demo runs from %s? [y/N] ", len(gone), dir)) {
		return sqlgym.Userf("answer y to remove them, or pass --yes", "nothing removed")
	}
	for _, r := range gone {
		if err := os.RemoveAll(r.Dir); err != nil {
			return fmt.Errorf("remove %s: %w", r.Dir, err)
		}
	}
	fmt.Fprintf(io.Out, "removed %d demo runs, kept %d\n", len(gone), opts.Keep)
	return nil
}

// confirm asks question on stderr and reads a yes from stdin; anything
// else, end of input included, is a no.
func confirm(io cmdkit.IO, question string) bool {
	fmt.Fprint(io.ErrOut, question)
	line, _ := bufio.NewReader(io.In).ReadString('\n')
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return true
	}
	return false
}

func absOr(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}
