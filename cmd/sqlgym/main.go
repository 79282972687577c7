// Command sqlgym makes a database the teacher of text-to-SQL models.
package main

import (
	"os"

	"github.com/sqlgym/sqlgym/internal/cli"
)

func main() { os.Exit(cli.Main(os.Args[1:], cli.StdIO())) }
