package precision

import (
	"bytes"
	"slices"
	"strings"
	"testing"
)

// The screen's suspects come from the named systems only, and its
// precision is counted on the others' judged flips, before and after the
// suspect tasks are judged on the original alone.
func TestScreenDecidesOnSomeSystemsAndMeasuresOnTheOthers(t *testing.T) {
	var preds []Prediction
	base := map[answerKey]Result{}
	withV := map[answerKey]Result{}
	sample := 0
	add := func(task, system, sql, after string) {
		sample = slices.Index([]string{"a", "b", "c", "d", "e"}, system) + 1
		p := Prediction{TaskID: task, Sample: sample, System: system, SQL: sql}
		preds = append(preds, p)
		base[answerKey{task, sample}] = Result{TaskID: task, Sample: sample, SQL: sql, Outcome: "correct"}
		withV[answerKey{task, sample}] = Result{TaskID: task, Sample: sample, SQL: sql, Outcome: after}
	}
	for _, s := range []string{"a", "b", "c", "d", "e"} {
		add("gold", s, "SELECT g "+s, "wrong") // every system parts from a wrong gold
		after := "correct"
		if s == "d" || s == "e" {
			after = "wrong" // only held-out systems flip: no suspect
		}
		add("other", s, "SELECT o "+s, after)
	}
	judg := map[judgKey]Judgment{}
	for _, j := range []Judgment{
		{Generator: "g", DBCopy: "plain", TaskID: "gold", SQLSHA256: SQLHash("SELECT g d"), Label: Right, Cause: "wrong_gold", Reason: "r"},
		{Generator: "g", DBCopy: "plain", TaskID: "gold", SQLSHA256: SQLHash("SELECT g e"), Label: Right, Cause: "wrong_gold", Reason: "r"},
		{Generator: "g", DBCopy: "plain", TaskID: "gold", SQLSHA256: SQLHash("SELECT g a"), Label: Right, Cause: "wrong_gold", Reason: "r"},
		{Generator: "g", DBCopy: "plain", TaskID: "other", SQLSHA256: SQLHash("SELECT o d"), Label: Wrong, Reason: "r"},
		{Generator: "g", DBCopy: "plain", TaskID: "other", SQLSHA256: SQLHash("SELECT o e"), Label: Wrong, Reason: "r"},
	} {
		judg[j.key()] = j
	}
	r, err := Compute(preds, base, withV, judg, Options{Generator: "g", DBCopy: "plain", SuspectsFrom: []string{"a", "b", "c"}})
	if err != nil {
		t.Fatal(err)
	}
	s := r.Screen
	if s == nil || !slices.Equal(s.Suspects, []string{"gold"}) {
		t.Fatalf("screen %+v, want the suspect gold only (other is flipped by held-out systems alone)", s)
	}
	if s.FlipsBefore != 4 || s.FlipsAfter != 2 {
		t.Errorf("held-out flips %d -> %d, want 4 -> 2", s.FlipsBefore, s.FlipsAfter)
	}
	if s.Before != (screenTally{Wrong: 2, Right: 2, WrongGold: 2}) || s.After != (screenTally{Wrong: 2}) {
		t.Errorf("before %+v after %+v: want a's judgment left out and the gold's right answers screened", s.Before, s.After)
	}
	if s.Precision.Value != 0.5 || s.Screened.Value != 1 {
		t.Errorf("precision %v -> %v, want 0.5 -> 1", s.Precision, s.Screened)
	}
	var out bytes.Buffer
	if err := r.WriteText(&out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "gold-suspect screen, suspects from [a b c] (1 tasks judged on the original alone): the other systems' flips 4 -> 2") {
		t.Errorf("text report lacks the screen:\n%s", out.String())
	}
}

// SampleOf draws the sample over the other run's flips and keeps those
// this run still flips; a flip of this run the other lacks is refused.
func TestSampleOfDrawsOverTheLargerRun(t *testing.T) {
	var preds []Prediction
	base := map[answerKey]Result{}
	all := map[answerKey]Result{}
	some := map[answerKey]Result{}
	for i := range 40 {
		p := Prediction{TaskID: "t" + string(rune('A'+i/26)) + string(rune('a'+i%26)), Sample: 1, System: "s", SQL: "SELECT x"}
		preds = append(preds, p)
		k := answerKey{p.TaskID, 1}
		base[k] = Result{TaskID: p.TaskID, Sample: 1, SQL: p.SQL, Outcome: "correct"}
		all[k] = Result{TaskID: p.TaskID, Sample: 1, SQL: p.SQL, Outcome: "wrong"}
		some[k] = all[k]
		if i%2 == 1 {
			some[k] = base[k] // this run no longer flips the odd ones
		}
	}
	o := Options{Generator: "g", DBCopy: "plain", Sample: 10, Seed: 1}
	full, _, err := findFlips(preds, base, all)
	if err != nil {
		t.Fatal(err)
	}
	drawn := sampleFlips(full, 10, 1)
	o.SampleOf = all
	r, err := Compute(preds, base, some, nil, o)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, f := range drawn {
		if some[answerKey{f.TaskID, 1}].Outcome == "wrong" {
			want = append(want, f.TaskID)
		}
	}
	var got []string
	for _, f := range r.Unjudged {
		got = append(got, f.TaskID)
	}
	if r.Examined != len(want) || !slices.Equal(got, want) {
		t.Errorf("examined %d %v, want the %d of the larger run's sample still flipped %v", r.Examined, got, len(want), want)
	}
	// The other way round: this run flips what the other does not.
	o.SampleOf = some
	if _, err := Compute(preds, base, all, nil, o); err == nil {
		t.Errorf("a run with flips the --sample-of run lacks: no error")
	}
}
