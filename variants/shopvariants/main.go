// Command shopvariants regenerates shopdb/variants.json, the built-in
// shop's shipped variant databases, with the recorded seed and options
// (variants.ShopVariantSet). Run it through go generate ./shopdb; it
// takes a few minutes. -lists-only keeps the shipped variants and
// computes only each task's list (variants.ShopTaskLists); -cpuprofile
// writes a CPU profile of the generation.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"runtime/pprof"

	"github.com/sqlgym/sqlgym/engine/duckdb"
	"github.com/sqlgym/sqlgym/internal/atomicfile"
	"github.com/sqlgym/sqlgym/variants"
)

func main() {
	duckdb.MaybeServeWorker() // the DuckDB engine re-executes this binary for its workers
	out := flag.String("out", "variants.json", "file to write")
	listsOnly := flag.Bool("lists-only", false, "keep the shipped variants and compute only each task's list (variants.ShopTaskLists): minutes, not a generation")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the generation to this file (to find what it spends its time on)")
	flag.Parse()
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "shopvariants: -cpuprofile:", err)
			os.Exit(1)
		}
		defer pprof.StopCPUProfile()
	}
	log := func(format string, args ...any) { fmt.Fprintf(os.Stderr, format+"\n", args...) }
	var data []byte
	var err error
	if *listsOnly {
		data, err = variants.ShopVariantSetRelisted(context.Background())
	} else {
		data, err = variants.ShopVariantSet(context.Background(), log)
	}
	if err == nil {
		err = atomicfile.WriteFile(*out, data)
	}
	if err != nil {
		pprof.StopCPUProfile()
		fmt.Fprintln(os.Stderr, "shopvariants:", err)
		os.Exit(1)
	}
}
