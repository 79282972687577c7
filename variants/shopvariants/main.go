// Command shopvariants regenerates shopdb/variants.json, the built-in
// shop's shipped variant databases, with the recorded seed and options
// (variants.ShopVariantSet). Run it through go generate ./shopdb; it
// takes a few minutes.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/sqlgym/sqlgym/engine/duckdb"
	"github.com/sqlgym/sqlgym/internal/atomicfile"
	"github.com/sqlgym/sqlgym/variants"
)

func main() {
	duckdb.MaybeServeWorker() // the DuckDB engine re-executes this binary for its workers
	out := flag.String("out", "variants.json", "file to write")
	flag.Parse()
	log := func(format string, args ...any) { fmt.Fprintf(os.Stderr, format+"\n", args...) }
	data, err := variants.ShopVariantSet(context.Background(), log)
	if err == nil {
		err = atomicfile.WriteFile(*out, data)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "shopvariants:", err)
		os.Exit(1)
	}
}
