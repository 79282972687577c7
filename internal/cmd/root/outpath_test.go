package root

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/internal/testenv"
	"github.com/sqlgym/sqlgym/rundir"

	"github.com/sqlgym/sqlgym/internal/cmd/cmdkit"
)

const twoTasks = `{"id":"n","db":"shop","question":"How many orders?","sql":"SELECT count(*) FROM orders","split":"train"}
{"id":"c","db":"shop","question":"How many customers?","sql":"SELECT count(*) FROM customers","split":"train"}
`

// refused runs args, which must fail naming fix, and checks that the files
// in keep are byte for byte what they were.
func refused(t *testing.T, fix string, keep []string, args ...string) {
	t.Helper()
	before := make([][]byte, len(keep))
	for i, p := range keep {
		before[i], _ = os.ReadFile(p)
	}
	code, _, errOut := run(t, args...)
	if code != cmdkit.ExitError || !strings.Contains(errOut, fix) {
		t.Fatalf("%v: exit %d, want %d with %q in stderr:\n%s", args, code, cmdkit.ExitError, fix, errOut)
	}
	for i, p := range keep {
		if after, _ := os.ReadFile(p); string(after) != string(before[i]) {
			t.Fatalf("%v changed %s although it was refused", args, p)
		}
	}
}

func succeeds(t *testing.T, args ...string) {
	t.Helper()
	if code, _, errOut := run(t, args...); code != cmdkit.ExitOK {
		t.Fatalf("%v: exit %d: %s", args, code, errOut)
	}
}

const (
	otherOut    = "choose another --out"
	passReplace = "pass --replace"
)

func TestExportRefusesItsInputAndAnExistingFile(t *testing.T) {
	t.Setenv("SQLGYM_CACHE", t.TempDir())
	tasks := writeFile(t, "mine.jsonl", twoTasks)
	refused(t, otherOut, []string{tasks}, "export", "--tasks", tasks, "--format", "trl", "--out", tasks)
	// Another spelling of the same file, even with --replace.
	alias := filepath.Join(filepath.Dir(tasks), ".", "sub", "..", "mine.jsonl")
	refused(t, otherOut, []string{tasks}, "export", "--tasks", tasks, "--format", "trl", "--out", alias, "--replace")
	out := writeFile(t, "train.jsonl", "precious\n")
	refused(t, passReplace, []string{out}, "export", "--tasks", tasks, "--format", "trl", "--out", out)
	succeeds(t, "export", "--tasks", tasks, "--format", "trl", "--out", out, "--replace")
	if b, _ := os.ReadFile(out); !strings.Contains(string(b), `"task_id":"n"`) {
		t.Fatalf("--replace did not write the dataset:\n%s", b)
	}
}

func TestVerifyRefusesItsPredictionsAsOut(t *testing.T) {
	t.Setenv("SQLGYM_CACHE", t.TempDir())
	tasks := writeFile(t, "tasks.jsonl", twoTasks)
	preds := writeFile(t, "p.jsonl", `{"task_id":"n","completion":"SELECT count(*) FROM orders"}`+"\n")
	refused(t, otherOut, []string{preds}, "verify", "--tasks", tasks, "--predictions", preds, "--out", preds, "--replace")
	refused(t, otherOut, []string{tasks}, "verify", "--tasks", tasks, "--predictions", preds, "--out", tasks, "--replace")
	out := writeFile(t, "r.jsonl", "old results\n")
	refused(t, passReplace, []string{out}, "verify", "--tasks", tasks, "--predictions", preds, "--out", out)
	succeeds(t, "verify", "--tasks", tasks, "--predictions", preds, "--out", out, "--replace")
	if b, _ := os.ReadFile(out); !strings.Contains(string(b), `"outcome":"correct"`) {
		t.Fatalf("results file:\n%s", b)
	}
}

// A results file that cannot be written whole (a full disk) is an error,
// never a short file and exit 0.
func TestVerifyOutWriteFailureExitsNonZero(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full on this system")
	}
	t.Setenv("SQLGYM_CACHE", t.TempDir())
	tasks := writeFile(t, "tasks.jsonl", twoTasks)
	preds := writeFile(t, "p.jsonl", `{"task_id":"n","completion":"SELECT count(*) FROM orders"}`+"\n")
	code, _, errOut := run(t, "verify", "--tasks", tasks, "--predictions", preds, "--out", "/dev/full")
	if code == cmdkit.ExitOK || !strings.Contains(errOut, "/dev/full") {
		t.Fatalf("verify --out /dev/full: exit %d, stderr %q", code, errOut)
	}
}

