package root

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/dataset"
	"github.com/sqlgym/sqlgym/rundir"

	"github.com/sqlgym/sqlgym/internal/cmd/cmdkit"
	datacmd "github.com/sqlgym/sqlgym/internal/cmd/data"
)

// trainingRun writes a task file and a run folder over it: task a right 2
// of 4 times, b always, c never, h (held out) 1 of 2.
func trainingRun(t *testing.T) (tasksPath, runDir string) {
	t.Helper()
	t.Setenv("SQLGYM_CACHE", t.TempDir())
	dir := t.TempDir()
	tasksPath = filepath.Join(dir, "tasks.jsonl")
	tasks := []sqlgym.Task{
		{ID: "a", DB: "shop", Question: "How many orders?", SQL: "SELECT count(*) FROM orders", Split: "train"},
		{ID: "b", DB: "shop", Question: "How many customers?", SQL: "SELECT count(*) FROM customers", Split: "train"},
		{ID: "c", DB: "shop", Question: "Most expensive product?", SQL: "SELECT name FROM products ORDER BY price DESC LIMIT 1", Split: "train"},
		{ID: "h", DB: "shop", Question: "How many reviews?", SQL: "SELECT count(*) FROM reviews", Split: "holdout"},
	}
	f, err := os.Create(tasksPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := sqlgym.WriteTasks(f, tasks); err != nil {
		t.Fatal(err)
	}
	f.Close()
	runDir = filepath.Join(dir, "run")
	app, _, err := rundir.OpenAppender(runDir)
	if err != nil {
		t.Fatal(err)
	}
	C, W := sqlgym.OutcomeCorrect, sqlgym.OutcomeWrong
	for task, outs := range map[string][]sqlgym.Outcome{"a": {C, W, C, W}, "b": {C, C, C, C}, "c": {W, W, W, W}, "h": {C, W}} {
		for i, o := range outs {
			if err := app.Append(&rundir.Sample{TaskID: task, Sample: i, Verdict: sqlgym.Verdict{Outcome: o}}); err != nil {
				t.Fatal(err)
			}
		}
	}
	app.Close()
	if err := rundir.WriteJSON(filepath.Join(runDir, rundir.ManifestFile), &rundir.Manifest{TasksFile: tasksPath}); err != nil {
		t.Fatal(err)
	}
	return tasksPath, runDir
}

func TestBandCommand(t *testing.T) {
	_, runDir := trainingRun(t)
	out := filepath.Join(t.TempDir(), "band.jsonl")
	code, stdout, stderr := run(t, "band", runDir, "--out", out, "--json")
	if code != cmdkit.ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var res datacmd.BandResult
	if err := json.Unmarshal([]byte(stdout), &res); err != nil {
		t.Fatal(err)
	}
	if res.Tasks != 4 || res.Band != 2 || res.AlwaysRight != 1 || res.AlwaysWrong != 1 || res.SamplesTotal != 14 {
		t.Fatalf("band counts %+v", res)
	}
	band, err := sqlgym.ReadTasks(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(band) != 2 || band[0].ID != "a" || band[1].ID != "h" || band[0].Question != "How many orders?" {
		t.Fatalf("band file %+v", band)
	}
	if r, _ := dataset.PassRate(&band[0]); r != 0.5 {
		t.Fatalf("pass_rate %v", r)
	}
	if code, _, _ := run(t, "band", filepath.Join(t.TempDir(), "nope"), "--out", out); code != cmdkit.ExitUsage {
		t.Fatalf("missing run folder: exit %d", code)
	}
}

func TestExportCommand(t *testing.T) {
	tasksPath, runDir := trainingRun(t)
	dir := t.TempDir()

	// The band holds the held-out task h: refused, with the hint.
	code, _, stderr := run(t, "export", "--tasks", tasksPath, "--band", runDir, "--format", "trl", "--out", filepath.Join(dir, "x.jsonl"))
	if code != cmdkit.ExitError || !strings.Contains(stderr, `held-out task "h"`) || !strings.Contains(stderr, "hint:") {
		t.Fatalf("held-out band: exit %d %s", code, stderr)
	}
	// --include-holdout lets it through.
	trl := filepath.Join(dir, "band.jsonl")
	code, stdout, stderr := run(t, "export", "--tasks", tasksPath, "--band", runDir, "--format", "trl", "--out", trl, "--include-holdout", "--json")
	if code != cmdkit.ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var res datacmd.ExportResult
	if err := json.Unmarshal([]byte(stdout), &res); err != nil || res.Examples != 2 {
		t.Fatalf("%s %v", stdout, err)
	}
	b, _ := os.ReadFile(trl)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	var row dataset.TRLRow
	if err := json.Unmarshal([]byte(lines[0]), &row); err != nil {
		t.Fatal(err)
	}
	if len(lines) != 2 || row.TaskID != "a" || row.GoldSQL != "SELECT count(*) FROM orders" || row.PassRate == nil || *row.PassRate != 0.5 ||
		len(row.Prompt) != 2 || !strings.Contains(row.Prompt[1].Content, "Question: How many orders?") || !strings.Contains(row.Prompt[1].Content, "CREATE TABLE orders") {
		t.Fatalf("TRL rows:\n%s", b)
	}

	// Without a band: train tasks only, the held-out one skipped; verl.
	pq := filepath.Join(dir, "train.parquet")
	code, _, stderr = run(t, "export", "--tasks", tasksPath, "--format", "verl", "--out", pq)
	if code != cmdkit.ExitOK || !strings.Contains(stderr, "skipped 1 held-out") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	rows, err := parquet.ReadFile[dataset.VerlRow](pq)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 3 || rows[2].ExtraInfo.TaskID != "c" || rows[2].RewardModel.GroundTruth != "SELECT name FROM products ORDER BY price DESC LIMIT 1" ||
		rows[0].Prompt[1].Content != row.Prompt[1].Content {
		t.Fatalf("verl rows %+v", rows)
	}

	if code, _, _ := run(t, "export", "--tasks", tasksPath, "--format", "csv", "--out", pq); code != cmdkit.ExitUsage {
		t.Fatalf("--format csv: exit %d", code)
	}
}

func TestTrainingHelpShowsExamples(t *testing.T) {
	for _, cmd := range []string{"serve", "band", "export"} {
		code, out, _ := run(t, append(strings.Fields(cmd), "--help")...)
		if code != cmdkit.ExitOK || !strings.Contains(out, "Examples:") {
			t.Errorf("%s --help: exit %d:\n%s", cmd, code, out)
		}
	}
}
