package report

import (
	"encoding/json"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/rundir"
	"github.com/sqlgym/sqlgym/stats"
)

func TestSummarizeHandComputed(t *testing.T) {
	// 4 tasks x k=4 with c = 4, 2, 1, 0.
	samples := samplesOf([]task{
		{"t1", "shop", right(4, 4)}, {"t2", "shop", right(2, 4)},
		{"t3", "zoo", right(1, 4)}, {"t4", "zoo", right(0, 4)},
	})
	s := Summarize(nil, samples, 4)
	// pass@1 = (1 + .5 + .25 + 0)/4; pass@4 = 1 - C(4-c,4)/C(4,4): 1,1,1,0;
	// pass^4 = C(c,4)/C(4,4): 1,0,0,0.
	for key, want := range map[string]float64{"pass@1": 0.4375, "pass@4": 0.75, "pass^4": 0.25} {
		m, ok := s.Metrics[key]
		if !ok || !near(m.Value, want) {
			t.Errorf("%s = %+v, want %v", key, m, want)
		}
		if !(m.CI[0] <= m.Value && m.Value <= m.CI[1]) {
			t.Errorf("%s interval %v does not hold %v", key, m.CI, m.Value)
		}
	}
	if s.Tasks != 4 || s.Samples != 16 || s.Missing != 0 || s.K != 4 || !s.Unreplicated {
		t.Errorf("counts %+v", s)
	}
	if !reflect.DeepEqual(s.Histogram, []int{1, 1, 1, 0, 1}) {
		t.Errorf("histogram %v, want [1 1 1 0 1]", s.Histogram)
	}
	if s.Outcomes["correct"] != 7 || s.Outcomes["wrong"] != 9 || s.WrongWhy["row_count"] != 9 {
		t.Errorf("outcomes %v why %v", s.Outcomes, s.WrongWhy)
	}
	if s.ByDB["shop"].Tasks != 2 || !near(s.ByDB["shop"].Pass1, 0.75) || !near(s.ByDB["zoo"].Pass1, 0.125) {
		t.Errorf("by db %+v", s.ByDB)
	}
	// The intervals are stats' with the fixed seed, nothing of our own.
	st, err := stats.Summarize([]stats.TaskCounts{{N: 4, C: 4}, {N: 4, C: 2}, {N: 4, C: 1}, {N: 4, C: 0}}, 4, Resamples, Seed)
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Metrics["pass@1"].CI; got != [2]float64{st.PassAt1.Lo, st.PassAt1.Hi} {
		t.Errorf("pass@1 interval %v, stats gives %v", got, st.PassAt1)
	}
}

func TestUnscoredSamplesAreMissingNotWrong(t *testing.T) {
	samples := samplesOf([]task{
		{"a", "shop", []sqlgym.Outcome{"correct", "correct", "correct", "infra_error"}},
		{"b", "shop", []sqlgym.Outcome{"gold_error", "gold_error", "gold_error", "gold_error"}},
		{"c", "shop", []sqlgym.Outcome{"wrong", "error", "timeout", "correct"}},
	})
	tasks := []sqlgym.Task{{ID: "a", DB: "shop"}, {ID: "b", DB: "shop"}, {ID: "c", DB: "shop"}, {ID: "d", DB: "shop", Complexity: "hard"}}
	s := Summarize(tasks, samples, 4)
	// a: n=3 c=3 (1 missing); b: nothing scored (4 missing); c: n=4 c=1;
	// d: no sample at all (4 missing).
	if s.Tasks != 2 || s.Samples != 7 || s.Missing != 9 {
		t.Fatalf("tasks %d samples %d missing %d, want 2, 7, 9", s.Tasks, s.Samples, s.Missing)
	}
	if m := s.Metrics["pass@1"]; !near(m.Value, (1+0.25)/2) {
		t.Fatalf("pass@1 %v: an infra error was counted as wrong", m.Value)
	}
	// Only c has 4 scored samples, so pass@4 is c's alone.
	if m := s.Metrics["pass@4"]; !near(m.Value, 1) {
		t.Fatalf("pass@4 %v, want 1 (task a has 3 scored samples and is left out)", m.Value)
	}
	if s.Outcomes["infra_error"] != 1 || s.Outcomes["gold_error"] != 4 || s.ErrorKinds["no_such_column"] != 1 {
		t.Fatalf("outcomes %v kinds %v", s.Outcomes, s.ErrorKinds)
	}
	if s.ByComplexity != nil {
		t.Fatalf("by complexity %v: the only task with a complexity has no sample", s.ByComplexity)
	}
}

func TestSummarizeIgnoresSampleOrderAndOtherTasks(t *testing.T) {
	var tasks []task
	for i := range 30 {
		tasks = append(tasks, task{string(rune('a'+i%26)) + string(rune('a'+i/26)), "shop", right(i%5, 4)})
	}
	samples := samplesOf(tasks)
	want := Summarize(nil, samples, 4)
	shuffled := append([]rundir.Sample(nil), samples...)
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	got := Summarize(nil, shuffled, 4)
	if !reflect.DeepEqual(want, got) {
		t.Fatalf("sample order changed the summary:\n%+v\n%+v", want, got)
	}
	// Given tasks fix the set: samples of other tasks are not counted.
	only := Summarize([]sqlgym.Task{{ID: tasks[0].id}, {ID: tasks[1].id}}, samples, 4)
	if only.Tasks != 2 || only.Samples != 8 {
		t.Fatalf("given tasks did not fix the set: %+v", only)
	}
}

