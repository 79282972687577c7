package root

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/shopdb"
)

// shopTasksN writes nTrain train and nHold held-out shop tasks to a file.
func shopTasksN(t *testing.T, nTrain, nHold int) string {
	t.Helper()
	all, err := shopdb.Tasks()
	if err != nil {
		t.Fatal(err)
	}
	var tasks []sqlgym.Task
	for _, tk := range all {
		switch {
		case tk.Split == sqlgym.SplitHoldout && nHold > 0:
			nHold--
		case tk.Split != sqlgym.SplitHoldout && nTrain > 0:
			nTrain--
		default:
			continue
		}
		tasks = append(tasks, tk)
	}
	var b strings.Builder
	if err := sqlgym.WriteTasks(&b, tasks); err != nil {
		t.Fatal(err)
	}
	return writeFile(t, "tasks.jsonl", b.String())
}

// A run scored with --variants stores its mode as "multiset variants";
// curate reads that label back and judges the targets on the variants
// too, instead of refusing the mode as unknown.
func TestCurateOnVariantsRun(t *testing.T) {
	t.Setenv("SQLGYM_CACHE", t.TempDir())
	tf := shopTasksN(t, 120, 0)
	dir := t.TempDir()
	runDir := filepath.Join(dir, "base")
	if code, _, errOut := run(t, "eval", "--tasks", tf, "--split", "all", "--policy", "baseline", "--k", "2", "--seed", "1", "--variants", "--out", runDir); code != 0 {
		t.Fatalf("eval: %d %s", code, errOut)
	}
	man, err := os.ReadFile(filepath.Join(runDir, "manifest.json"))
	if err != nil || !strings.Contains(string(man), `"multiset variants"`) {
		t.Fatalf("manifest mode is not \"multiset variants\" (%v):\n%s", err, man)
	}
	for _, kind := range []string{"sft", "dpo"} {
		out := filepath.Join(dir, kind+".jsonl")
		code, _, errOut := run(t, "curate", kind, "--run", runDir, "--out", out)
		if code != 0 {
			t.Fatalf("curate %s: %d %s", kind, code, errOut)
		}
		m, err := os.ReadFile(out + ".manifest.json")
		if err != nil || !strings.Contains(string(m), `"mode": "multiset variants"`) {
			t.Errorf("curate %s manifest does not keep the run's mode (%v):\n%.400s", kind, err, m)
		}
	}
}
