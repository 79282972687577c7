package sqlgym

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

func TestTaskRoundTripKeepsUnknownFields(t *testing.T) {
	in := `{"id":"a1","db":"shop","question":"How many?","sql":"SELECT 1","hardness":"easy","meta":{"x":[1,2]}}` + "\n"
	tasks, err := DecodeTasks(strings.NewReader(in), "t.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if len(tasks) != 1 || tasks[0].ID != "a1" || tasks[0].Question != "How many?" {
		t.Fatalf("decoded %+v", tasks)
	}
	tasks[0].Split = SplitHoldout
	var out bytes.Buffer
	if err := WriteTasks(&out, tasks); err != nil {
		t.Fatal(err)
	}
	want := `{"id":"a1","db":"shop","question":"How many?","sql":"SELECT 1","split":"holdout","hardness":"easy","meta":{"x":[1,2]}}` + "\n"
	if out.String() != want {
		t.Fatalf("round trip:\n got %s\nwant %s", out.String(), want)
	}
}

func TestDecodeTasksErrorsNameFileAndLine(t *testing.T) {
	cases := []struct{ in, want string }{
		{`{"id":"a","db":"d","sql":"x"}` + "\n" + `{"id":"a","db":"d","sql":"y"}`, `t.jsonl:2: duplicate task id "a" (first on line 1)`},
		{"\n\n{nope", "t.jsonl:3: not a JSON task object"},
		{`{"db":"d","sql":"x"}`, `t.jsonl:1: missing "id"`},
		{`{"id":"a","sql":"x"}`, `t.jsonl:1: task "a": missing "db"`},
		{`{"id":"a","db":"d"}`, `t.jsonl:1: task "a": missing "sql"`},
		{`{"id":"a","db":"d","sql":"x","split":"test"}`, `t.jsonl:1: task "a": split "test" is not`},
	}
	for _, c := range cases {
		_, err := DecodeTasks(strings.NewReader(c.in), "t.jsonl")
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("input %q: error %v, want prefix %q", c.in, err, c.want)
		}
	}
}

// A line of the wrong JSON shape is told in the file's terms, never with
// Go's type names (sqlgym.plain, struct field plain.sql).
func TestDecodeTasksErrorsHaveNoGoInternals(t *testing.T) {
	cases := []struct{ in, want string }{
		{`[{"id":"a"}]`, `t.jsonl:1: not a JSON task object: the line is a JSON array, not an object`},
		{`{"id":"a","db":"d","sql":["x"]}`, `t.jsonl:1: not a JSON task object: "sql" is a JSON array, want a string`},
		{`{"id":"a","db":"d","sql":"x","ignore_order":"yes"}`, `t.jsonl:1: not a JSON task object: "ignore_order" is a JSON string, want true or false`},
	}
	for _, c := range cases {
		_, err := DecodeTasks(strings.NewReader(c.in), "t.jsonl")
		if err == nil || err.Error() != c.want || strings.Contains(err.Error(), "Go ") {
			t.Errorf("input %q: error %v, want %q", c.in, err, c.want)
		}
		var ue *UserError
		if !errors.As(err, &ue) || !strings.Contains(ue.Hint, `"sql"`) {
			t.Errorf("input %q: no hint showing a task line: %v", c.in, err)
		}
	}
}

func TestGoldForPicksTheEnginesGold(t *testing.T) {
	line := `{"id":"a","db":"shop","sql":"SELECT julianday(x)","gold_sql_by_dialect":{"postgres":"SELECT EXTRACT(EPOCH FROM x)"},"alternatives":["SELECT 2"]}`
	ts, err := DecodeTasks(strings.NewReader(line+"\n"), "t")
	if err != nil {
		t.Fatal(err)
	}
	tk := ts[0]
	if tk.Extra != nil {
		t.Fatalf("gold_sql_by_dialect kept as an unknown field: %v", tk.Extra)
	}
	if g := tk.GoldFor(DialectPostgres); g != "SELECT EXTRACT(EPOCH FROM x)" {
		t.Fatalf("postgres gold %q", g)
	}
	if g := tk.GoldFor(DialectDuckDB); g != tk.SQL {
		t.Fatalf("an engine the map does not list gets %q, want sql", g)
	}
	if gs := tk.GoldsFor(DialectPostgres); len(gs) != 2 || gs[1] != "SELECT 2" {
		t.Fatalf("golds %q", gs)
	}
	var b strings.Builder
	if err := WriteTasks(&b, ts); err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(b.String()) != `{"id":"a","db":"shop","question":"","sql":"SELECT julianday(x)","alternatives":["SELECT 2"],"gold_sql_by_dialect":{"postgres":"SELECT EXTRACT(EPOCH FROM x)"}}` {
		t.Fatalf("round trip: %s", b.String())
	}
}

// A task file saved with a UTF-8 byte-order mark reads like one without
// (issue 26: "invalid character 'ï'").
func TestTaskFileWithBOM(t *testing.T) {
	in := "\xef\xbb\xbf" + `{"id":"a","db":"shop","question":"q","sql":"SELECT 1"}` + "\n"
	tasks, err := DecodeTasks(strings.NewReader(in), "bom.jsonl")
	if err != nil || len(tasks) != 1 || tasks[0].ID != "a" {
		t.Fatalf("tasks %+v, err %v", tasks, err)
	}
}
