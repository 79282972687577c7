package round

import (
	"context"
	"fmt"
	goio "io"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/sqlgym/sqlgym/report"
	"github.com/sqlgym/sqlgym/round"

	"github.com/sqlgym/sqlgym/internal/cmd/cmdkit"
	datacmd "github.com/sqlgym/sqlgym/internal/cmd/data"
	runcmd "github.com/sqlgym/sqlgym/internal/cmd/run"
	servecmd "github.com/sqlgym/sqlgym/internal/cmd/serve"
)

// roundCommands runs a round's steps by filling each command's options
// struct and calling its run function: no argument strings in between, so
// a renamed option is a compile error, and the band's counts and the
// comparison come back as values. --dry-run prints each step's line from
// the same options (their args methods).
type roundCommands struct{ errOut goio.Writer }

// RoundCommands are the commands round runs in this process; progress and
// warnings go to errOut, and what the commands print to stdout is dropped.
func RoundCommands(errOut goio.Writer) round.Commands { return roundCommands{errOut} }

func (c roundCommands) io() cmdkit.IO {
	return cmdkit.IO{In: strings.NewReader(""), Out: goio.Discard, ErrOut: c.errOut}
}

func dbFlagsOf(d round.DBs) cmdkit.DBFlags {
	return cmdkit.DBFlags{Refs: d.Refs, DBDir: d.DBDir, PGSchema: d.PGSchema}
}

// The options of each step, from the command's defaults.

func evalStepOptions(e round.EvalStep) runcmd.EvalOptions {
	var o runcmd.EvalOptions
	runcmd.EvalCmd(cmdkit.IO{}, &o)
	o.Tasks, o.Split, o.Policy, o.BaseURLs, o.Model = e.Tasks, e.Split, "openai", []string{e.BaseURL}, e.Model
	o.APIKeyEnv, o.K, o.Temperature, o.Seed, o.SeedSet = e.APIKeyEnv, e.K, e.Temperature, e.Seed, true
	o.Mode, o.Extra, o.Out, o.DB = e.Mode, e.Extra, e.Out, dbFlagsOf(e.DBs)
	if e.MaxTokens > 0 {
		o.MaxTokens = e.MaxTokens
	}
	if e.Concurrency > 0 {
		o.Concurrency = e.Concurrency
	}
	return o
}

func bandStepOptions(b round.BandStep) datacmd.BandOptions {
	var o datacmd.BandOptions
	datacmd.BandCmd(cmdkit.IO{}, &o)
	o.Tasks, o.Out, o.Replace = b.Tasks, b.Out, true
	return o
}

func exportStepOptions(x round.ExportStep) datacmd.ExportOptions {
	var o datacmd.ExportOptions
	datacmd.ExportCmd(cmdkit.IO{}, &o)
	o.Tasks, o.Band, o.Format, o.Out, o.Replace, o.DB = x.Tasks, x.Band, x.Format, x.Out, true, dbFlagsOf(x.DBs)
	return o
}

func compareStepOptions(s round.CompareStep) runcmd.CompareOptions {
	var o runcmd.CompareOptions
	runcmd.CompareCmd(cmdkit.IO{}, &o)
	o.Base, o.Treat = s.Base, s.Treat
	return o
}

func serveStepOptions(s round.ServeStep) servecmd.ServeOptions {
	var o servecmd.ServeOptions
	servecmd.ServeCmd(cmdkit.IO{}, &o)
	o.Tasks, o.Addr, o.DB = s.Tasks, "127.0.0.1:0", dbFlagsOf(s.DBs)
	return o
}

func (c roundCommands) Eval(ctx context.Context, e round.EvalStep) error {
	o := evalStepOptions(e)
	return runcmd.RunEval(ctx, c.io(), o, evalArgs(o, evalPinned...))
}

func (c roundCommands) Band(_ context.Context, b round.BandStep) (round.BandCounts, error) {
	res, err := datacmd.Band(b.Run, bandStepOptions(b))
	return round.BandCounts{Tasks: res.Tasks, Band: res.Band}, err
}

