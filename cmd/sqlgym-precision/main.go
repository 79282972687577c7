// Command sqlgym-precision measures the precision of variant databases on
// a corpus of published model answers: how many of the answers variants
// flip from right to wrong are wrong indeed. It is a measuring tool for
// the project, kept out of the sqlgym binary; docs/authoring.md
// ("Precision on real answers") shows the whole procedure.
//
//	sqlgym-precision build --corpus DIR --dev ../shared/data/spider_dev/dev.jsonl --out corpus.jsonl
//	sqlgym-precision locate --flips todo.jsonl --tasks V/tasks.jsonl [--out located.jsonl]
//	sqlgym-precision assign --tasks V/tasks.jsonl --out tasks.jsonl [--all]
//	sqlgym-precision report --predictions corpus.jsonl --base R0.jsonl --variants R1.jsonl --generator main@d2bd839 --copy plain [--sample 100 --seed 1] [--unjudged todo.jsonl]
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/engine"
	"github.com/sqlgym/sqlgym/engine/duckdb"
	"github.com/sqlgym/sqlgym/variants/precision"
)

const defaultManifest = "variants/precision/testdata/manifest.json"
const defaultJudgments = "variants/precision/testdata/judged_flips.jsonl"

func main() {
	duckdb.MaybeServeWorker() // the DuckDB engine re-executes this binary for its workers
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		if errors.Is(err, errUsage) {
			os.Exit(2)
		}
		os.Exit(1)
	}
}

var errUsage = errors.New("usage: sqlgym-precision build|report|locate|assign [flags] (-h for the flags)")

func run(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return errUsage
	}
	switch args[0] {
	case "build":
		return build(args[1:], stdout, stderr)
	case "report":
		return report(args[1:], stdout, stderr)
	case "locate":
		return locate(args[1:], stdout, stderr)
	case "assign":
		return assign(args[1:], stdout, stderr)
	}
	return errUsage
}

func build(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("build", flag.ContinueOnError)
	fs.SetOutput(stderr)
	corpus := fs.String("corpus", os.Getenv("SQLGYM_CORPUS_DIR"), "folder with a checkout of each source repository at OWNER/NAME (default $SQLGYM_CORPUS_DIR)")
	manifest := fs.String("manifest", defaultManifest, "corpus manifest (JSON)")
	dev := fs.String("dev", "../shared/data/spider_dev/dev.jsonl", "the questions the answers map onto (dev.jsonl)")
	out := fs.String("out", "", "predictions JSONL to write")
	replace := fs.Bool("replace", false, "overwrite --out if it exists")
	if err := fs.Parse(args); err != nil {
		return errUsage
	}
	if *corpus == "" || *out == "" {
		return fmt.Errorf("%w: build needs --corpus (or SQLGYM_CORPUS_DIR) and --out", errUsage)
	}
	m, err := precision.LoadManifest(*manifest)
	if err != nil {
		return fmt.Errorf("%w\nhint: run from the repository's root, or name the manifest with --manifest", err)
	}
	qs, err := precision.LoadQuestions(*dev)
	if err != nil {
		return err
	}
	preds, stats, err := precision.Build(*corpus, m, qs)
	if err != nil {
		return err
	}
	if err := precision.WriteJSONL(*out, preds, *replace); err != nil {
		return err
	}
	for _, s := range stats {
		fmt.Fprintf(stdout, "%-18s kept %4d, question worded otherwise %3d, empty %d\n", s.System, s.Kept, s.QuestionDiffers, s.Empty)
	}
	_, err = fmt.Fprintf(stdout, "%d answers of %d systems -> %s\n", len(preds), len(stats), *out)
	return err
}

