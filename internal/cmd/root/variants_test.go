package root

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/engine/sqlite"

	"github.com/sqlgym/sqlgym/internal/cmd/cmdkit"
)

// variantsToy writes a SQLite file whose rows hide the boundary of its
// task's comparison: no order costs exactly 40.
func variantsToy(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "toy.sqlite")
	stmts := []string{`CREATE TABLE orders (order_id INTEGER NOT NULL PRIMARY KEY, amount INTEGER NOT NULL, status VARCHAR(10) NOT NULL)`}
	for i := 1; i <= 30; i++ {
		stmts = append(stmts, fmt.Sprintf("INSERT INTO orders VALUES (%d, %d, '%s')", i, 3*i, []string{"paid", "open"}[i%2]))
	}
	if err := sqlite.Create(context.Background(), path, stmts); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestVariantsCommand(t *testing.T) {
	t.Setenv("SQLGYM_CACHE", t.TempDir())
	db := variantsToy(t)
	tasks := writeFile(t, "tasks.jsonl",
		`{"id":"big","db":"toy","question":"How many orders cost more than 40?","sql":"SELECT COUNT(*) FROM orders WHERE amount > 40"}`+"\n")
	out := filepath.Join(t.TempDir(), "v")
	args := []string{"variants", "--tasks", tasks, "--db", "toy=sqlite:" + db, "--out", out, "--max-variants", "2", "--candidates", "3"}
	code, stdout, errOut := run(t, args...)
	if code != cmdkit.ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(stdout, "weak 1 of 1 screened tasks (100.0%) before, 0 (0.0%)") {
		t.Errorf("report:\n%s", stdout)
	}
	// The report ends with what a person needs next: the tasks still
	// weak, what judging on the variants costs, the command to run.
	for _, want := range []string{"still weak: none", "judging cost: 16 answers (a GRPO batch", "statements; wall time over 2 alternated rounds",
		"next: sqlgym verify --tasks " + filepath.Join(out, "tasks.jsonl") + " --db toy=sqlite:" + db + " --variants --predictions PREDICTIONS.jsonl"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("report lacks %q:\n%s", want, stdout)
		}
	}
	if strings.Contains(errOut, "surviving mutants") || strings.Contains(errOut, "variant try") {
		t.Errorf("the generator's traces on stderr without --verbose:\n%s", errOut)
	}
	if !strings.Contains(errOut, "variants: 1/1 databases, 1/1 tasks done") || !strings.Contains(errOut, "toy (1 tasks): done in") {
		t.Errorf("no progress line on stderr:\n%s", errOut)
	}
	for _, f := range []string{"toy/toy.sqlite", "toy/toy_v1.sqlite", "tasks.jsonl", "manifest.json", "report.md"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("missing %s: %v", f, err)
		}
	}
	// The original beside the variants is a hard link, not a copy: no
	// second file of the original's size (1 GB at 1 GB).
	a, errA := os.Stat(db)
	b, errB := os.Stat(filepath.Join(out, "toy", "toy.sqlite"))
	if errA != nil || errB != nil || !os.SameFile(a, b) {
		t.Errorf("toy/toy.sqlite is not the original hard-linked (%v, %v)", errA, errB)
	}
	got, err := sqlgym.ReadTasks(filepath.Join(out, "tasks.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || len(got[0].DBVariants) == 0 || !strings.HasPrefix(got[0].DBVariants[0], "sqlite:") {
		t.Fatalf("tasks %+v: want db_variants", got)
	}
	// The mutant the original rewards is wrong once judged on the variants.
	preds := writeFile(t, "preds.jsonl", `{"task_id":"big","sql":"SELECT COUNT(*) FROM orders WHERE amount >= 40"}`+"\n")
	for _, c := range []struct {
		flags []string
		want  string
	}{{nil, `"outcome":"correct"`}, {[]string{"--variants"}, `"outcome":"wrong"`}} {
		vargs := append([]string{"verify", "--tasks", filepath.Join(out, "tasks.jsonl"), "--db", "toy=sqlite:" + db, "--predictions", preds}, c.flags...)
		code, stdout, errOut := run(t, vargs...)
		if !strings.Contains(stdout, c.want) {
			t.Errorf("verify %v: exit %d, want %s in:\n%s%s", c.flags, code, c.want, stdout, errOut)
		}
	}
	// The same command again resumes the finished folder; other settings
	// are not overwritten without being asked.
	code, _, errOut = run(t, args...)
	if code != cmdkit.ExitOK || !strings.Contains(errOut, "toy (1 tasks): resumed") {
		t.Errorf("second run: exit %d, stderr %q; want the folder resumed", code, errOut)
	}
	code, _, errOut = run(t, append(args, "--seed", "9")...)
	if code == cmdkit.ExitOK || !strings.Contains(errOut, "--replace") {
		t.Errorf("second run, another seed: exit %d, stderr %q; want a refusal naming --replace", code, errOut)
	}
	if code, _, errOut = run(t, append(args, "--seed", "9", "--replace")...); code != cmdkit.ExitOK {
		t.Errorf("--replace: exit %d: %s", code, errOut)
	}
}

// An --out that is, or holds, the folder of the databases it reads is
// refused, with --replace too: replacing it would delete them.
func TestVariantsRefusesAnOutHoldingItsInputs(t *testing.T) {
	t.Setenv("SQLGYM_CACHE", t.TempDir())
	db := variantsToy(t)
	dir := filepath.Dir(db)
	tasks := writeFile(t, "tasks.jsonl",
		`{"id":"big","db":"toy","question":"How many orders cost more than 40?","sql":"SELECT COUNT(*) FROM orders WHERE amount > 40"}`+"\n")
	for _, out := range []string{dir, filepath.Dir(dir)} {
		code, _, errOut := run(t, "variants", "--tasks", tasks, "--db", "toy=sqlite:"+db, "--out", out, "--replace")
		if code == cmdkit.ExitOK || !strings.Contains(errOut, "would overwrite an input") {
			t.Errorf("--out %s: exit %d: %s", out, code, errOut)
		}
		if _, err := os.Stat(db); err != nil {
			t.Fatalf("--out %s removed the database: %v", out, err)
		}
	}
}
