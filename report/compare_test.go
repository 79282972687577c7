package report

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/rundir"
	"github.com/sqlgym/sqlgym/stats"
)

// binaryRun writes a k=1 run of n tasks where the tasks listed in ok are
// right, tasks alternating between databases shop and zoo.
func binaryRun(t *testing.T, name string, n int, ok func(i int) bool, edit func(*rundir.Manifest)) *Run {
	t.Helper()
	var tasks []task
	for i := range n {
		c := 0
		if ok(i) {
			c = 1
		}
		tasks = append(tasks, task{fmt.Sprintf("q%03d", i), []string{"shop", "zoo"}[i%2], right(c, 1)})
	}
	m := manifest(1)
	if edit != nil {
		edit(&m)
	}
	return load(t, writeRun(t, filepath.Join(t.TempDir(), name), m, samplesOf(tasks)))
}

func TestCompareProvenGainWithMcNemar(t *testing.T) {
	// 40 tasks: base right on 10, treat on those and 20 more.
	base := binaryRun(t, "base", 40, func(i int) bool { return i < 10 }, nil)
	treat := binaryRun(t, "treat", 40, func(i int) bool { return i < 30 }, nil)
	c, err := Compare([]*Run{base}, []*Run{treat}, CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p1 := c.Pass1()
	if c.Tasks != 40 || !near(p1.Delta.Value, 0.5) || !near(c.Base.Pass1, 0.25) || !near(c.Treat.Pass1, 0.75) {
		t.Fatalf("tasks %d delta %v base %v treat %v", c.Tasks, p1.Delta, c.Base.Pass1, c.Treat.Pass1)
	}
	if c.Verdict != stats.VerdictGain || c.PMethod != MethodMcNemar || c.PValue != stats.McNemarExact(20, 0) {
		t.Fatalf("verdict %s, p %v by %s", c.Verdict, c.PValue, c.PMethod)
	}
	if !c.Unreplicated || !strings.Contains(c.VerdictLine(), "unreplicated") {
		t.Fatalf("one run a side must be marked: %q", c.VerdictLine())
	}
	if c.Improved != 20 || c.Worsened != 0 || c.Unchanged != 20 || len(c.Changes) != 20 {
		t.Fatalf("improved %d worsened %d unchanged %d", c.Improved, c.Worsened, c.Unchanged)
	}
	if len(c.Metrics) != 1 {
		t.Fatalf("k=1 must show pass@1 only, got %d metrics", len(c.Metrics))
	}
}

func TestCompareProvenLossAndNotProven(t *testing.T) {
	base := binaryRun(t, "base", 40, func(i int) bool { return i < 30 }, nil)
	worse := binaryRun(t, "worse", 40, func(i int) bool { return i < 10 }, nil)
	c, err := Compare([]*Run{base}, []*Run{worse}, CompareOptions{})
	if err != nil || c.Verdict != stats.VerdictLoss || c.Pass1().Delta.Hi >= 0 {
		t.Fatalf("loss: %+v %v", c, err)
	}
	// Two gained, two lost: no sign to prove.
	same := binaryRun(t, "same", 40, func(i int) bool { return (i < 30 && i != 0 && i != 1) || i == 30 || i == 31 }, nil)
	c, err = Compare([]*Run{base}, []*Run{same}, CompareOptions{})
	if err != nil || c.Verdict != stats.VerdictNotProven || !near(c.Pass1().Delta.Value, 0) || c.PValue != 1 {
		t.Fatalf("not proven: verdict %s delta %v p %v err %v", c.Verdict, c.Pass1().Delta, c.PValue, err)
	}
}

func TestCompareReplicatesAveragePerTask(t *testing.T) {
	// k=2. Base runs: per-task c = (2,0,1,1) and (2,0,0,1); treat runs:
	// (2,2,1,2) and (2,1,2,2).
	mk := func(name string, cs ...int) *Run {
		var tasks []task
		for i, c := range cs {
			tasks = append(tasks, task{fmt.Sprintf("t%d", i), "shop", right(c, 2)})
		}
		return load(t, writeRun(t, filepath.Join(t.TempDir(), name), manifest(2), samplesOf(tasks)))
	}
	b1, b2 := mk("b1", 2, 0, 1, 1), mk("b2", 2, 0, 0, 1)
	t1, t2 := mk("t1", 2, 2, 1, 2), mk("t2", 2, 1, 2, 2)
	c, err := Compare([]*Run{b1, b2}, []*Run{t1, t2}, CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// Per task base p = (1, 0, .25, .5), treat p = (1, .75, .75, 1).
	wantBase, wantTreat := (1+0+0.25+0.5)/4, (1+0.75+0.75+1)/4.0
	if !near(c.Base.Pass1, wantBase) || !near(c.Treat.Pass1, wantTreat) || !near(c.Pass1().Delta.Value, wantTreat-wantBase) {
		t.Fatalf("base %v treat %v delta %v", c.Base.Pass1, c.Treat.Pass1, c.Pass1().Delta.Value)
	}
	if c.Unreplicated || strings.Contains(c.VerdictLine(), "unreplicated") {
		t.Fatalf("two runs a side marked unreplicated: %q", c.VerdictLine())
	}
	if c.PMethod != stats.MethodSignFlipExact {
		t.Fatalf("rates that are not 0/1 need the sign-flip test, got %s", c.PMethod)
	}
	want, _ := stats.Paired([]float64{1, 0, 0.25, 0.5}, []float64{1, 0.75, 0.75, 1}, Resamples, Seed)
	if c.Pass1().Delta != want.Delta || c.PValue != want.PValue {
		t.Fatalf("delta %v p %v, stats.Paired gives %v %v", c.Pass1().Delta, c.PValue, want.Delta, want.PValue)
	}
	// pass@2 per task and run: 1 - C(2-c,2)/C(2,2) is 1 when c >= 1.
	// base (1,0,1,1),(1,0,0,1) -> (1,0,.5,1); treat all 1.
	if len(c.Metrics) != 3 || c.Metrics[1].Name != "pass@2" || !near(c.Metrics[1].Base, 2.5/4) || !near(c.Metrics[1].Treat, 1) {
		t.Fatalf("pass@2 %+v", c.Metrics[1:])
	}
	// pass^2 is 1 only at c = 2: base (1,0,0,0), treat (1,.5,.5,1).
	if c.Metrics[2].Name != "pass^2" || !near(c.Metrics[2].Base, 0.25) || !near(c.Metrics[2].Treat, 0.75) {
		t.Fatalf("pass^2 %+v", c.Metrics[2])
	}
}

func TestCompareRefusesMismatchUnlessAllowed(t *testing.T) {
	ok := func(i int) bool { return i%3 == 0 }
	base := binaryRun(t, "base", 20, ok, nil)
	for _, tc := range []struct {
		what string
		edit func(*rundir.Manifest)
	}{
		{"tasks hash", func(m *rundir.Manifest) { m.TasksHash = "other-hash" }},
		{"mode", func(m *rundir.Manifest) { m.Mode = "bird" }},
		{"database digests", func(m *rundir.Manifest) { m.DBDigests = map[string]string{"shop": "changed", "zoo": "d2"} }},
	} {
		treat := binaryRun(t, "treat", 20, ok, tc.edit)
		_, err := Compare([]*Run{base}, []*Run{treat}, CompareOptions{})
		var me *MismatchError
		if !errors.As(err, &me) || len(me.Mismatches) != 1 || me.Mismatches[0].What != tc.what {
			t.Fatalf("%s: err %v", tc.what, err)
		}
		c, err := Compare([]*Run{base}, []*Run{treat}, CompareOptions{AllowMismatch: true})
		if err != nil || len(c.Mismatches) != 1 || c.Tasks != 20 {
			t.Fatalf("%s allowed: %v %+v", tc.what, err, c)
		}
	}
	// A different task set: refused, then paired on the common tasks.
	fewer := binaryRun(t, "fewer", 15, ok, nil)
	_, err := Compare([]*Run{base}, []*Run{fewer}, CompareOptions{})
	if err == nil || !strings.Contains(err.Error(), "task set") {
		t.Fatalf("task set: %v", err)
	}
	c, err := Compare([]*Run{base}, []*Run{fewer}, CompareOptions{AllowMismatch: true})
	if err != nil || c.Tasks != 15 || c.Dropped != 5 {
		t.Fatalf("common tasks: %v %+v", err, c)
	}
	// Replicates on one side are checked against each other too.
	other := binaryRun(t, "other", 20, ok, func(m *rundir.Manifest) { m.Mode = "strict" })
	_, err = Compare([]*Run{base, other}, []*Run{base}, CompareOptions{})
	if err == nil || !strings.Contains(err.Error(), "base/base") {
		t.Fatalf("replicate mismatch: %v", err)
	}
}

func TestCompareClusterByDB(t *testing.T) {
	base := binaryRun(t, "base", 40, func(i int) bool { return i < 10 }, nil)
	treat := binaryRun(t, "treat", 40, func(i int) bool { return i < 30 }, nil)
	plain, _ := Compare([]*Run{base}, []*Run{treat}, CompareOptions{})
	c, err := Compare([]*Run{base}, []*Run{treat}, CompareOptions{ClusterByDB: true})
	if err != nil {
		t.Fatal(err)
	}
	p1 := c.Pass1()
	if len(c.Notes) != 1 || !strings.Contains(c.Notes[0], "only 2 databases") || len(plain.Notes) != 0 {
		t.Fatalf("few clusters not flagged: %v / %v", c.Notes, plain.Notes)
	}
	if c.Cluster != "db" || p1.Clusters != 2 || p1.Delta.Value != plain.Pass1().Delta.Value || c.PMethod == MethodMcNemar {
		t.Fatalf("cluster %q clusters %d delta %v method %s", c.Cluster, p1.Clusters, p1.Delta, c.PMethod)
	}
	var bs, ts []float64
	var cl []string
	for _, tr := range base.Tasks {
		bs = append(bs, tr.Rate())
		cl = append(cl, tr.DB)
	}
	for _, tr := range treat.Tasks {
		ts = append(ts, tr.Rate())
	}
	want, _ := stats.PairedClustered(bs, ts, cl, Resamples, Seed)
	if p1.Delta != want.Delta || c.PValue != want.PValue {
		t.Fatalf("clustered %v p %v, stats gives %v p %v", p1.Delta, c.PValue, want.Delta, want.PValue)
	}
	// One database cannot be cluster-resampled.
	b1 := binaryRun(t, "b1", 10, func(i int) bool { return false }, nil)
	for i := range b1.Tasks {
		b1.Tasks[i].DB = "shop"
	}
	if _, err := Compare([]*Run{b1}, []*Run{b1}, CompareOptions{ClusterByDB: true}); err == nil {
		t.Fatal("one cluster compared")
	}
}

func TestCompareCriterion(t *testing.T) {
	base := binaryRun(t, "base", 40, func(i int) bool { return i < 10 }, nil)
	treat := binaryRun(t, "treat", 40, func(i int) bool { return i < 30 }, nil)
	for crit, want := range map[string]bool{"delta>=0.05": true, "lo>0": true, "delta>=60%": false, "hi<0": false} {
		cr, err := stats.ParseCriterion(crit)
		if err != nil {
			t.Fatal(err)
		}
		c, err := Compare([]*Run{base}, []*Run{treat}, CompareOptions{Criterion: &cr})
		if err != nil || c.CriterionMet == nil || *c.CriterionMet != want {
			t.Fatalf("%s: met %v, want %v (%v)", crit, c.CriterionMet, want, err)
		}
	}
}

func TestCompareFlagsFewTasks(t *testing.T) {
	base := binaryRun(t, "base", 10, func(i int) bool { return i < 2 }, nil)
	treat := binaryRun(t, "treat", 10, func(i int) bool { return i < 8 }, nil)
	c, err := Compare([]*Run{base}, []*Run{treat}, CompareOptions{})
	if err != nil || len(c.Notes) != 1 || !strings.Contains(c.Notes[0], "pass@1 rests on 10 tasks") {
		t.Fatalf("notes %v err %v", c.Notes, err)
	}
	var b strings.Builder
	CompareText(&b, c)
	if !strings.Contains(b.String(), "warning: pass@1 rests on 10 tasks") {
		t.Fatalf("text lacks the warning:\n%s", b.String())
	}
}

func TestCompareNeedsTwoCommonTasks(t *testing.T) {
	a := binaryRun(t, "a", 1, func(int) bool { return true }, nil)
	if _, err := Compare([]*Run{a}, []*Run{a}, CompareOptions{}); err == nil {
		t.Fatal("one task compared")
	}
}

// The verdict follows the interval; when the p-value of the other test
// points the other way the comparison says so (issue 15: "proven gain"
// beside p = 0.061 without a word).
func TestCompareDecisionLineWhenPValueDisagrees(t *testing.T) {
	// 16 tasks, treat right on 4 the base misses: the bootstrap interval
	// leaves out 0 (a resample without any of the 4 has probability
	// (12/16)^16 = 1%), while exact McNemar on 4 gains gives p = 0.125.
	base := binaryRun(t, "base", 16, func(int) bool { return false }, nil)
	treat := binaryRun(t, "treat", 16, func(i int) bool { return i < 4 }, nil)
	c, err := Compare([]*Run{base}, []*Run{treat}, CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if c.Verdict != stats.VerdictGain || c.PValue < Alpha {
		t.Fatalf("verdict %s p %v: the case no longer shows a disagreement", c.Verdict, c.PValue)
	}
	if !strings.Contains(c.Decision, "excludes 0") || !strings.Contains(c.Decision, "disagrees") || !strings.Contains(c.Decision, "p = 0.125") {
		t.Fatalf("decision %q", c.Decision)
	}
	var b strings.Builder
	if err := CompareText(&b, c); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "decided by: the verdict is the 95% paired bootstrap interval's") {
		t.Fatalf("text lacks the decision line:\n%s", b.String())
	}
	// When both agree the line says that too.
	agree := binaryRun(t, "treat2", 40, func(i int) bool { return i < 20 }, nil)
	base40 := binaryRun(t, "base40", 40, func(int) bool { return false }, nil)
	c, err = Compare([]*Run{base40}, []*Run{agree}, CompareOptions{})
	if err != nil || c.Verdict != stats.VerdictGain || !strings.HasSuffix(c.Decision, "p-value agrees") {
		t.Fatalf("agreeing case: %v %s %q", err, c.Verdict, c.Decision)
	}
}

// Tasks every run has but none scored (a gold that fails) are not "not
// shared by every run".
func TestCompareNamesUnscoredTasksApartFromMissingOnes(t *testing.T) {
	var tasks []task
	for i := range 30 {
		o := right(i%2, 1)
		if i < 10 {
			o = []sqlgym.Outcome{sqlgym.OutcomeGoldError}
		}
		tasks = append(tasks, task{fmt.Sprintf("q%03d", i), "shop", o})
	}
	base := load(t, writeRun(t, filepath.Join(t.TempDir(), "b"), manifest(1), samplesOf(tasks)))
	treat := load(t, writeRun(t, filepath.Join(t.TempDir(), "t"), manifest(1), samplesOf(tasks)))
	c, err := Compare([]*Run{base}, []*Run{treat}, CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if c.Tasks != 20 || c.Unscored != 10 || c.Dropped != 0 {
		t.Fatalf("tasks %d unscored %d dropped %d, want 20, 10, 0", c.Tasks, c.Unscored, c.Dropped)
	}
	line := c.setupLine()
	if strings.Contains(line, "not shared") || strings.Contains(line, "missing") || !strings.Contains(line, "10 with no scored sample in some run") {
		t.Fatalf("setup line %q", line)
	}
}

func TestCompareClusterByDBNeedsTwoDatabases(t *testing.T) {
	one := func(name string, ok func(int) bool) *Run {
		var tasks []task
		for i := range 30 {
			c := 0
			if ok(i) {
				c = 1
			}
			tasks = append(tasks, task{fmt.Sprintf("q%03d", i), "shop", right(c, 1)})
		}
		return load(t, writeRun(t, filepath.Join(t.TempDir(), name), manifest(1), samplesOf(tasks)))
	}
	_, err := Compare([]*Run{one("b", func(i int) bool { return i < 5 })}, []*Run{one("t", func(i int) bool { return i < 15 })}, CompareOptions{ClusterByDB: true})
	var few *FewDatabasesError
	if !errors.As(err, &few) || few.Databases != 1 || err.Error() != "clustering by database needs at least 2 databases; this task set has 1" {
		t.Fatalf("error %v", err)
	}
}