func TestReportAndCompareRefuseARunFileAsHTML(t *testing.T) {
	dir := rptWrite(t, t.TempDir(), "base", rptRun{k: 1, right: ones(4, 2)})
	for _, f := range []string{rundir.SamplesFile, rundir.ManifestFile, rundir.SummaryFile} {
		p := filepath.Join(dir, f)
		refused(t, "choose another --html", []string{p}, "report", dir, "--html", p, "--replace")
	}
	// A page of its own inside the run folder is the command's output, not
	// an input: --replace may rewrite it.
	inRun := filepath.Join(dir, "report.html")
	succeeds(t, "report", dir, "--html", inRun)
	succeeds(t, "report", dir, "--html", inRun, "--replace")
	html := writeFile(t, "r.html", "<p>mine</p>")
	refused(t, "pass --replace", []string{html}, "report", dir, "--html", html)
	succeeds(t, "report", dir, "--html", html, "--replace")
	treat := rptWrite(t, filepath.Dir(dir), "treat", rptRun{k: 1, right: ones(4, 3)})
	samples := filepath.Join(treat, rundir.SamplesFile)
	refused(t, "choose another --html", []string{samples}, "compare", "--base", dir, "--treat", treat, "--html", samples, "--replace")
	refused(t, "pass --replace", []string{html}, "compare", "--base", dir, "--treat", treat, "--html", html)
}

func TestBandRefusesItsInputs(t *testing.T) {
	tasks, runDir := trainingRun(t)
	refused(t, otherOut, []string{tasks}, "band", runDir, "--tasks", tasks, "--out", tasks, "--replace")
	samples := filepath.Join(runDir, rundir.SamplesFile)
	refused(t, otherOut, []string{samples}, "band", runDir, "--out", samples, "--replace")
	out := writeFile(t, "band.jsonl", "old band\n")
	refused(t, passReplace, []string{out}, "band", runDir, "--out", out)
	succeeds(t, "band", runDir, "--out", out, "--replace")
}

func TestImportRefusesItsSourceAndAnExistingFile(t *testing.T) {
	data := testenv.SharedData(t)
	src := testenv.CopyFile(t, filepath.Join(data, "defog", "questions_gen_sqlite.jsonl"))
	refused(t, otherOut, []string{src}, "import", "defog", src, "--out", src, "--replace")
	out := writeFile(t, "defog.jsonl", "mine\n")
	refused(t, passReplace, []string{out}, "import", "defog", src, "--out", out)
	succeeds(t, "import", "defog", src, "--out", out, "--replace")
	// An existing file inside an input folder may be one of the files read.
	dir := filepath.Dir(src)
	inside := filepath.Join(dir, "sub", "x.jsonl")
	os.MkdirAll(filepath.Dir(inside), 0o755)
	os.WriteFile(inside, []byte("x\n"), 0o644)
	refused(t, otherOut, []string{inside}, "import", "spider", dir, "--out", inside, "--replace")
}

func TestSplitRefusesItsInputEvenThroughASymlink(t *testing.T) {
	tasks := writeFile(t, "tasks.jsonl", twoTasks)
	refused(t, otherOut, []string{tasks}, "split", "--tasks", tasks, "--out", tasks, "--replace")
	link := filepath.Join(t.TempDir(), "linked")
	if err := os.Symlink(filepath.Dir(tasks), link); err != nil {
		t.Fatal(err)
	}
	refused(t, otherOut, []string{tasks}, "split", "--tasks", tasks, "--out", filepath.Join(link, "tasks.jsonl"), "--replace")
	out := writeFile(t, "split.jsonl", "old\n")
	refused(t, passReplace, []string{out}, "split", "--tasks", tasks, "--out", out)
	succeeds(t, "split", "--tasks", tasks, "--out", out, "--replace")
}

func TestScreenAndLinkMergeRefuseTheirInputs(t *testing.T) {
	t.Setenv("SQLGYM_CACHE", t.TempDir())
	tasks := writeFile(t, "tasks.jsonl", twoTasks)
	refused(t, otherOut, []string{tasks}, "screen", "--tasks", tasks, "--out", tasks, "--replace")
	out := writeFile(t, "s.jsonl", "old\n")
	refused(t, passReplace, []string{out}, "screen", "--tasks", tasks, "--out", out)
	db := filepath.Join(t.TempDir(), "shop.sqlite")
	succeeds(t, "db", "create", "shop", "--engine", "sqlite", "--out", db)
	refused(t, "choose another --tasks-out", []string{tasks}, "link", "merge", "--tasks", tasks, "--db", "shop=sqlite:"+db,
		"--out", filepath.Join(t.TempDir(), "wide.sqlite"), "--tasks-out", tasks, "--replace")
	refused(t, otherOut, []string{db}, "link", "merge", "--tasks", tasks, "--db", "shop=sqlite:"+db,
		"--out", db, "--tasks-out", filepath.Join(t.TempDir(), "w.jsonl"), "--replace")
}

// An output that does not exist yet but names the same path as an input
// that does not exist either (summary.json before a run ends) is refused.
func TestCheckOutputComparesPathsBeforeTheFileExists(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "runs", "a", "summary.json")
	out := filepath.Join(dir, "runs", "b", "..", "a", "summary.json")
	if err := cmdkit.CheckOutput("--html", out, true, in); err == nil {
		t.Fatal("an output that is an input by another spelling was accepted")
	}
	if err := cmdkit.CheckOutput("--html", filepath.Join(dir, "report.html"), false, in); err != nil {
		t.Fatalf("a fresh output was refused: %v", err)
	}
}
