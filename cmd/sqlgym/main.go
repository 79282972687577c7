// Command sqlgym makes a database the teacher of text-to-SQL models.
package main

import (
	"os"

	"github.com/sqlgym/sqlgym/internal/cmd/cmdkit"
	"github.com/sqlgym/sqlgym/internal/cmd/root"
)

func main() { os.Exit(root.Main(os.Args[1:], cmdkit.StdIO())) }
