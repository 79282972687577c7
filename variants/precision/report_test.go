package precision

import (
	"bytes"
	"strings"
	"testing"
)

// reportFixture is four answers of two systems: one flipped by the
// variants (judged right), one flipped and not judged, one wrong on the
// original already, one whose gold failed on a variant (not a verdict).
func reportFixture() ([]Prediction, map[answerKey]Result, map[answerKey]Result) {
	preds := []Prediction{
		{TaskID: "t1", Sample: 1, System: "a", SQL: "SELECT 1"},
		{TaskID: "t2", Sample: 1, System: "a", SQL: "SELECT 2"},
		{TaskID: "t1", Sample: 2, System: "b", SQL: "SELECT 1"},
		{TaskID: "t3", Sample: 2, System: "b", SQL: "SELECT 3"},
		{TaskID: "t4", Sample: 2, System: "b", SQL: "SELECT 4"},
	}
	res := func(p Prediction, outcome, detail string) Result {
		return Result{TaskID: p.TaskID, Sample: p.Sample, SQL: p.SQL, Outcome: outcome, Detail: detail}
	}
	base := map[answerKey]Result{}
	withV := map[answerKey]Result{}
	outs := [][2]string{{"correct", "wrong"}, {"correct", "error"}, {"correct", "wrong"}, {"wrong", "wrong"}, {"correct", "infra_error"}}
	for i, p := range preds {
		base[answerKey{p.TaskID, p.Sample}] = res(p, outs[i][0], "")
		withV[answerKey{p.TaskID, p.Sample}] = res(p, outs[i][1], "on variant v2")
	}
	return preds, base, withV
}

func TestComputeCountsFlipsAndJoinsJudgmentsBySQL(t *testing.T) {
	preds, base, withV := reportFixture()
	judg := map[judgKey]Judgment{}
	j := Judgment{Generator: "g1", System: "a", TaskID: "t1", SQLSHA256: SQLHash("SELECT 1"), DBCopy: "plain", Label: Right, Cause: "tie", Reason: "r"}
	judg[j.key()] = j
	// A judgment of the other copy does not count here.
	k := Judgment{Generator: "g1", System: "a", TaskID: "t2", SQLSHA256: SQLHash("SELECT 2"), DBCopy: "keyed", Label: Wrong, Reason: "r"}
	judg[k.key()] = k
	r, err := Compute(preds, base, withV, judg, Options{Generator: "g1", DBCopy: "plain"})
	if err != nil {
		t.Fatal(err)
	}
	if r.Total.Answers != 5 || r.Total.Before != 4 || r.Total.After != 0 || r.Total.Flips != 3 || r.Total.Unscored != 1 {
		t.Errorf("total = %+v", r.Total)
	}
	// t1 is flipped for both systems: one SQL, one judgment, two answers.
	if r.Judged != 2 || r.Right != 2 || r.Wrong != 0 || r.Causes["tie"] != 2 {
		t.Errorf("judged %d right %d wrong %d causes %v", r.Judged, r.Right, r.Wrong, r.Causes)
	}
	if len(r.Unjudged) != 1 || r.Unjudged[0].TaskID != "t2" || r.Unjudged[0].Detail != "on variant v2" {
		t.Errorf("unjudged = %+v, want t2 with the variant's detail", r.Unjudged)
	}
	if r.Precision.Value != 0 || r.Precision.Hi <= 0 {
		t.Errorf("precision = %v, want 0 with a non-empty interval", r.Precision)
	}
	if r.PerSystem["b"].Flips != 1 || r.PerSystem["b"].Answers != 3 {
		t.Errorf("per system b = %+v", r.PerSystem["b"])
	}
	var out bytes.Buffer
	if err := r.WriteText(&out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"judged 2 of all flips: wrong 0, right 2", "tie 2", "not yet judged: 1 distinct flips"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("text report lacks %q:\n%s", want, out.String())
		}
	}
}