func report(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	fs.SetOutput(stderr)
	predsPath := fs.String("predictions", "", "the corpus predictions (build's output)")
	basePath := fs.String("base", "", "sqlgym verify --out of the predictions on the original databases")
	varPath := fs.String("variants", "", "sqlgym verify --out of the same predictions with --variants")
	judgPath := fs.String("judgments", defaultJudgments, "judged flips (JSONL)")
	generator := fs.String("generator", "", "the generator that made the variants, as the judgments name it (e.g. main@d2bd839)")
	baseline := fs.String("baseline", "", "an earlier generator: report how many of the answers judged wrong among its flips this run still flips")
	copyName := fs.String("copy", "", "the database copy the variants were made from, as the judgments name it (plain, keyed)")
	sample := fs.Int("sample", 0, "judge precision on a seeded uniform sample of this many flips (0: all flips)")
	seed := fs.Uint64("seed", 1, "seed of --sample")
	unjudged := fs.String("unjudged", "", "write the flips still to judge here (JSONL)")
	replace := fs.Bool("replace", false, "overwrite --unjudged if it exists")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	sampleOf := fs.String("sample-of", "", "draw --sample over the flips of this other --variants run of the same answers (every variant of this run among its own) and examine those this run still flips")
	suspectsFrom := fs.String("suspects-from", "", "comma-separated systems whose answers decide the gold suspects; the screen's precision is measured on the other systems")
	if err := fs.Parse(args); err != nil {
		return errUsage
	}
	var from []string
	if *suspectsFrom != "" {
		from = strings.Split(*suspectsFrom, ",")
	}
	if *predsPath == "" || *basePath == "" || *varPath == "" || *copyName == "" || *generator == "" {
		return fmt.Errorf("%w: report needs --predictions, --base, --variants, --generator and --copy", errUsage)
	}
	preds, err := precision.LoadPredictions(*predsPath)
	if err != nil {
		return err
	}
	base, err := precision.LoadResults(*basePath)
	if err != nil {
		return err
	}
	withV, err := precision.LoadResults(*varPath)
	if err != nil {
		return err
	}
	judg, err := precision.LoadJudgments(*judgPath)
	if err != nil {
		return fmt.Errorf("judgments: %w\nhint: run from the repository's root, or name the file with --judgments", err)
	}
	var of precision.Results
	if *sampleOf != "" {
		if of, err = precision.LoadResults(*sampleOf); err != nil {
			return err
		}
	}
	r, err := precision.Compute(preds, base, withV, judg, precision.Options{SampleOf: of, Generator: *generator, Baseline: *baseline, DBCopy: *copyName, Sample: *sample, Seed: *seed, SuspectsFrom: from})
	if err != nil {
		return err
	}
	if *unjudged != "" {
		if err := precision.WriteJSONL(*unjudged, r.Unjudged, *replace); err != nil {
			return err
		}
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	}
	return r.WriteText(stdout)
}

// locate finds, for each flip to judge, the variant that told it from the
// gold and both results there: what a judge reads before the schema.
func locate(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("locate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	flipsPath := fs.String("flips", "", "flips to judge (report --unjudged writes them)")
	tasksPath := fs.String("tasks", "", "the variants' tasks.jsonl (with db_variants)")
	out := fs.String("out", "", "write the located flips here as JSONL instead of text on stdout")
	replace := fs.Bool("replace", false, "overwrite --out if it exists")
	if err := fs.Parse(args); err != nil {
		return errUsage
	}
	if *flipsPath == "" || *tasksPath == "" {
		return fmt.Errorf("%w: locate needs --flips and --tasks", errUsage)
	}
	flips, err := precision.LoadFlips(*flipsPath)
	if err != nil {
		return err
	}
	list, err := sqlgym.ReadTasks(*tasksPath)
	if err != nil {
		return err
	}
	tasks := map[string]sqlgym.Task{}
	for _, t := range list {
		tasks[t.ID] = t
	}
	open := func(ctx context.Context, url string) (sqlgym.Engine, error) {
		return engine.Open(ctx, url, engine.Options{})
	}
	located, err := precision.Locate(context.Background(), flips, tasks, open)
	if err != nil {
		return err
	}
	if *out != "" {
		return precision.WriteJSONL(*out, located, *replace)
	}
	for _, l := range located {
		fmt.Fprintf(stdout, "=== %s %s %s\nQ: %s\nG: %s\nA: %s\n", l.TaskID, l.System, l.SQLSHA256[:12], l.Question, l.Gold, l.SQL)
		switch {
		case l.Variant == "":
			fmt.Fprintln(stdout, "  matches on every variant here (a limit or an error of the verify run?)")
		case l.Error != "":
			fmt.Fprintf(stdout, "  %s: the answer fails: %s\n  gold: %v\n", l.Variant, l.Error, l.GoldRows)
		default:
			fmt.Fprintf(stdout, "  %s: %s\n  gold:   %v\n  answer: %v\n", l.Variant, l.Why, l.GoldRows, l.AnswerRows)
		}
	}
	return nil
}
