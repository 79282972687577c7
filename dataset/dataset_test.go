package dataset_test

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/catalog"
	"github.com/sqlgym/sqlgym/dataset"
	"github.com/sqlgym/sqlgym/prompt"
	"github.com/sqlgym/sqlgym/rundir"
	"github.com/sqlgym/sqlgym/schema"
)

func samples(task string, outcomes ...sqlgym.Outcome) []rundir.Sample {
	var out []rundir.Sample
	for i, o := range outcomes {
		out = append(out, rundir.Sample{TaskID: task, Sample: i, Verdict: sqlgym.Verdict{Outcome: o}})
	}
	return out
}

func TestBand(t *testing.T) {
	tasks := []sqlgym.Task{
		{ID: "a", DB: "shop", SQL: "SELECT 1", Extra: map[string]json.RawMessage{"hardness": []byte(`"easy"`)}},
		{ID: "b", DB: "shop", SQL: "SELECT 2"},
		{ID: "c", DB: "shop", SQL: "SELECT 3"},
		{ID: "d", DB: "shop", SQL: "SELECT 4"},
		{ID: "e", DB: "shop", SQL: "SELECT 5"},
		{ID: "notrun", DB: "shop", SQL: "SELECT 6"},
	}
	C, W, T, I := sqlgym.OutcomeCorrect, sqlgym.OutcomeWrong, sqlgym.OutcomeTruncated, sqlgym.OutcomeInfraError
	var ss []rundir.Sample
	ss = append(ss, samples("a", C, W, C, T)...) // 2 of 4: in the band
	ss = append(ss, samples("b", C, C, C, I)...) // infra not scored: always right
	ss = append(ss, samples("c", W, T, W, W)...) // truncated counts as not right
	ss = append(ss, samples("d", I, I)...)       // nothing scored
	ss = append(ss, samples("e", W, C, I)...)    // 1 of 2
	band, st, err := dataset.Band(tasks, ss)
	if err != nil {
		t.Fatal(err)
	}
	want := dataset.BandStats{Tasks: 5, Band: 2, AlwaysRight: 1, AlwaysWrong: 1, Unscored: 1, SamplesTotal: 17}
	if st != want {
		t.Fatalf("stats %+v, want %+v", st, want)
	}
	if len(band) != 2 || band[0].ID != "a" || band[1].ID != "e" {
		t.Fatalf("band %+v", band)
	}
	if r, ok := dataset.PassRate(&band[0]); !ok || r != 0.5 {
		t.Fatalf("pass rate of a: %v %v", r, ok)
	}
	var buf bytes.Buffer
	if err := sqlgym.WriteTasks(&buf, band); err != nil {
		t.Fatal(err)
	}
	if line := strings.SplitN(buf.String(), "\n", 2)[0]; line != `{"id":"a","db":"shop","question":"","sql":"SELECT 1","hardness":"easy","pass_rate":0.5}` {
		t.Fatalf("band line: %s", line)
	}
	if _, ok := tasks[0].Extra["pass_rate"]; ok {
		t.Fatal("Band changed the caller's task")
	}
	if _, _, err := dataset.Band(tasks[:1], ss); err == nil || !strings.Contains(err.Error(), `"b"`) {
		t.Fatalf("samples of unknown tasks: %v", err)
	}
}

func TestSelectAndSplit(t *testing.T) {
	all := []sqlgym.Task{{ID: "a", Split: "train"}, {ID: "b", Split: "holdout"}, {ID: "c"}}
	sel, err := dataset.Select(all, []sqlgym.Task{{ID: "c", Extra: map[string]json.RawMessage{"pass_rate": []byte("0.25")}}, {ID: "a"}})
	if err != nil || len(sel) != 2 || sel[0].ID != "c" || sel[1].ID != "a" {
		t.Fatalf("%+v %v", sel, err)
	}
	if r, _ := dataset.PassRate(&sel[0]); r != 0.25 {
		t.Fatalf("pass rate not carried: %v", r)
	}
	if _, err := dataset.Select(all, []sqlgym.Task{{ID: "zz"}}); err == nil {
		t.Fatal("a band task missing from the task file was accepted")
	}
	keep, held := dataset.Split(all, false)
	if len(keep) != 2 || held != 1 {
		t.Fatalf("split: %+v held %d", keep, held)
	}
	if keep, held := dataset.Split(all, true); len(keep) != 3 || held != 0 {
		t.Fatalf("include holdout: %d %d", len(keep), held)
	}
}