func TestComputePrecisionWithWilsonInterval(t *testing.T) {
	var preds []Prediction
	base := map[answerKey]Result{}
	withV := map[answerKey]Result{}
	judg := map[judgKey]Judgment{}
	for i := range 100 {
		p := Prediction{TaskID: "t" + string(rune('A'+i/26)) + string(rune('a'+i%26)), Sample: 1, System: "s", SQL: "SELECT x"}
		preds = append(preds, p)
		k := answerKey{p.TaskID, 1}
		base[k] = Result{TaskID: p.TaskID, Sample: 1, SQL: p.SQL, Outcome: "correct"}
		withV[k] = Result{TaskID: p.TaskID, Sample: 1, SQL: p.SQL, Outcome: "wrong"}
		j := Judgment{Generator: "g1", TaskID: p.TaskID, SQLSHA256: SQLHash(p.SQL), DBCopy: "keyed", Label: Wrong, Reason: "r"}
		switch {
		case i < 10:
			j.Label, j.Cause = Right, "key_violation"
		case i < 15:
			j.Label = Unclear
		}
		judg[j.key()] = j
	}
	r, err := Compute(preds, base, withV, judg, Options{Generator: "g1", DBCopy: "keyed"})
	if err != nil {
		t.Fatal(err)
	}
	// 85 wrong of 95 right or wrong; unclear ones are left out.
	if r.Wrong != 85 || r.Right != 10 || r.Unclear != 5 {
		t.Fatalf("wrong %d right %d unclear %d", r.Wrong, r.Right, r.Unclear)
	}
	if p := r.Precision; p.Value != 85.0/95 || p.Lo < 0.81 || p.Lo > 0.83 || p.Hi < 0.94 || p.Hi > 0.95 {
		t.Errorf("precision = %v, want 0.8947 [0.817, 0.942]", p)
	}
	if c := r.CaughtEstimate; c.Value < 89.4 || c.Value > 89.5 {
		t.Errorf("caught estimate = %v, want 100 flips x 85/95", c)
	}
	// A seeded sample is the same sample every time, and another seed
	// draws another one.
	s1, _ := Compute(preds, base, withV, nil, Options{DBCopy: "keyed", Sample: 20, Seed: 1})
	s2, _ := Compute(preds, base, withV, nil, Options{DBCopy: "keyed", Sample: 20, Seed: 1})
	s3, _ := Compute(preds, base, withV, nil, Options{DBCopy: "keyed", Sample: 20, Seed: 2})
	if s1.Examined != 20 || len(s1.Unjudged) != 20 || !sameTasks(s1.Unjudged, s2.Unjudged) || sameTasks(s1.Unjudged, s3.Unjudged) {
		t.Errorf("sample: examined %d, unjudged %d; same seed same sample %v; other seed other sample %v",
			s1.Examined, len(s1.Unjudged), sameTasks(s1.Unjudged, s2.Unjudged), !sameTasks(s1.Unjudged, s3.Unjudged))
	}
}

func sameTasks(a, b []Flip) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].TaskID != b[i].TaskID {
			return false
		}
	}
	return true
}

func TestComputeRefusesRunsOfOtherPredictions(t *testing.T) {
	preds, base, withV := reportFixture()
	k := answerKey{"t2", 1}
	r := withV[k]
	r.SQL = "SELECT 22"
	withV[k] = r
	if _, err := Compute(preds, base, withV, nil, Options{DBCopy: "plain"}); err == nil || !strings.Contains(err.Error(), "task t2 sample 1") {
		t.Fatalf("err = %v, want the answer judged with other SQL named", err)
	}
	delete(base, answerKey{"t3", 2})
	withV[k] = Result{TaskID: "t2", Sample: 1, SQL: "SELECT 2", Outcome: "error"}
	if _, err := Compute(preds, base, withV, nil, Options{DBCopy: "plain"}); err == nil || !strings.Contains(err.Error(), "task t3 sample 2") {
		t.Fatalf("err = %v, want the missing answer named", err)
	}
}

func TestJudgmentCheck(t *testing.T) {
	good := Judgment{Generator: "g", TaskID: "t", SQLSHA256: SQLHash("x"), DBCopy: "plain", Label: Right, Cause: "tie", Reason: "r"}
	if err := good.check(); err != nil {
		t.Fatal(err)
	}
	for name, edit := range map[string]func(j *Judgment){
		"label":     func(j *Judgment) { j.Label = "maybe" },
		"cause":     func(j *Judgment) { j.Cause = "" },
		"bad cause": func(j *Judgment) { j.Cause = "cosmic rays" },
		"reason":    func(j *Judgment) { j.Reason = "" },
		"sha":       func(j *Judgment) { j.SQLSHA256 = "abc" },
		"copy":      func(j *Judgment) { j.DBCopy = "" },
		"generator": func(j *Judgment) { j.Generator = "" },
	} {
		j := good
		edit(&j)
		if j.check() == nil {
			t.Errorf("%s: a bad judgment was accepted", name)
		}
	}
}

