package rundir

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/failure"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the current output")

// goldenSamples are samples with every field of the file format set
// (a wrong single-turn answer judged on a variant, an agent episode) and
// with the fewest (a correct answer: no detail, no previews).
func goldenSamples() []Sample {
	reward, one := 0.1, 1.0
	var wrong Sample
	wrong.TaskID, wrong.Sample, wrong.DB, wrong.PromptHash = "shop_007", 2, "shop", "sha256:ab12"
	wrong.Completion, wrong.Reasoning, wrong.FinishReason = "```sql\nSELECT name FROM customers\n```", "think <b>", "stop"
	wrong.SQL, wrong.Outcome, wrong.Reward = "SELECT name FROM customers", sqlgym.OutcomeWrong, &reward
	wrong.Detail, wrong.ErrorKind, wrong.Why = `2 rows, gold has 3 "detail":""`, "other", "missing_rows"
	wrong.Gold = "SELECT name FROM customers WHERE city = 'Paris'"
	wrong.PredPreview = &sqlgym.Preview{Columns: []string{"name"}, Rows: [][]string{{"Ann"}, {"NULL"}}}
	wrong.GoldPreview = &sqlgym.Preview{Columns: []string{"name"}, Rows: [][]string{{"Ann"}}, More: true}
	wrong.Failure = &failure.Failure{Class: failure.MissingRows, Detail: "1 gold row missing", Rows: failure.RelSubset}
	wrong.Variant = "sqlite:/tmp/v/shop_v1.sqlite"
	wrong.LatencyMS, wrong.PromptTokens, wrong.CompletionTokens = 1234, 456, 78

	var episode Sample
	episode.TaskID, episode.Sample, episode.PromptHash = "shop_008", 0, "sha256:cd34"
	episode.Completion, episode.SQL = "done", "SELECT 1"
	episode.Outcome, episode.Reward = sqlgym.OutcomeCorrect, &one
	episode.Trajectory = []Turn{
		{sqlgym.Message{Role: "assistant", ToolCalls: []sqlgym.ToolCall{{ID: "c1", Name: "run_sql", Arguments: `{"sql":"SELECT 1"}`}}}},
		{sqlgym.Message{Role: "tool", Content: "1 row", ToolCallID: "c1", Name: "run_sql"}},
		{sqlgym.Message{Role: "assistant", Content: "done", ToolCalls: []sqlgym.ToolCall{{Name: "submit", Arguments: "{"}}}},
	}
	episode.Extra = map[string]any{"agent_turns": 2, "agent_submitted": true}

	// A correct answer: the verdict's empty detail is left out of the file.
	var correct Sample
	correct.TaskID, correct.Completion, correct.SQL = "shop_001", "SELECT 1", "SELECT 1"
	correct.Outcome, correct.Reward = sqlgym.OutcomeCorrect, &one

	// A truncated reply: reward null.
	var cut Sample
	cut.TaskID, cut.Sample, cut.Outcome, cut.FinishReason = "shop_002", 1, sqlgym.OutcomeTruncated, "length"
	return []Sample{wrong, episode, correct, cut}
}

// samples.jsonl is a file format: these bytes are what the appender
// writes, so a change of the Go types behind a sample cannot change one.
func TestSamplesFileGolden(t *testing.T) {
	dir := t.TempDir()
	a, _, err := OpenAppender(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range goldenSamples() {
		if err := a.Append(&s); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(dir, SamplesFile))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", "samples.golden.jsonl")
	if *update || os.Getenv("SQLGYM_UPDATE_GOLDEN") == "1" {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -run %s -update writes it)", err, t.Name())
	}
	if !bytes.Equal(got, want) {
		t.Errorf("samples.jsonl differs from %s (the run file format changed):\n got %s\nwant %s", path, got, want)
	}
}

// A run written by an earlier release (testdata/old_run, written before
// the verdict became one type) still reads, field by field, and a sample
// read and appended again comes out byte for byte as it was.
func TestOldRunSamplesRead(t *testing.T) {
	old := filepath.Join("testdata", "old_run", SamplesFile)
	want, err := os.ReadFile(old)
	if err != nil {
		t.Fatal(err)
	}
	got, err := ReadSamples(filepath.Dir(old))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 4 {
		t.Fatalf("%d samples read from %s, want 4", len(got), old)
	}
	w := got[0]
	if w.TaskID != "shop_007" || w.Outcome != sqlgym.OutcomeWrong || w.Reward == nil || *w.Reward != 0.1 ||
		w.ErrorKind != "other" || w.Why != "missing_rows" || w.Variant == "" ||
		w.PredPreview == nil || len(w.PredPreview.Rows) != 2 || w.PredPreview.Rows[1][0] != "NULL" ||
		w.GoldPreview == nil || !w.GoldPreview.More || w.Failure == nil || w.Failure.Class != failure.MissingRows ||
		w.Failure.Rows != failure.RelSubset || w.LatencyMS != 1234 {
		t.Errorf("old wrong sample read as %+v", w)
	}
	if e := got[1]; len(e.Trajectory) != 2 || e.Trajectory[0].ToolCalls[0].Arguments != `{"sql":"SELECT 1"}` ||
		e.Trajectory[1].ToolCallID != "c1" || e.Extra["agent_submitted"] != true {
		t.Errorf("old episode sample read as %+v", e)
	}
	if c := got[3]; c.Outcome != sqlgym.OutcomeTruncated || c.Reward != nil || c.Detail != "" {
		t.Errorf("old truncated sample read as %+v", c)
	}

	dir := t.TempDir()
	a, _, err := OpenAppender(dir)
	if err != nil {
		t.Fatal(err)
	}
	for i := range got {
		if err := a.Append(&got[i]); err != nil {
			t.Fatal(err)
		}
	}
	a.Close()
	again, err := os.ReadFile(filepath.Join(dir, SamplesFile))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again, want) {
		t.Errorf("old samples written again differ:\n got %s\nwant %s", again, want)
	}
}

// An empty detail is cut from the line, and only the key: an answer whose
// text holds the same characters keeps them.
func TestEmptyDetailCutOnlyAsKey(t *testing.T) {
	var s Sample
	s.TaskID, s.Completion, s.SQL = "t", `{"a":1,"detail":""}`, `SELECT ',"detail":""'`
	s.Outcome = sqlgym.OutcomeCorrect
	b, err := s.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(b, []byte(`"detail":"",`)) || bytes.Count(b, []byte(`detail`)) != 2 {
		t.Errorf("marshalled as %s", b)
	}
	var back Sample
	if err := json.Unmarshal(b, &back); err != nil || back.Completion != s.Completion || back.SQL != s.SQL {
		t.Errorf("read back as %+v (%v) from %s", back, err, b)
	}
}
