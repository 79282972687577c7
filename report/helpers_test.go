package report

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/rundir"
)

// task is a constructed task: its outcomes, one per sample, in order.
type task struct {
	id, db   string
	outcomes []sqlgym.Outcome
}

// right builds k outcomes with the first c correct and the rest wrong.
func right(c, k int) []sqlgym.Outcome {
	out := make([]sqlgym.Outcome, k)
	for i := range out {
		out[i] = sqlgym.OutcomeWrong
		if i < c {
			out[i] = sqlgym.OutcomeCorrect
		}
	}
	return out
}

func manifest(k int) rundir.Manifest {
	return rundir.Manifest{
		SqlgymVersion: "test", TasksHash: "th-1111222233334444", TaskCount: 0,
		DBDigests: map[string]string{"shop": "d1", "zoo": "d2"}, Policy: "model", Model: "tiny-model",
		Decoding: rundir.Decoding{K: k, Temperature: 0.7}, Mode: "multiset", Rewards: "default",
		Started: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC), ConfigHash: "cfg",
	}
}

func samplesOf(tasks []task) []rundir.Sample {
	var out []rundir.Sample
	for _, tk := range tasks {
		for i, o := range tk.outcomes {
			s := rundir.Sample{TaskID: tk.id, Sample: i, DB: tk.db, Verdict: sqlgym.Verdict{Outcome: o, SQL: "SELECT " + tk.id}}
			switch o {
			case sqlgym.OutcomeWrong:
				s.Why = "row_count"
			case sqlgym.OutcomeError:
				s.ErrorKind = "no_such_column"
			}
			out = append(out, s)
		}
	}
	return out
}

// writeRun writes a run folder with rundir's own writers and returns it.
func writeRun(t *testing.T, dir string, m rundir.Manifest, samples []rundir.Sample) string {
	t.Helper()
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
	for i := range samples {
		if err := a.Append(&samples[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	return dir
}

func load(t *testing.T, dir string) *Run {
	t.Helper()
	r, err := Load(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func near(a, b float64) bool { return a-b < 1e-12 && b-a < 1e-12 }

func createFile(path string) (*os.File, error) { return os.Create(path) }
