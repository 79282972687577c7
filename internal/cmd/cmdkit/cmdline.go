package cmdkit

import (
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// CompareCommandLine rebuilds the command line from the parsed flags, for
// the ledger: the process's os.Args is not this command's when sqlgym runs
// in-process.
func CompareCommandLine(cmd *cobra.Command) []string {
	argv := strings.Fields(cmd.CommandPath())
	cmd.Flags().Visit(func(f *pflag.Flag) {
		v := f.Value.String()
		if sv, ok := f.Value.(pflag.SliceValue); ok {
			v = strings.Join(sv.GetSlice(), ",")
		}
		argv = append(argv, "--"+f.Name+"="+v)
	})
	return argv
}

func Dedupe(s []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range s {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}
