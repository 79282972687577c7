package sqlgym

import (
	"bytes"
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
