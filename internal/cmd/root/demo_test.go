package root

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/rundir"
	"github.com/sqlgym/sqlgym/shopdb"

	"github.com/sqlgym/sqlgym/internal/cmd/cmdkit"
)

// TestDemo runs `sqlgym demo` with the cache in a temporary folder and
// checks the run folder it writes under the cache, the printed report and
// the HTML page; a second demo into its own --out draws the same samples.
func TestDemo(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("SQLGYM_CACHE", cache)
	tasks, err := shopdb.Tasks()
	if err != nil {
		t.Fatalf("built-in shop tasks: %v", err)
	}
	held := 0
	for _, tk := range tasks {
		if tk.Split == sqlgym.SplitHoldout {
			held++
		}
	}
	if held == 0 {
		t.Fatal("the built-in shop task set holds no held-out task")
	}

	code, out, errOut := run(t, "demo")
	if code != cmdkit.ExitOK {
		t.Fatalf("demo: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	runs, _ := filepath.Glob(filepath.Join(cache, "runs", "demo-*"))
	if len(runs) != 1 {
		t.Fatalf("run folders under the cache: %v, want one runs/demo-*", runs)
	}
	dir := runs[0]
	m, err := rundir.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	if m.Policy != "baseline" || m.Split != sqlgym.SplitHoldout || m.TaskCount != held || m.Decoding.K != 4 ||
		m.Decoding.Temperature != 0.7 || m.Ended == nil {
		t.Errorf("manifest %+v: want the finished baseline run over the %d held-out tasks, k=4, T=0.7", m, held)
	}
	samples, err := rundir.ReadSamples(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(samples) != 4*held {
		t.Errorf("%d samples, want %d", len(samples), 4*held)
	}
	byID := map[string]sqlgym.Task{}
	for _, tk := range tasks {
		byID[tk.ID] = tk
	}
	correct := 0
	for _, s := range samples {
		if byID[s.TaskID].Split != sqlgym.SplitHoldout {
			t.Fatalf("sample of task %s, which is not held out", s.TaskID)
		}
		if s.Outcome == sqlgym.OutcomeCorrect {
			correct++
		}
	}
	// The baseline is weak, not useless: on the shop set it gets about
	// half of the samples right.
	if correct*5 < len(samples) || correct == len(samples) {
		t.Errorf("%d of %d samples correct: the baseline or its verification is broken", correct, len(samples))
	}
	sum, err := rundir.ReadSummary(dir)
	if err != nil {
		t.Fatal(err)
	}
	html := filepath.Join(dir, "report.html")
	if b, err := os.ReadFile(html); err != nil || !strings.Contains(string(b), "<html") {
		t.Errorf("HTML report %s: %v", html, err)
	}
	for _, want := range []string{"baseline-bm25", "pass@1", "pass@4", "pass^4", "HTML report: " + html, "run folder:  " + dir} {
		if !strings.Contains(out, want) {
			t.Errorf("demo output lacks %q:\n%s", want, out)
		}
	}
	pass1 := regexp.MustCompile(`(?m)^pass@1\s+(\S+%)`).FindStringSubmatch(out)
	if want := fmt.Sprintf("%.1f%%", 100*sum.Metrics["pass@1"].Value); pass1 == nil || pass1[1] != want {
		t.Errorf("printed pass@1 %v does not match summary.json's %.4f", pass1, sum.Metrics["pass@1"].Value)
	}

	// Same seed, its own folder: the same samples.
	other := filepath.Join(t.TempDir(), "again")
	if code, _, errOut := run(t, "demo", "--out", other); code != cmdkit.ExitOK {
		t.Fatalf("demo --out: exit %d: %s", code, errOut)
	}
	again, err := rundir.ReadSamples(other)
	if err != nil {
		t.Fatal(err)
	}
	first := map[rundir.Key]string{}
	for _, s := range samples {
		first[s.Key()] = s.SQL
	}
	if len(again) != len(samples) {
		t.Fatalf("second demo wrote %d samples, the first %d", len(again), len(samples))
	}
	for _, s := range again {
		if first[s.Key()] != s.SQL {
			t.Fatalf("sample %v: %q, first demo %q", s.Key(), s.SQL, first[s.Key()])
		}
	}

	if code, _, errOut := run(t, "demo", "--k", "0"); code != cmdkit.ExitUsage {
		t.Errorf("demo --k 0: exit %d (%s), want %d", code, errOut, cmdkit.ExitUsage)
	}
}
