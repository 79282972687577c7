package root

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/sqlgym/sqlgym/dataset"

	"github.com/sqlgym/sqlgym/internal/cmd/cmdkit"
	datacmd "github.com/sqlgym/sqlgym/internal/cmd/data"
)

// export --split holdout writes the validation file: only held-out tasks,
// rows saying split holdout, and (TRL) an OpenRLHF label that marks them
// as evaluation; training rows keep the task id as their label.
func TestExportHoldoutSplit(t *testing.T) {
	tasksPath, runDir := trainingRun(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "holdout.trl.jsonl")
	code, stdout, stderr := run(t, "export", "--tasks", tasksPath, "--split", "holdout", "--format", "trl", "--out", out, "--json")
	if code != cmdkit.ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var res datacmd.ExportResult
	if err := json.Unmarshal([]byte(stdout), &res); err != nil || res.Examples != 1 || res.Split != "holdout" {
		t.Fatalf("%s %v", stdout, err)
	}
	b, _ := os.ReadFile(out)
	var row dataset.TRLRow
	if err := json.Unmarshal(b, &row); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	if row.TaskID != "h" || row.Split != "holdout" || row.Label != `{"task_id":"h","mode":"eval"}` || !strings.Contains(row.Prompt[1].Content, "How many reviews?") {
		t.Fatalf("holdout row %s", b)
	}

	pq := filepath.Join(dir, "holdout.parquet")
	if code, _, stderr := run(t, "export", "--tasks", tasksPath, "--split", "holdout", "--format", "verl", "--out", pq); code != cmdkit.ExitOK {
		t.Fatalf("verl: exit %d: %s", code, stderr)
	}
	rows, err := parquet.ReadFile[dataset.VerlRow](pq)
	if err != nil || len(rows) != 1 || rows[0].ExtraInfo.Split != "holdout" || rows[0].ExtraInfo.TaskID != "h" {
		t.Fatalf("verl holdout rows %+v %v", rows, err)
	}

	// The training file's label is the bare task id.
	train := filepath.Join(dir, "train.trl.jsonl")
	if code, _, stderr := run(t, "export", "--tasks", tasksPath, "--format", "trl", "--out", train); code != cmdkit.ExitOK {
		t.Fatalf("train: exit %d: %s", code, stderr)
	}
	b, _ = os.ReadFile(train)
	if err := json.Unmarshal([]byte(strings.SplitN(string(b), "\n", 2)[0]), &row); err != nil || row.Label != "a" || row.Split != "train" {
		t.Fatalf("train row %s", b)
	}

	// Refusals name the fix.
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"--split", "test"}, "train (the training file) or holdout"},
		{[]string{"--split", "holdout", "--include-holdout"}, "drop --include-holdout"},
		{[]string{"--split", "holdout", "--band", runDir}, "drop --band"},
	} {
		args := append([]string{"export", "--tasks", tasksPath, "--format", "trl", "--out", filepath.Join(dir, "x.jsonl")}, c.args...)
		if code, _, stderr := run(t, args...); code != cmdkit.ExitUsage || !strings.Contains(stderr, c.msg) {
			t.Errorf("%v: exit %d %s", c.args, code, stderr)
		}
	}
}

// --include-holdout scores held-out tasks on every request, --eval-holdout
// on evaluation requests only: together they contradict each other.
func TestServeHoldoutFlagsExclude(t *testing.T) {
	code, _, stderr := run(t, "serve", "--tasks", "shop", "--addr", "127.0.0.1:0", "--include-holdout", "--eval-holdout")
	if code != cmdkit.ExitUsage || !strings.Contains(stderr, "not both") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
}
