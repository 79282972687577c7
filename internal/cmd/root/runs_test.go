package root

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/internal/testenv"
	"github.com/sqlgym/sqlgym/rundir"

	"github.com/sqlgym/sqlgym/internal/cmd/cmdkit"
	runcmd "github.com/sqlgym/sqlgym/internal/cmd/run"
)

func runsJSON(t *testing.T, args ...string) []runcmd.RunRow {
	t.Helper()
	code, out, errOut := run(t, append([]string{"runs", "--json"}, args...)...)
	if code != cmdkit.ExitOK {
		t.Fatalf("runs %v: exit %d: %s", args, code, errOut)
	}
	var rows []runcmd.RunRow
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatalf("runs --json: %v\n%s", err, out)
	}
	return rows
}

// `sqlgym runs` lists the demo's run under the cache with report's pass@1
// and interval. TestRunsStatuses is the fast version.
func TestRunsListsTheDemoRunWithReportsPass1(t *testing.T) {
	testenv.Slow(t, "a demo run, about 7 s on 2 busy cores")
	cache := t.TempDir()
	t.Setenv("SQLGYM_CACHE", cache)
	if code, _, errOut := run(t, "demo", "--k", "2", "--json"); code != cmdkit.ExitOK {
		t.Fatalf("demo: exit %d: %s", code, errOut)
	}
	rows := runsJSON(t)
	if len(rows) != 1 {
		t.Fatalf("runs: %+v, want the demo's run", rows)
	}
	r := rows[0]
	checkReportPass1(t, r)
	if r.Status != runcmd.RunComplete || r.K != 2 || !strings.HasPrefix(r.ID, "demo-") {
		t.Errorf("row %+v", r)
	}
	code, out, _ := run(t, "runs")
	if code != cmdkit.ExitOK || !strings.Contains(out, "PASS@1 [95% CI]") || !strings.Contains(out, r.ID) || !strings.Contains(out, "complete") {
		t.Errorf("runs table (exit %d):\n%s", code, out)
	}

}

// A folder's runs: the ledger's complete one, an interrupted one (no end
// in its manifest, in no ledger) and one with samples missing.
func TestRunsStatuses(t *testing.T) {
	t.Setenv("SQLGYM_CACHE", t.TempDir())
	dir := filepath.Join(t.TempDir(), "runs")
	done := filepath.Join(dir, "done")
	if code, _, errOut := run(t, "eval", "--tasks", shopTaskFile(t), "--policy", "baseline", "--k", "2", "--out", done); code != cmdkit.ExitOK {
		t.Fatalf("eval: exit %d: %s", code, errOut)
	}
	cut := filepath.Join(dir, "cut")
	copyDir(t, done, cut)
	m, err := rundir.ReadManifest(cut)
	if err != nil {
		t.Fatal(err)
	}
	m.Ended = nil
	if err := rundir.WriteJSON(filepath.Join(cut, rundir.ManifestFile), m); err != nil {
		t.Fatal(err)
	}
	short := filepath.Join(dir, "short")
	copyDir(t, done, short)
	b, _ := os.ReadFile(filepath.Join(short, rundir.SamplesFile))
	lines := strings.SplitAfter(strings.TrimSpace(string(b)), "\n")
	if err := os.WriteFile(filepath.Join(short, rundir.SamplesFile), []byte(strings.Join(lines[1:], "")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, r := range runsJSON(t, dir) {
		got[r.ID] = r.Status
	}
	want := map[string]string{"done": runcmd.RunComplete, "cut": runcmd.RunInterrupted, "short": runcmd.RunIncomplete}
	for id, st := range want {
		if got[id] != st {
			t.Errorf("%s: status %q, want %q (all: %v)", id, got[id], st, got)
		}
	}
	for _, r := range runsJSON(t, dir) {
		checkReportPass1(t, r)
	}
	if code, _, errOut := run(t, "runs", filepath.Join(dir, "nope")); code != cmdkit.ExitError || !strings.Contains(errOut, "hint:") {
		t.Errorf("missing folder: exit %d %s", code, errOut)
	}
}

// checkReportPass1 holds a listed run's pass@1 and interval to report's.
func checkReportPass1(t *testing.T, r runcmd.RunRow) {
	t.Helper()
	code, out, _ := run(t, "report", r.Dir, "--json")
	var rep runcmd.ReportJSON
	if code != cmdkit.ExitOK || json.Unmarshal([]byte(out), &rep) != nil {
		t.Fatalf("report %s: exit %d", r.Dir, code)
	}
	p := rep.Summary.Metrics["pass@1"]
	if r.Pass1 == nil || *r.Pass1 != p.Value || r.Pass1CI[0] != p.CI[0] || r.Pass1CI[1] != p.CI[1] {
		t.Errorf("%s: runs pass@1 %v %v, report's %v %v", r.ID, r.Pass1, r.Pass1CI, p.Value, p.CI)
	}
}

// runs prune removes demo runs under the cache but the newest --keep,
// only after a yes, and nothing that is not a demo run.
func TestRunsPruneAsksFirst(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("SQLGYM_CACHE", cache)
	runs := filepath.Join(cache, "runs")
	tf := shopTaskFile(t)
	for _, name := range []string{"demo-20200101-000000", "demo-20210101-000000", "mine"} {
		if code, _, errOut := run(t, "eval", "--tasks", tf, "--policy", "baseline", "--k", "1", "--out", filepath.Join(runs, name)); code != cmdkit.ExitOK {
			t.Fatalf("eval: exit %d: %s", code, errOut)
		}
	}
	old, kept, mine := filepath.Join(runs, "demo-20200101-000000"), filepath.Join(runs, "demo-20210101-000000"), filepath.Join(runs, "mine")
	var errOut bytes.Buffer
	code := Main([]string{"runs", "prune", "--keep", "1"}, cmdkit.IO{In: strings.NewReader("n\n"), Out: &bytes.Buffer{}, ErrOut: &errOut})
	if _, err := os.Stat(old); code != cmdkit.ExitError || err != nil || !strings.Contains(errOut.String(), "[y/N]") {
		t.Fatalf("prune answered n: exit %d, %v\n%s", code, err, errOut.String())
	}
	code = Main([]string{"runs", "prune", "--keep", "1"}, cmdkit.IO{In: strings.NewReader("y\n"), Out: &bytes.Buffer{}, ErrOut: &bytes.Buffer{}})
	if _, err := os.Stat(old); code != cmdkit.ExitOK || !os.IsNotExist(err) {
		t.Fatalf("prune answered y: exit %d, old run: %v", code, err)
	}
	for _, d := range []string{kept, mine} {
		if _, err := os.Stat(d); err != nil {
			t.Errorf("%s was removed: %v", d, err)
		}
	}
	if code, _, errOut := run(t, "runs", "prune", "--keep", "0", "--yes"); code != cmdkit.ExitOK {
		t.Fatalf("--yes: exit %d %s", code, errOut)
	}
	if _, err := os.Stat(kept); !os.IsNotExist(err) {
		t.Errorf("--keep 0 --yes left %s", kept)
	}
}

func copyDir(t *testing.T, from, to string) {
	t.Helper()
	if err := os.MkdirAll(to, 0o755); err != nil {
		t.Fatal(err)
	}
	des, err := os.ReadDir(from)
	if err != nil {
		t.Fatal(err)
	}
	for _, de := range des {
		if de.IsDir() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(from, de.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(to, de.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