// TestComputeKeepsJudgmentsApartByGeneratorAndCountsKeptCatches: another
// generator's judgments do not label this run's flips (its variant may
// flip the answer for another reason), and --baseline counts how many of
// the baseline's judged catches this run still flips.
func TestComputeKeepsJudgmentsApartByGeneratorAndCountsKeptCatches(t *testing.T) {
	preds, base, withV := reportFixture()
	judg := map[judgKey]Judgment{}
	for _, j := range []Judgment{
		// Under "old", t1's SQL was caught (wrong) and so was t3's; t3 is
		// wrong on the original in this run, so it is not flipped now.
		{Generator: "old", TaskID: "t1", SQLSHA256: SQLHash("SELECT 1"), DBCopy: "plain", Label: Wrong, Reason: "r"},
		{Generator: "old", TaskID: "t3", SQLSHA256: SQLHash("SELECT 3"), DBCopy: "plain", Label: Wrong, Reason: "r"},
		{Generator: "old", TaskID: "t2", SQLSHA256: SQLHash("SELECT 2"), DBCopy: "plain", Label: Right, Cause: "tie", Reason: "r"},
	} {
		judg[j.key()] = j
	}
	r, err := Compute(preds, base, withV, judg, Options{Generator: "new", Baseline: "old", DBCopy: "plain"})
	if err != nil {
		t.Fatal(err)
	}
	if r.Judged != 0 || len(r.Unjudged) != 2 {
		t.Errorf("judged %d, unjudged %d: the old generator's judgments must not label the new flips", r.Judged, len(r.Unjudged))
	}
	// t1's SQL is two answers (systems a and b), both flipped now; t3's
	// answer is not: 2 of 3 catches kept.
	if r.Kept == nil || r.Kept.Caught != 3 || r.Kept.Kept != 2 {
		t.Fatalf("kept = %+v, want 2 of 3", r.Kept)
	}
	var out bytes.Buffer
	if err := r.WriteText(&out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "catches of old kept: 2 of the 3 answers judged wrong there") {
		t.Errorf("text report lacks the kept catches:\n%s", out.String())
	}
}

// TestGoldSuspectsAndPrecisionWithoutWrongGolds: a task where four systems
// matched the gold and three were flipped is a suspect (judged for a wrong
// gold); one where one of four was flipped, or only two systems were, is
// not. The precision without wrong golds leaves those out.
func TestGoldSuspectsAndPrecisionWithoutWrongGolds(t *testing.T) {
	var preds []Prediction
	base := map[answerKey]Result{}
	withV := map[answerKey]Result{}
	add := func(task string, sample int, sql, after string) {
		p := Prediction{TaskID: task, Sample: sample, System: string(rune('a' + sample)), SQL: sql}
		preds = append(preds, p)
		base[answerKey{task, sample}] = Result{TaskID: task, Sample: sample, SQL: sql, Outcome: "correct"}
		withV[answerKey{task, sample}] = Result{TaskID: task, Sample: sample, SQL: sql, Outcome: after}
	}
	for s := range 4 {
		after := "wrong"
		if s == 3 {
			after = "correct"
		}
		add("gold", s, "SELECT g", after)
		after = "correct"
		if s == 0 {
			after = "wrong"
		}
		add("fine", s, "SELECT f", after)
	}
	add("two", 0, "SELECT t", "wrong")
	add("two", 1, "SELECT t", "wrong")
	judg := map[judgKey]Judgment{}
	for _, j := range []Judgment{
		{Generator: "g", DBCopy: "plain", TaskID: "gold", SQLSHA256: SQLHash("SELECT g"), Label: Right, Cause: "wrong_gold", Reason: "r"},
		{Generator: "g", DBCopy: "plain", TaskID: "fine", SQLSHA256: SQLHash("SELECT f"), Label: Wrong, Reason: "r"},
		{Generator: "g", DBCopy: "plain", TaskID: "two", SQLSHA256: SQLHash("SELECT t"), Label: Wrong, Reason: "r"},
	} {
		judg[j.key()] = j
	}
	r, err := Compute(preds, base, withV, judg, Options{Generator: "g", DBCopy: "plain"})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.GoldSuspects) != 1 || r.GoldSuspects[0] != (Suspect{TaskID: "gold", RightBefore: 4, Flipped: 3, WrongGold: 1, Judged: 1}) {
		t.Errorf("suspects = %+v, want only gold (3 of 4 flipped, judged wrong_gold)", r.GoldSuspects)
	}
	// 3 wrong (fine once, two twice) against 3 right for the wrong gold.
	if r.Precision.Value != 0.5 || r.PrecisionSoundGold.Value != 1 {
		t.Errorf("precision %v, without wrong golds %v; want 0.5 and 1", r.Precision, r.PrecisionSoundGold)
	}
	var out bytes.Buffer
	if err := r.WriteText(&out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"precision without the 3 punished for a wrong gold: 100.0%", "gold: 3 of 4 systems flipped (judged 1, 1 of them for a wrong gold)"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("text report lacks %q:\n%s", want, out.String())
		}
	}
}
