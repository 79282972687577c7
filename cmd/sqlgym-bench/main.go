// Command sqlgym-bench measures sqlgym's own speed (see docs/commands.md).
package main

import (
	"os"

	"github.com/sqlgym/sqlgym/internal/cmd/bench"
	"github.com/sqlgym/sqlgym/internal/cmd/cmdkit"
)

func main() { os.Exit(bench.Main(os.Args[1:], cmdkit.StdIO())) }
