package root

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/ledger"
	"github.com/sqlgym/sqlgym/rundir"

	"github.com/sqlgym/sqlgym/internal/cmd/cmdkit"
	runcmd "github.com/sqlgym/sqlgym/internal/cmd/run"
)

// rptRun describes a constructed run: right[i] of k samples right on task i.
type rptRun struct {
	k     int
	right []int
	edit  func(*rundir.Manifest)
}

// rptWrite writes the run into parent/name with rundir's writers and
// returns its folder. Tasks are t000, t001, ... on databases shop and zoo
// in turn.
func rptWrite(t *testing.T, parent, name string, r rptRun) string {
	t.Helper()
	dir := filepath.Join(parent, name)
	m := rundir.Manifest{SqlgymVersion: "test", TasksHash: "tasks-hash-1", TaskCount: len(r.right),
		DBDigests: map[string]string{"shop": "a", "zoo": "b"}, Policy: "model", Model: "m",
		Decoding: rundir.Decoding{K: r.k, Temperature: 0.7}, Mode: "multiset", Rewards: "default",
		Started: time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC), ConfigHash: "cfg-" + name}
	if r.edit != nil {
		r.edit(&m)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := rundir.WriteJSON(filepath.Join(dir, rundir.ManifestFile), m); err != nil {
		t.Fatal(err)
	}
	a, _, err := rundir.OpenAppender(dir)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range r.right {
		for j := range r.k {
			s := rundir.Sample{TaskID: fmt.Sprintf("t%03d", i), Sample: j, DB: []string{"shop", "zoo"}[i%2], Verdict: sqlgym.Verdict{SQL: "SELECT 1", Outcome: sqlgym.OutcomeCorrect}}
			if j >= c {
				s.Outcome, s.Why = sqlgym.OutcomeWrong, "values"
			}
			if err := a.Append(&s); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	return dir
}

// ones gives n tasks with the first m right (k = 1).
func ones(n, m int) []int {
	out := make([]int, n)
	for i := range m {
		out[i] = 1
	}
	return out
}

func TestReportCommandFormats(t *testing.T) {
	runs := t.TempDir()
	dir := rptWrite(t, runs, "base", rptRun{k: 4, right: []int{4, 2, 1, 0}})

	code, out, errOut := run(t, "report", dir)
	if code != cmdkit.ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	// pass@1 = (1+.5+.25+0)/4, pass@4 = 3/4, pass^4 = 1/4.
	for _, want := range []string{"run       base", "pass@1  43.8%", "pass@4  75.0%", "pass^4  25.0%", "unreplicated", "0/4  1"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}

	code, out, _ = run(t, "report", dir, "--md")
	if code != cmdkit.ExitOK || !strings.HasPrefix(out, "## sqlgym report: base") || !strings.Contains(out, "| pass@1 | 43.8% |") {
		t.Errorf("--md: exit %d\n%s", code, out)
	}

	page := filepath.Join(t.TempDir(), "r.html")
	code, out, _ = run(t, "report", dir, "--html", page)
	b, err := os.ReadFile(page)
	if code != cmdkit.ExitOK || strings.TrimSpace(out) != page || err != nil || !strings.Contains(string(b), "<svg") {
		t.Fatalf("--html: exit %d out %q err %v", code, out, err)
	}

	code, out, _ = run(t, "report", dir, "--json")
	var res runcmd.ReportJSON
	if code != cmdkit.ExitOK || json.Unmarshal([]byte(out), &res) != nil {
		t.Fatalf("--json: exit %d\n%s", code, out)
	}
	if res.Summary.Metrics["pass@1"].Value != 0.4375 || res.Summary.Tasks != 4 || len(res.Tasks) != 4 || res.Tasks[1].C != 2 || len(res.Failures) != 3 {
		t.Fatalf("--json content %+v", res)
	}
	// The 9 failed samples all wrote SELECT 1: one failure per task,
	// listing its samples.
	n := 0
	for _, f := range res.Failures {
		n += len(f.Samples)
	}
	if n != 9 {
		t.Errorf("the distinct failures list %d samples, want 9", n)
	}
}

func TestReportCommandErrors(t *testing.T) {
	code, _, errOut := run(t, "report", t.TempDir())
	if code != cmdkit.ExitError || !strings.Contains(errOut, "not a run folder") || !strings.Contains(errOut, "hint:") {
		t.Errorf("empty folder: exit %d %q", code, errOut)
	}
	code, _, errOut = run(t, "report", filepath.Join(t.TempDir(), "nope"))
	if code != cmdkit.ExitError || !strings.Contains(errOut, "no such run folder") {
		t.Errorf("missing folder: exit %d %q", code, errOut)
	}
	for _, args := range [][]string{{"report"}, {"report", "a", "b"}, {"report", "a", "--md", "--json"}} {
		if code, _, errOut := run(t, args...); code != cmdkit.ExitUsage {
			t.Errorf("%v: exit %d, want 2 (%q)", args, code, errOut)
		}
	}
}

func TestCompareCommandVerdictsAndLedger(t *testing.T) {
	runs := t.TempDir()
	base := rptWrite(t, runs, "base", rptRun{k: 1, right: ones(40, 10)})
	gain := rptWrite(t, runs, "gain", rptRun{k: 1, right: ones(40, 30)})

	code, out, errOut := run(t, "compare", "--base", base, "--treat", gain, "--criterion", "delta>=0.05")
	if code != cmdkit.ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"verdict: proven gain (unreplicated", "+50.0", "exact McNemar", "criterion delta>=0.05: pass", "20 improved, 0 worsened"} {
		if !strings.Contains(out, want) {
			t.Errorf("compare lacks %q:\n%s", want, out)
		}
	}
	entries, damaged, err := ledger.Read(filepath.Join(runs, ledger.FileName))
	if err != nil || damaged != 0 || len(entries) != 1 {
		t.Fatalf("ledger: %d entries, %v", len(entries), err)
	}
	e := entries[0]
	if e.Kind != ledger.KindCompare || e.Headline["delta"] != 0.5 || e.TasksHash != "tasks-hash-1" || e.Inputs["treat"][0] != gain ||
		!strings.Contains(strings.Join(e.Command, " "), "--criterion=delta>=0.05") || !strings.HasPrefix(e.Verdict, "proven gain") {
		t.Fatalf("ledger entry %+v", e)
	}

	// A criterion that fails is printed, then exits 4 (issue 15: it exited
	// 0; issue 26: it shared 1 with errors).
	code, out, errOut = run(t, "compare", "--base", gain, "--treat", base, "--criterion", "delta>=0.05")
	if code != cmdkit.ExitCriterion || !strings.Contains(out, "verdict: proven loss") || !strings.Contains(out, "criterion delta>=0.05: fail") ||
		!strings.Contains(errOut, "criterion delta>=0.05 not met (delta -50.00 pts") {
		t.Errorf("loss: exit %d\n%s\n%s", code, out, errOut)
	}
	// An estimate over the bar that is not a proven gain fails the bar,
	// as in round (issue 26: it printed "pass" and exited 0).
	one := rptWrite(t, runs, "one", rptRun{k: 1, right: ones(40, 11)})
	code, out, errOut = run(t, "compare", "--base", base, "--treat", one, "--criterion", "delta>=0.005")
	if code != cmdkit.ExitCriterion || !strings.Contains(out, "verdict: not proven") ||
		!strings.Contains(out, `criterion delta>=0.005: fail (the estimate meets it but the verdict is "not proven"`) ||
		!strings.Contains(errOut, "not met (delta +2.50 pts") {
		t.Errorf("not proven: exit %d\n%s\n%s", code, out, errOut)
	}
	// Two flips each way prove nothing.
	flips := ones(40, 10)
	flips[0], flips[1], flips[20], flips[21] = 0, 0, 1, 1
	same := rptWrite(t, runs, "same", rptRun{k: 1, right: flips})
	code, out, _ = run(t, "compare", "--base", base, "--treat", same, "--json")
	var c struct {
		Verdict      string  `json:"verdict"`
		Unreplicated bool    `json:"unreplicated"`
		PValue       float64 `json:"p_value"`
		Metrics      []struct {
			Name  string `json:"name"`
			Delta struct{ Value, Lo, Hi *float64 }
		} `json:"metrics"`
	}
	if code != cmdkit.ExitOK || json.Unmarshal([]byte(out), &c) != nil {
		t.Fatalf("--json: exit %d\n%s", code, out)
	}
	if c.Verdict != "not proven" || !c.Unreplicated || c.PValue != 1 || *c.Metrics[0].Delta.Value != 0 {
		t.Fatalf("not proven: %+v", c)
	}
	if entries, _, _ := ledger.Read(filepath.Join(runs, ledger.FileName)); len(entries) != 4 {
		t.Fatalf("every compare appends one ledger line: %d", len(entries))
	}
}

func TestCompareCommandReplicates(t *testing.T) {
	runs := t.TempDir()
	var bases, treats []string
	for i := range 3 {
		b := make([]int, 30)
		tr := make([]int, 30)
		for j := range 30 {
			b[j] = (j + i) % 3  // 0..2 of 4 right
			tr[j] = 2 + (j+i)%3 // 2..4 of 4 right
		}
		bases = append(bases, rptWrite(t, runs, fmt.Sprintf("base-%d", i), rptRun{k: 4, right: b}))
		treats = append(treats, rptWrite(t, runs, fmt.Sprintf("treat-%d", i), rptRun{k: 4, right: tr}))
	}
	code, out, errOut := run(t, "compare", "--base", strings.Join(bases, ","), "--treat", treats[0], "--treat", treats[1]+","+treats[2], "--md")
	if code != cmdkit.ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.HasPrefix(out, "## sqlgym compare: proven gain\n") || strings.Contains(out, "nreplicated") || !strings.Contains(out, "| pass@4 |") || !strings.Contains(out, "(3 runs)") {
		t.Fatalf("replicated comparison:\n%s", out)
	}
	// Each task's rate averages to 1/4 on base and 3/4 on treat: +50 points.
	if !strings.Contains(out, "| pass@1 | 30 | 25.0% | 75.0% | +50.0 |") {
		t.Fatalf("averaged rates wrong:\n%s", out)
	}
}

func TestCompareCommandMismatch(t *testing.T) {
	runs := t.TempDir()
	base := rptWrite(t, runs, "base", rptRun{k: 1, right: ones(20, 5)})
	for _, tc := range []struct {
		name, what string
		edit       func(*rundir.Manifest)
	}{
		{"hash", "tasks hash", func(m *rundir.Manifest) { m.TasksHash = "tasks-hash-2" }},
		{"mode", "mode", func(m *rundir.Manifest) { m.Mode = "bird" }},
	} {
		treat := rptWrite(t, runs, tc.name, rptRun{k: 1, right: ones(20, 15), edit: tc.edit})
		code, _, errOut := run(t, "compare", "--base", base, "--treat", treat)
		if code != cmdkit.ExitError || !strings.Contains(errOut, "differ in "+tc.what) || !strings.Contains(errOut, "--allow-mismatch") {
			t.Errorf("%s: exit %d stderr %q", tc.name, code, errOut)
		}
		code, out, _ := run(t, "compare", "--base", base, "--treat", treat, "--allow-mismatch")
		if code != cmdkit.ExitOK || !strings.Contains(out, "allowed mismatch") || !strings.Contains(out, "proven gain") {
			t.Errorf("%s allowed: exit %d\n%s", tc.name, code, out)
		}
	}
	if entries, _, _ := ledger.Read(filepath.Join(runs, ledger.FileName)); len(entries) != 2 {
		t.Fatalf("refused comparisons must not reach the ledger: %d entries", len(entries))
	}
	fewer := rptWrite(t, runs, "fewer", rptRun{k: 1, right: ones(12, 10)})
	code, out, _ := run(t, "compare", "--base", base, "--treat", fewer, "--allow-mismatch", "--json")
	var c struct {
		Tasks   int `json:"tasks"`
		Dropped int `json:"dropped_tasks"`
	}
	if code != cmdkit.ExitOK || json.Unmarshal([]byte(out), &c) != nil || c.Tasks != 12 || c.Dropped != 8 {
		t.Fatalf("common tasks: exit %d %+v", code, c)
	}
}

func TestCompareCommandClusterAndUsage(t *testing.T) {
	runs := t.TempDir()
	base := rptWrite(t, runs, "base", rptRun{k: 1, right: ones(40, 10)})
	treat := rptWrite(t, runs, "treat", rptRun{k: 1, right: ones(40, 30)})
	page := filepath.Join(t.TempDir(), "c.html")
	code, out, errOut := run(t, "compare", "--base", base, "--treat", treat, "--cluster", "db", "--json", "--html", page)
	var c struct {
		Cluster string `json:"cluster"`
		PMethod string `json:"p_method"`
		Metrics []struct {
			Clusters int `json:"clusters"`
		} `json:"metrics"`
	}
	if code != cmdkit.ExitOK || json.Unmarshal([]byte(out), &c) != nil {
		t.Fatalf("exit %d: %s\n%s", code, errOut, out)
	}
	if c.Cluster != "db" || c.Metrics[0].Clusters != 2 || c.PMethod == "exact McNemar" {
		t.Fatalf("clustered: %+v", c)
	}
	if b, err := os.ReadFile(page); err != nil || !strings.Contains(string(b), "cluster bootstrap over 2 databases") {
		t.Fatalf("--html page: %v", err)
	}
	for _, args := range [][]string{
		{"compare", "--base", base},
		{"compare", "--base", base, "--treat", treat, "--cluster", "schema"},
		{"compare", "--base", base, "--treat", treat, "--criterion", "gain>1"},
		{"compare", "--base", base, "--treat", treat, "--md", "--json"},
	} {
		if code, _, errOut := run(t, args...); code != cmdkit.ExitUsage {
			t.Errorf("%v: exit %d, want 2 (%q)", args, code, errOut)
		}
	}
}

func TestPowerCommand(t *testing.T) {
	// 140 tasks, k=4, rates 0 (40%), .25, .5 and 1 (20% each): per-task sd
	// about .375, the spread behind the seed's lesson: about +-6 points at
	// 140 tasks, and some 450 tasks for +-3.5.
	right := make([]int, 140)
	for i := range right {
		right[i] = []int{0, 0, 1, 2, 4}[i%5]
	}
	dir := rptWrite(t, t.TempDir(), "holdout", rptRun{k: 4, right: right})
	code, out, errOut := run(t, "power", "--run", dir, "--delta", "0.035", "--json")
	var p runcmd.PowerJSON
	if code != cmdkit.ExitOK || json.Unmarshal([]byte(out), &p) != nil {
		t.Fatalf("exit %d: %s\n%s", code, errOut, out)
	}
	if p.N != 140 || p.HalfWidth < 0.055 || p.HalfWidth > 0.07 || p.NeededN < 400 || p.NeededN > 520 || !p.BootstrapChecked {
		t.Fatalf("power %+v", p)
	}
	if p.CurrentBootstrapHalfWidth < 0.05 || p.CurrentBootstrapHalfWidth > 0.075 {
		t.Fatalf("the run's own interval half-width %v", p.CurrentBootstrapHalfWidth)
	}
	// "3.5%" means the same as 0.035.
	code, out2, _ := run(t, "power", "--run", dir, "--delta", "3.5%", "--json")
	if code != cmdkit.ExitOK || out2 != out {
		t.Fatalf("--delta 3.5%% differs from 0.035:\n%s\n%s", out2, out)
	}
	code, out, _ = run(t, "power", "--run", dir, "--delta", "0.035")
	if code != cmdkit.ExitOK || !strings.Contains(out, fmt.Sprintf("needs %d tasks", p.NeededN)) || !strings.Contains(out, "more tasks like these") {
		t.Fatalf("text: exit %d\n%s", code, out)
	}
	code, out, _ = run(t, "power", "--run", dir, "--delta", "0.2")
	if code != cmdkit.ExitOK || !strings.Contains(out, "already has enough tasks") {
		t.Fatalf("wide delta: exit %d\n%s", code, out)
	}
	for _, d := range []string{"0", "1.5", "abc", "-3%"} {
		if code, _, _ := run(t, "power", "--run", dir, "--delta", d); code != cmdkit.ExitUsage {
			t.Errorf("--delta %s: exit %d, want 2", d, code)
		}
	}
	if code, _, _ := run(t, "power", "--delta", "0.03"); code != cmdkit.ExitUsage {
		t.Errorf("--run missing: exit %d, want 2", code)
	}
}

func TestReportCompareHelp(t *testing.T) {
	for _, cmd := range []string{"report", "compare", "power"} {
		code, out, _ := run(t, cmd, "--help")
		if code != cmdkit.ExitOK || !strings.Contains(out, "Examples:") {
			t.Errorf("%s --help: exit %d\n%s", cmd, code, out)
		}
	}
	_, out, _ := run(t, "power", "--help")
	if !strings.Contains(out, "140") || !strings.Contains(out, "459") {
		t.Errorf("power --help lacks the 140/459 example:\n%s", out)
	}
}

// compare --cluster db on a one-database task set says what is wrong with
// it, not that the runs differ (issue 15).
func TestCompareClusterOneDatabaseHint(t *testing.T) {
	runs := t.TempDir()
	base := rptWrite(t, runs, "base", rptRun{k: 1, right: ones(40, 10)})
	gain := rptWrite(t, runs, "gain", rptRun{k: 1, right: ones(40, 30)})
	// Keep only the tasks of one database in both runs.
	for _, dir := range []string{base, gain} {
		p := filepath.Join(dir, rundir.SamplesFile)
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var keep []string
		for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			if strings.Contains(l, `"db":"shop"`) {
				keep = append(keep, l)
			}
		}
		if len(keep) == 0 {
			t.Fatal("no shop samples: the sample format changed")
		}
		if err := os.WriteFile(p, []byte(strings.Join(keep, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, _, errOut := run(t, "compare", "--base", base, "--treat", gain, "--cluster", "db")
	if code != cmdkit.ExitError || !strings.Contains(errOut, "clustering by database needs at least 2 databases; this task set has 1") ||
		!strings.Contains(errOut, "drop --cluster db") || strings.Contains(errOut, "--allow-mismatch") {
		t.Fatalf("exit %d: %s", code, errOut)
	}
}
