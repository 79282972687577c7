// Command sqlgym-bench measures sqlgym's own speed (see docs/commands.md).
package main

import (
	"os"

	"github.com/sqlgym/sqlgym/internal/cli"
	"github.com/sqlgym/sqlgym/internal/cmd/bench"
)

func main() { os.Exit(bench.Main(os.Args[1:], cli.StdIO())) }