func (c roundCommands) Export(ctx context.Context, x round.ExportStep) error {
	return datacmd.RunExport(ctx, c.io(), exportStepOptions(x))
}

func (c roundCommands) Compare(_ context.Context, s round.CompareStep) (*report.Comparison, error) {
	o := compareStepOptions(s)
	return runcmd.CompareRuns(o, compareArgs(o))
}

func (c roundCommands) Serve(ctx context.Context, s round.ServeStep, listening func(url string)) error {
	o := serveStepOptions(s)
	// --json as before: the one JSON line goes to the discarded stdout and
	// the drain notice stays off the round's stderr.
	o.JSON, o.Listening = true, listening
	return servecmd.RunServe(ctx, c.io(), o)
}

func (c roundCommands) Line(step any) []string {
	switch s := step.(type) {
	case round.EvalStep:
		return evalArgs(evalStepOptions(s), evalPinned...)
	case round.BandStep:
		return bandArgs(bandStepOptions(s), s.Run)
	case round.ExportStep:
		return exportArgs(exportStepOptions(s))
	case round.CompareStep:
		return compareArgs(compareStepOptions(s))
	case round.ServeStep:
		return serveArgs(serveStepOptions(s))
	}
	panic(fmt.Sprintf("round step %T has no command", step))
}

// evalPinned are the eval flags a round always states, defaults or not:
// its line says what the round pinned, whatever eval's defaults become.
var evalPinned = []string{"policy", "k", "temperature", "seed", "mode"}

// The args functions: the command line a user would type for the options, from
// the command's own flags (so a line always parses back to the options).

func evalArgs(o runcmd.EvalOptions, always ...string) []string {
	var bound runcmd.EvalOptions
	cmd := runcmd.EvalCmd(cmdkit.IO{}, &bound)
	bound = o
	// A seed or top_p given is part of the line even at the flag's default.
	cmd.Flags().Lookup("seed").Changed = o.SeedSet
	cmd.Flags().Lookup("top-p").Changed = o.TopPSet
	return commandLine(cmd, nil, always...)
}

func bandArgs(o datacmd.BandOptions, run string) []string {
	var bound datacmd.BandOptions
	cmd := datacmd.BandCmd(cmdkit.IO{}, &bound)
	bound = o
	return commandLine(cmd, []string{run})
}

func exportArgs(o datacmd.ExportOptions) []string {
	var bound datacmd.ExportOptions
	cmd := datacmd.ExportCmd(cmdkit.IO{}, &bound)
	bound = o
	return commandLine(cmd, nil)
}

func compareArgs(o runcmd.CompareOptions) []string {
	var bound runcmd.CompareOptions
	cmd := runcmd.CompareCmd(cmdkit.IO{}, &bound)
	bound = o
	return commandLine(cmd, nil)
}

func serveArgs(o servecmd.ServeOptions) []string {
	var bound servecmd.ServeOptions
	cmd := servecmd.ServeCmd(cmdkit.IO{}, &bound)
	bound = o
	return commandLine(cmd, nil)
}

// commandLine renders "sqlgym NAME", the positional args, then cmd's
// flags whose values differ from their defaults (or are marked changed, or
// named in always) in the order the command declares them: a repeated
// flag once per value, a true bool bare.
func commandLine(cmd *cobra.Command, positional []string, always ...string) []string {
	line := append([]string{"sqlgym", cmd.Name()}, positional...)
	fs := cmd.Flags()
	for _, name := range always {
		fs.Lookup(name).Changed = true
	}
	fs.SortFlags = false
	fs.VisitAll(func(f *pflag.Flag) {
		if sv, ok := f.Value.(pflag.SliceValue); ok {
			vals := sv.GetSlice()
			if !f.Changed && (f.Value.String() == f.DefValue || len(vals) == 0) {
				return
			}
			for _, v := range vals {
				line = append(line, "--"+f.Name, v)
			}
			return
		}
		v := f.Value.String()
		if v == f.DefValue && !f.Changed {
			return
		}
		if f.Value.Type() == "bool" && v == "true" {
			line = append(line, "--"+f.Name)
			return
		}
		line = append(line, "--"+f.Name, v)
	})
	return line
}