func shopExamples(t *testing.T) ([]sqlgym.Task, []dataset.Example, string) {
	t.Helper()
	cat, err := catalog.New(catalog.Config{CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cat.Close() })
	tasks := []sqlgym.Task{
		{ID: "t1", DB: "shop", Question: "How many orders?", SQL: "SELECT count(*) FROM orders", Split: "train"},
		{ID: "t2", DB: "shop", Question: "Top order?", Evidence: "top means largest total", SQL: "SELECT max(total_amount) FROM orders",
			Extra: map[string]json.RawMessage{"pass_rate": []byte("0.375")}},
	}
	ctx := context.Background()
	exs, err := dataset.Render(ctx, cat, prompt.Default(), tasks)
	if err != nil {
		t.Fatal(err)
	}
	eng, _ := cat.Engine(ctx, "shop")
	sch, err := schema.Load(ctx, eng, prompt.SchemaSamples)
	if err != nil {
		t.Fatal(err)
	}
	schemaText := schema.Render(sch, schema.Options{})
	return tasks, exs, schemaText
}

// The export's prompt is exactly the one prompt renderer's output on the
// schema text evaluation uses.
func TestRenderUsesThePromptRenderer(t *testing.T) {
	tasks, exs, schemaText := shopExamples(t)
	if !strings.Contains(schemaText, "CREATE TABLE orders") || !strings.Contains(schemaText, "-- e.g.") {
		t.Fatalf("schema text lacks tables or sample values:\n%s", schemaText)
	}
	for i, ex := range exs {
		p, err := prompt.Default().Render(prompt.InputFor(&tasks[i], schemaText, sqlgym.DialectSQLite))
		if err != nil {
			t.Fatal(err)
		}
		if len(ex.Prompt) != len(p.Messages) || ex.PromptHash != p.Hash {
			t.Fatalf("task %s: %d messages hash %s, renderer %d hash %s", tasks[i].ID, len(ex.Prompt), ex.PromptHash, len(p.Messages), p.Hash)
		}
		for j, m := range p.Messages {
			if ex.Prompt[j].Role != m.Role || ex.Prompt[j].Content != m.Content {
				t.Fatalf("task %s message %d differs from the renderer's", tasks[i].ID, j)
			}
		}
	}
	if !strings.Contains(exs[1].Prompt[1].Content, "External knowledge: top means largest total") {
		t.Fatalf("evidence missing:\n%s", exs[1].Prompt[1].Content)
	}
}

func TestWriteTRL(t *testing.T) {
	_, exs, _ := shopExamples(t)
	var buf bytes.Buffer
	if err := dataset.WriteTRL(&buf, exs); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d lines", len(lines))
	}
	var rows []map[string]any
	for _, l := range lines {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatal(err)
		}
		rows = append(rows, m)
	}
	r := rows[1]
	if r["task_id"] != "t2" || r["db"] != "shop" || r["gold_sql"] != "SELECT max(total_amount) FROM orders" || r["split"] != "train" || r["pass_rate"] != 0.375 {
		t.Fatalf("row %v", r)
	}
	msgs := r["prompt"].([]any)
	if len(msgs) != 2 || msgs[0].(map[string]any)["role"] != "system" || msgs[1].(map[string]any)["content"] != exs[1].Prompt[1].Content {
		t.Fatalf("prompt %v", msgs)
	}
	if _, ok := rows[0]["pass_rate"]; ok {
		t.Fatal("pass_rate written for a task without one")
	}
}

// The verl Parquet file read back holds every field verl reads.
func TestWriteVerlReadsBack(t *testing.T) {
	_, exs, _ := shopExamples(t)
	path := filepath.Join(t.TempDir(), "train.parquet")
	if err := dataset.WriteVerl(path, exs); err != nil {
		t.Fatal(err)
	}
	rows, err := parquet.ReadFile[dataset.VerlRow](path)
	if err != nil {
		t.Fatal(err)
	}
	want := []dataset.VerlRow{
		{DataSource: "sqlgym", Prompt: exs[0].Prompt, Ability: "sql",
			RewardModel: dataset.VerlRewardModel{Style: "rule", GroundTruth: "SELECT count(*) FROM orders"},
			ExtraInfo:   dataset.VerlExtraInfo{Index: 0, TaskID: "t1", DB: "shop", Split: "train", PassRate: -1}},
		{DataSource: "sqlgym", Prompt: exs[1].Prompt, Ability: "sql",
			RewardModel: dataset.VerlRewardModel{Style: "rule", GroundTruth: "SELECT max(total_amount) FROM orders"},
			ExtraInfo:   dataset.VerlExtraInfo{Index: 1, TaskID: "t2", DB: "shop", Split: "train", PassRate: 0.375}},
	}
	if !reflect.DeepEqual(rows, want) {
		t.Fatalf("read back:\n%+v\nwant\n%+v", rows, want)
	}
	// The column layout pandas/pyarrow (verl's reader) expect: prompt a
	// LIST of structs, the others structs of named fields.
	r := bytesOf(t, path)
	f, err := parquet.OpenFile(r, r.Size())
	if err != nil {
		t.Fatal(err)
	}
	schema := f.Schema().String()
	for _, want := range []string{"data_source (STRING)", "prompt (LIST)", "reward_model {", "ground_truth (STRING)", "extra_info {", "task_id (STRING)"} {
		if !strings.Contains(schema, want) {
			t.Errorf("schema lacks %q:\n%s", want, schema)
		}
	}
}
