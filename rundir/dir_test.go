package rundir

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym"
)

func TestAppendResumeAfterTornLine(t *testing.T) {
	dir := t.TempDir()
	a, prev, err := OpenAppender(dir)
	if err != nil || len(prev) != 0 {
		t.Fatalf("fresh run: %v %v", prev, err)
	}
	for i := 0; i < 3; i++ {
		if err := a.Append(&Sample{TaskID: "t1", Sample: i, Verdict: sqlgym.Verdict{Outcome: sqlgym.OutcomeCorrect}}); err != nil {
			t.Fatal(err)
		}
	}
	a.Close()
	// A kill -9 mid-write leaves half a line.
	path := filepath.Join(dir, SamplesFile)
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"task_id":"t1","sample":3,"outc`)
	f.Close()

	got, err := ReadSamples(dir)
	if err != nil || len(got) != 3 {
		t.Fatalf("read with a torn tail: %d samples, %v", len(got), err)
	}
	a, prev, err = OpenAppender(dir)
	if err != nil || len(prev) != 3 {
		t.Fatalf("resume: %d samples, %v", len(prev), err)
	}
	if err := a.Append(&Sample{TaskID: "t1", Sample: 3, Verdict: sqlgym.Verdict{Outcome: sqlgym.OutcomeWrong}}); err != nil {
		t.Fatal(err)
	}
	a.Close()
	b, _ := os.ReadFile(path)
	if strings.Contains(string(b), `"outc{`) || strings.Count(string(b), "\n") != 4 {
		t.Fatalf("the torn line was not cut before appending:\n%s", b)
	}
	got, err = ReadSamples(dir)
	if err != nil || len(got) != 4 || got[3].Outcome != sqlgym.OutcomeWrong {
		t.Fatalf("after resume: %+v %v", got, err)
	}
}

func TestDuplicateKeyCountsOnce(t *testing.T) {
	dir := t.TempDir()
	a, _, _ := OpenAppender(dir)
	a.Append(&Sample{TaskID: "t", Sample: 0, Verdict: sqlgym.Verdict{Outcome: sqlgym.OutcomeInfraError}})
	a.Append(&Sample{TaskID: "t", Sample: 0, Verdict: sqlgym.Verdict{Outcome: sqlgym.OutcomeCorrect}})
	a.Close()
	got, _ := ReadSamples(dir)
	if len(got) != 1 || got[0].Outcome != sqlgym.OutcomeCorrect {
		t.Fatalf("got %+v", got)
	}
}

func TestDamagedMiddleLineIsAnError(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, SamplesFile), []byte("{\"task_id\":\"a\",\"sample\":0}\nnot json\n{\"task_id\":\"b\",\"sample\":0}\n"), 0o644)
	if _, err := ReadSamples(dir); err == nil || !strings.Contains(err.Error(), ":2:") {
		t.Fatalf("damage not reported with its line: %v", err)
	}
}

func TestSummaryJSONKeys(t *testing.T) {
	s := Summary{Tasks: 2, K: 4, Metrics: map[string]Metric{"pass@1": {0.5, [2]float64{0.25, 0.75}}, "pass@4": {1, [2]float64{1, 1}}, "pass^4": {0, [2]float64{0, 0}}}, Outcomes: map[string]int{"correct": 4}}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	json.Unmarshal(b, &m)
	for _, k := range []string{"tasks", "k", "pass@1", "pass@4", "pass^4", "outcomes"} {
		if _, ok := m[k]; !ok {
			t.Fatalf("summary.json lacks %q: %s", k, b)
		}
	}
	var back Summary
	if err := json.Unmarshal(b, &back); err != nil || back.Metrics["pass@1"].CI[1] != 0.75 || back.K != 4 {
		t.Fatalf("round trip: %+v %v", back, err)
	}
}
