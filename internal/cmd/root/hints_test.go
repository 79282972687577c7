package root

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/engine"
	"github.com/sqlgym/sqlgym/engine/postgres"
	"github.com/sqlgym/sqlgym/engine/sqlite"
	"github.com/sqlgym/sqlgym/eval"
	"github.com/sqlgym/sqlgym/internal/testenv"

	"github.com/sqlgym/sqlgym/internal/cmd/cmdkit"
	runcmd "github.com/sqlgym/sqlgym/internal/cmd/run"
)

// hintOf is the hint line of stderr.
func hintOf(errOut string) string {
	for _, l := range strings.Split(errOut, "\n") {
		if h, ok := strings.CutPrefix(l, "hint: "); ok {
			return h
		}
	}
	return ""
}

// Each hint of issue 26 point 10 points the right way.
func TestHintsPointTheRightWay(t *testing.T) {
	t.Setenv("SQLGYM_CACHE", t.TempDir())
	dir := t.TempDir()
	for _, c := range []struct {
		name     string
		args     []string
		want     []string // in stderr
		wantHint string
		notHint  string
	}{
		{"scheme typo", []string{"db", "schema", "car", "--db", "car=sqlite3:" + filepath.Join(dir, "car_1.sqlite")},
			[]string{`unknown scheme "sqlite3:"`}, "write sqlite:PATH", "db create shop"},
		{"missing file", []string{"db", "schema", "car", "--db", "car=sqlite:" + filepath.Join(dir, "car_1.sqlite")},
			[]string{"does not exist"}, "check the path", "db create shop"},
		{"URL without a name", []string{"db", "schema", "car", "--db", "sqlite:" + filepath.Join(dir, "car_1.sqlite")},
			[]string{"a database URL needs a name"}, "--db NAME=sqlite:", "unknown database"},
	} {
		code, _, errOut := run(t, c.args...)
		h := hintOf(errOut)
		for _, w := range c.want {
			if !strings.Contains(errOut, w) {
				t.Errorf("%s: stderr lacks %q:\n%s", c.name, w, errOut)
			}
		}
		if code == cmdkit.ExitOK || !strings.Contains(h, c.wantHint) || strings.Contains(h, c.notHint) {
			t.Errorf("%s: exit %d, hint %q: want %q, not %q", c.name, code, h, c.wantHint, c.notHint)
		}
	}
}

// author on a database with no tables says so and leaves no --out file
// (it said "ask for fewer tasks" and left an empty file).
func TestAuthorOnAnEmptyDatabase(t *testing.T) {
	t.Setenv("SQLGYM_CACHE", t.TempDir())
	db := filepath.Join(t.TempDir(), "empty.sqlite")
	if err := sqlite.Create(context.Background(), db, []string{"CREATE TABLE t (x INTEGER)", "DROP TABLE t"}); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "tasks.jsonl")
	code, _, errOut := run(t, "author", "--db", "empty=sqlite:"+db, "--n", "5", "--out", out)
	if code == cmdkit.ExitOK || strings.Contains(errOut, "fewer tasks") || !strings.Contains(errOut, "no tables") {
		t.Errorf("exit %d, stderr:\n%s", code, errOut)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a failed author left %s: %v", out, err)
	}
}

// author --out on a split file is not an interrupted author run: no
// --resume suggested.
func TestAuthorOutOnASplitFile(t *testing.T) {
	t.Setenv("SQLGYM_CACHE", t.TempDir())
	split := shopTasksN(t, 3, 2)
	code, _, errOut := run(t, "author", "--db", "shop", "--n", "5", "--out", split)
	if code == cmdkit.ExitOK || strings.Contains(hintOf(errOut), "--resume to continue") || !strings.Contains(errOut, "marked with splits") {
		t.Errorf("exit %d, stderr:\n%s", code, errOut)
	}
}

// eval --out on another command's folder (variants') is refused as not a
// run, not read as a run of another configuration.
func TestEvalOutOnAVariantsFolder(t *testing.T) {
	out := t.TempDir()
	if err := os.WriteFile(filepath.Join(out, "manifest.json"), []byte(`{"mode":"multiset","seed":1,"variants":[]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := run(t, "eval", "--tasks", shopTaskFile(t), "--policy", "baseline", "--k", "1", "--out", out)
	if code == cmdkit.ExitOK || !strings.Contains(errOut, "not an eval run's") || strings.Contains(errOut, "another configuration") {
		t.Errorf("exit %d, stderr:\n%s", code, errOut)
	}
}

// A PostgreSQL schema that does not exist is not fixed by loading the
// shop into a schema of that name.
func TestPostgresMissingSchemaHint(t *testing.T) {
	reader, _ := testenv.PostgresReader(t, func(ctx context.Context, dsn, schema string) error {
		return postgres.Load(ctx, dsn, schema, false, variantsToyStmts())
	})
	code, _, errOut := run(t, "db", "schema", "toy", "--db", "toy="+engine.WithSchema(reader, "nope"))
	h := hintOf(errOut)
	if code == cmdkit.ExitOK || strings.Contains(h, "--schema nope") || !strings.Contains(h, `\dn`) {
		t.Errorf("exit %d, hint %q\n%s", code, h, errOut)
	}
}

// Low items of issue 26, each refused or said plainly now.
func TestLowItems(t *testing.T) {
	t.Setenv("SQLGYM_CACHE", t.TempDir())
	runs := t.TempDir()
	a := rptWrite(t, runs, "a", rptRun{k: 1, right: ones(10, 5)})
	b := rptWrite(t, runs, "b", rptRun{k: 1, right: ones(10, 6)})
	if code, _, errOut := run(t, "compare", "--base", a, "--treat", a); code != cmdkit.ExitUsage || !strings.Contains(errOut, "both name") {
		t.Errorf("compare a run with itself: exit %d %s", code, errOut)
	}
	if code, _, errOut := run(t, "power", "--run", a, "--run", b, "--delta", "0.05"); code != cmdkit.ExitUsage || !strings.Contains(errOut, "compare --base A --treat B") {
		t.Errorf("power with two runs: exit %d %s", code, errOut)
	}
	empty := filepath.Join(t.TempDir(), "empty.sqlite")
	if err := sqlite.Create(context.Background(), empty, []string{"CREATE TABLE t (x INTEGER)", "DROP TABLE t"}); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := run(t, "db", "schema", "e", "--db", "e=sqlite:"+empty); code != cmdkit.ExitError || out != "" || !strings.Contains(errOut, "no tables") {
		t.Errorf("db schema on an empty database: exit %d %q %s", code, out, errOut)
	}
	for _, c := range []string{"db", "curate"} {
		if code, out, _ := run(t, c, "--help"); code != cmdkit.ExitOK || !strings.Contains(out, "Examples:") {
			t.Errorf("%s --help has no examples", c)
		}
	}
}

// A run with no outcome prints "outcomes: none", not "outcomes: ;".
func TestEvalSummaryWithNoOutcome(t *testing.T) {
	var b strings.Builder
	res := &eval.Result{Dir: "runs/x"}
	res.Summary.K, res.Summary.Missing = 1, 4
	if err := runcmd.PrintEvalSummary(&b, res); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "outcomes: none; missing 4") {
		t.Errorf("summary:\n%s", b.String())
	}
}
