package report

import (
	"path/filepath"
	"testing"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/failure"
	"github.com/sqlgym/sqlgym/rundir"
)

// Hand-computed: task a fails twice with wrong_grain in the base and is
// right twice in the treatment (fixed); task b fails with missing_column
// once in the base and once in the treatment (not fixed).
func TestCompareFailureClassesFixed(t *testing.T) {
	root := t.TempDir()
	fail := func(id string, n int, c failure.Class) rundir.Sample {
		return rundir.Sample{TaskID: id, Sample: n, Verdict: sqlgym.Verdict{SQL: "SELECT " + id, Outcome: sqlgym.OutcomeWrong, Failure: &failure.Failure{Class: c}}}
	}
	ok := func(id string, n int) rundir.Sample {
		return rundir.Sample{TaskID: id, Sample: n, Verdict: sqlgym.Verdict{SQL: "SELECT 1", Outcome: sqlgym.OutcomeCorrect}}
	}
	base := load(t, writeRun(t, filepath.Join(root, "base"), manifest(2), []rundir.Sample{
		fail("a", 0, failure.WrongGrain), fail("a", 1, failure.WrongGrain), fail("b", 0, failure.MissingColumn), ok("b", 1)}))
	treat := load(t, writeRun(t, filepath.Join(root, "treat"), manifest(2), []rundir.Sample{
		ok("a", 0), ok("a", 1), ok("b", 0), fail("b", 1, failure.MissingColumn)}))
	c, err := Compare([]*Run{base}, []*Run{treat}, CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := []ClassDelta{
		{Class: "wrong_grain", Base: 0.5, Treat: 0, BaseTasks: 1, Fixed: 1},
		{Class: "missing_column", Base: 0.25, Treat: 0.25, BaseTasks: 1, Fixed: 0},
	}
	if len(c.Classes) != len(want) {
		t.Fatalf("classes %+v", c.Classes)
	}
	for i, w := range want {
		if g := c.Classes[i]; g.Class != w.Class || !near(g.Base, w.Base) || !near(g.Treat, w.Treat) || g.BaseTasks != w.BaseTasks || g.Fixed != w.Fixed {
			t.Errorf("class %d: %+v, want %+v", i, g, w)
		}
	}
}
