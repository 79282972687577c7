package report

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/failure"
	"github.com/sqlgym/sqlgym/rundir"
)

// One task's identical SQL (up to case and spacing) is one failure listing
// its samples, whatever outcome each sample got; another SQL of the same
// task, or the same SQL of another task, is another failure. The classes
// count samples and tasks, and take their examples from distinct tasks.
func TestFailuresByTaskAndDistinctSQL(t *testing.T) {
	root := t.TempDir()
	cls := func(c failure.Class) *failure.Failure { return &failure.Failure{Class: c, Detail: string(c)} }
	samples := []rundir.Sample{
		{TaskID: "a", Sample: 0, Verdict: sqlgym.Verdict{SQL: "SELECT x FROM t", Outcome: sqlgym.OutcomeWrong, Failure: cls(failure.ExtraRows)}},
		{TaskID: "a", Sample: 1, Verdict: sqlgym.Verdict{SQL: "select  x\nfrom t", Outcome: sqlgym.OutcomeWrong, Failure: cls(failure.ExtraRows)}},
		{TaskID: "a", Sample: 2, Verdict: sqlgym.Verdict{SQL: "SELECT x FROM t", Outcome: sqlgym.OutcomeTimeout, Failure: cls(failure.Timeout)}},
		{TaskID: "a", Sample: 3, Verdict: sqlgym.Verdict{SQL: "SELECT y FROM t", Outcome: sqlgym.OutcomeWrong, Failure: cls(failure.ExtraRows)}},
		{TaskID: "b", Sample: 0, Verdict: sqlgym.Verdict{SQL: "SELECT x FROM t", Outcome: sqlgym.OutcomeWrong, Failure: cls(failure.ExtraRows)}},
		{TaskID: "b", Sample: 1, Verdict: sqlgym.Verdict{SQL: "SELECT 1", Outcome: sqlgym.OutcomeCorrect}},
	}
	r := load(t, writeRun(t, filepath.Join(root, "run"), manifest(4), samples))
	type got struct {
		task    string
		samples []int
	}
	var gs []got
	for _, f := range r.Failures {
		gs = append(gs, got{f.TaskID, f.Samples})
	}
	want := []got{{"a", []int{0, 1, 2}}, {"a", []int{3}}, {"b", []int{0}}}
	if !slices.EqualFunc(gs, want, func(x, y got) bool { return x.task == y.task && slices.Equal(x.samples, y.samples) }) {
		t.Fatalf("failures %v, want %v", gs, want)
	}
	if len(r.Classes) != 2 || r.Classes[0].Class != string(failure.ExtraRows) || r.Classes[0].Samples != 4 || r.Classes[0].Tasks != 2 {
		t.Fatalf("classes %+v", r.Classes)
	}
	ex := r.Classes[0].Examples
	if len(ex) != 2 || ex[0].TaskID != "a" || ex[1].TaskID != "b" {
		t.Fatalf("examples from distinct tasks: %+v", ex)
	}
	if r.Summary.Failures[string(failure.Timeout)] != 1 || r.Summary.Failures[string(failure.ExtraRows)] != 4 {
		t.Fatalf("summary failures %v", r.Summary.Failures)
	}
}
