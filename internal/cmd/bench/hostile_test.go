package bench

import (
	"github.com/sqlgym/sqlgym/internal/cmd/cmdkit"

	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/serve/loadtest"
)

// bench serve --hostile end to end on the built-in SQLite shop: honest
// requests are timed alone and beside a hostile request of answers that
// each spend SQLite's whole step budget, which its 2 s deadline cuts.
func TestBenchServeHostile(t *testing.T) {
	dir := t.TempDir()
	preds, tasks := filepath.Join(dir, "hostile.jsonl"), filepath.Join(dir, "tasks.jsonl")
	var b strings.Builder
	for i := 0; i < 12; i++ {
		sql := fmt.Sprintf("WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM r) SELECT count(*) + %d FROM r", i)
		line, _ := json.Marshal(map[string]string{"task_id": "t", "sql": sql})
		b.Write(append(line, '\n'))
	}
	if err := os.WriteFile(preds, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	task := `{"id": "t", "db": "shop", "question": "How many orders?", "sql": "SELECT count(*) FROM orders"}` + "\n"
	if err := os.WriteFile(tasks, []byte(task), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := run(t, "serve", "--hostile", preds, "--hostile-tasks", tasks, "--deadline", "2s", "--honest-every", "50ms", "--json")
	if code != cmdkit.ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var rep loadtest.HostileReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if rep.Alone.Requests != 20 || rep.Honest.Requests == 0 || rep.HonestFailed != 0 || rep.HonestUnlike != 0 || rep.Dialect != "sqlite" {
		t.Fatalf("honest requests: %+v", rep)
	}
	// Nothing or a few judged by the deadline: 503, or 200 with the rest
	// unscored.
	if h := rep.HostileRuns[0]; h.Status != 503 && (h.Status != 200 || h.Outcomes["unscored"] == 0) {
		t.Fatalf("hostile request: %+v", h)
	}
	if code, _, errOut := run(t, "serve", "--hostile", preds, "--hostile-batches", "0"); code != cmdkit.ExitUsage || !strings.Contains(errOut, "--hostile-batches") {
		t.Fatalf("--hostile-batches 0: exit %d: %s", code, errOut)
	}
}

func TestClusterHelpAndRefusals(t *testing.T) {
	for _, c := range []string{"serve", "verify", "cluster"} {
		if code, out, _ := run(t, c, "--help"); code != cmdkit.ExitOK || !strings.Contains(out, "Examples:") {
			t.Errorf("%s --help: exit %d, no examples:\n%s", c, code, out)
		}
	}
	code, out, _ := run(t, "cluster", "--help")
	if code != cmdkit.ExitOK || !strings.Contains(out, "--haproxy") || !strings.Contains(out, "--sqlgym") {
		t.Errorf("cluster --help: exit %d:\n%s", code, out)
	}
	if code, _, errOut := run(t, "cluster", "--replicas", "3"); code != cmdkit.ExitUsage || !strings.Contains(errOut, "--haproxy") {
		t.Errorf("cluster --replicas 3: exit %d, stderr %q; want a usage error naming --haproxy", code, errOut)
	}
	if code, out, _ := run(t, "--help"); code != cmdkit.ExitOK || !strings.Contains(out, "Examples:") || !strings.Contains(out, "sqlgym-bench") {
		t.Errorf("sqlgym-bench --help: exit %d:\n%s", code, out)
	}
}

// A usage error points to sqlgym-bench's own help, not sqlgym's.
func TestUsageErrorNamesThisProgram(t *testing.T) {
	code, _, errOut := run(t, "no-such-command")
	if code != cmdkit.ExitUsage || !strings.Contains(errOut, "Run 'sqlgym-bench --help'") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
}
