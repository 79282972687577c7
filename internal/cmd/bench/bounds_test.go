package bench

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/internal/cmd/cmdkit"
)

// smallCorpus writes a red-team corpus of cheap answers: the tasks, a
// reply with closed tags (the README expects correct) and a statement
// in a file the README does not know.
func smallCorpus(t *testing.T) string {
	dir := t.TempDir()
	files := map[string]string{
		"tasks.jsonl":          `{"id": "t", "db": "shop", "question": "How many orders?", "sql": "SELECT count(*) FROM orders"}` + "\n",
		"tasks_one.jsonl":      `{"id": "one", "db": "shop", "question": "q", "sql": "SELECT 1"}` + "\n",
		"r1_tag_control.jsonl": `{"task_id": "one", "completion": "<sql>SELECT 1</sql>"}` + "\n",
		"r9_cheap.jsonl":       `{"task_id": "t", "sql": "SELECT count(*) + 1 FROM orders"}` + "\n",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func boundsRun(t *testing.T, dir string, wantCode int) boundsReport {
	t.Helper()
	code, out, errOut := run(t, "bounds", "--redteam", dir, "--engines", "sqlite,duckdb,postgres", "--json")
	if code != wantCode {
		t.Fatalf("exit %d, want %d\n%s\n%s", code, wantCode, out, errOut)
	}
	var rep boundsReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("--json is not JSON: %v\n%s", err, out)
	}
	if len(rep.Engines) != 3 || rep.Engines[2].Skipped == "" {
		t.Fatalf("engines %+v: want sqlite, duckdb and postgres skipped (no --postgres)", rep.Engines)
	}
	return rep
}

// Every answer of the corpus runs on each engine, is charged its CPU
// time and checked against the engine's bound and the README's outcome.
func TestBenchBoundsReplaysTheCorpus(t *testing.T) {
	rep := boundsRun(t, smallCorpus(t), cmdkit.ExitOK)
	for _, e := range rep.Engines[:2] {
		if !e.Pass || e.Answers != 2 || e.Outcomes[sqlgym.OutcomeCorrect] != 1 || e.Outcomes[sqlgym.OutcomeWrong] != 1 || e.NullRewards != 0 {
			t.Errorf("%s: %+v, want both answers judged (correct, wrong) and a pass", e.Engine, e)
		}
		if e.CPUBoundS <= 0 || e.MaxCPUS <= 0 || e.MaxCPUS > e.CPUBoundS || e.MaxWallS <= 0 || len(e.Files) != 2 {
			t.Errorf("%s: bound %.1f s, max CPU %.3f s, max wall %.3f s, files %+v", e.Engine, e.CPUBoundS, e.MaxCPUS, e.MaxWallS, e.Files)
		}
	}
}

// An outcome the README does not expect, on the engine the file was
// written for, fails the run; elsewhere it is only hostile input.
func TestBenchBoundsFailsOnAnUnexpectedOutcome(t *testing.T) {
	dir := smallCorpus(t)
	// r2 is expected to be the model's timeout on SQLite: SELECT 1 is not.
	if err := os.WriteFile(filepath.Join(dir, "r2_sqlite_safetynet.jsonl"), []byte(`{"task_id": "t", "sql": "SELECT 1"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rep := boundsRun(t, dir, cmdkit.ExitError)
	sq, dk := rep.Engines[0], rep.Engines[1]
	if sq.Pass || len(sq.Unexpected) != 1 || sq.Unexpected[0].File != "r2_sqlite_safetynet.jsonl" || sq.Unexpected[0].Outcome != sqlgym.OutcomeWrong {
		t.Errorf("sqlite: %+v, want a fail for r2's outcome", sq)
	}
	if !dk.Pass || len(dk.Unexpected) != 0 {
		t.Errorf("duckdb: %+v, want a pass: r2 is SQLite's", dk)
	}
	code, out, _ := run(t, "bounds", "--redteam", dir, "--engines", "sqlite")
	if code != cmdkit.ExitError || !strings.Contains(out, "sqlite   FAIL") || !strings.Contains(out, "r2_sqlite_safetynet.jsonl line 1: wrong") {
		t.Errorf("exit %d, report:\n%s", code, out)
	}
}