func TestSummaryJSONHasMetricKeys(t *testing.T) {
	s := Summarize(nil, samplesOf([]task{{"a", "shop", right(1, 2)}, {"b", "shop", right(2, 2)}}), 2)
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]json.RawMessage
	json.Unmarshal(b, &m)
	for _, k := range []string{"pass@1", "pass@2", "pass^2", "tasks", "missing", "histogram"} {
		if _, ok := m[k]; !ok {
			t.Errorf("summary.json lacks %q: %s", k, b)
		}
	}
}

func TestNoScoredTaskHasNoMetrics(t *testing.T) {
	s := Summarize(nil, samplesOf([]task{{"a", "shop", []sqlgym.Outcome{"infra_error"}}}), 1)
	if len(s.Metrics) != 0 || s.Tasks != 0 || s.Missing != 1 {
		t.Fatalf("%+v", s)
	}
	if _, err := json.Marshal(s); err != nil {
		t.Fatalf("an empty summary must still encode: %v", err)
	}
}

func TestLoadReadsTasksFileAndStoredSummary(t *testing.T) {
	root := t.TempDir()
	tasksPath := filepath.Join(root, "tasks.jsonl")
	writeTasks(t, tasksPath, []sqlgym.Task{
		{ID: "t1", DB: "shop", Question: "How many?", SQL: "SELECT count(*) FROM orders", Complexity: "easy"},
		{ID: "t2", DB: "shop", Question: "Which?", SQL: "SELECT name FROM products", Complexity: "hard"},
		{ID: "t3", DB: "zoo", Question: "Other split", SQL: "SELECT 1", Complexity: "hard"},
	})
	m := manifest(2)
	m.TasksFile, m.TaskCount = tasksPath, 3
	samples := samplesOf([]task{{"t1", "shop", right(2, 2)}, {"t2", "shop", right(0, 2)}})
	dir := writeRun(t, filepath.Join(root, "run"), m, samples)
	r := load(t, dir)
	if !r.TasksFileRead || r.Summary.ByComplexity["easy"].Tasks != 1 || !near(r.Summary.ByComplexity["hard"].Pass1, 0) {
		t.Fatalf("complexity from the tasks file: %+v", r.Summary.ByComplexity)
	}
	// t3 is promised by the manifest but has no sample: k missing.
	if r.AbsentTasks != 1 || r.Summary.Missing != 2 {
		t.Fatalf("absent %d missing %d", r.AbsentTasks, r.Summary.Missing)
	}
	// Both samples of t2 wrote the same SQL: one failure, both samples.
	if len(r.Failures) != 1 || !slices.Equal(r.Failures[0].Samples, []int{0, 1}) || r.Failures[0].Gold != "SELECT name FROM products" || r.Failures[0].Question != "Which?" {
		t.Fatalf("failures %+v", r.Failures)
	}
	if len(r.Notes) != 0 {
		t.Fatalf("notes %v", r.Notes)
	}
	// A stored summary that disagrees is noted; one that agrees is not.
	bad := r.Summary
	bad.Metrics = map[string]rundir.Metric{"pass@1": {Value: 0.9}}
	rundir.WriteJSON(filepath.Join(dir, rundir.SummaryFile), bad)
	if r2 := load(t, dir); r2.Stored == nil || len(r2.Notes) != 1 {
		t.Fatalf("disagreeing summary.json not noted: %v", r2.Notes)
	}
	rundir.WriteJSON(filepath.Join(dir, rundir.SummaryFile), Summarize(nil, samples, 2))
	if r3 := load(t, dir); len(r3.Notes) != 0 {
		t.Fatalf("agreeing summary.json noted: %v", r3.Notes)
	}
}

func TestLoadWithoutTasksFileSkipsComplexity(t *testing.T) {
	m := manifest(1)
	m.TasksFile = filepath.Join(t.TempDir(), "gone.jsonl")
	dir := writeRun(t, filepath.Join(t.TempDir(), "run"), m, samplesOf([]task{{"t1", "shop", right(1, 1)}}))
	r := load(t, dir)
	if r.TasksFileRead || r.Summary.ByComplexity != nil || len(r.Notes) != 1 {
		t.Fatalf("read %v complexity %v notes %v", r.TasksFileRead, r.Summary.ByComplexity, r.Notes)
	}
}

func TestLoadNotARun(t *testing.T) {
	if _, err := Load(t.TempDir(), nil); err == nil {
		t.Fatal("a folder without manifest.json loaded")
	}
}

func writeTasks(t *testing.T, path string, tasks []sqlgym.Task) {
	t.Helper()
	f, err := createFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := sqlgym.WriteTasks(f, tasks); err != nil {
		t.Fatal(err)
	}
}
