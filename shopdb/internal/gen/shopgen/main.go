// Command shopgen writes shop.sql, the shop database's SQL text, for
// `go generate ./shopdb`.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/sqlgym/sqlgym/shopdb/internal/gen"
)

func main() {
	out := flag.String("o", "shop.sql", "file to write")
	flag.Parse()
	if err := os.WriteFile(*out, gen.SQL(), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "shopgen:", err)
		os.Exit(1)
	}
}
