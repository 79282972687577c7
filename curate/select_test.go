package curate

import (
	"fmt"
	"slices"
	"testing"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/failure"
	"github.com/sqlgym/sqlgym/rundir"
)

func ptr(f failure.Class) *failure.Failure { return &failure.Failure{Class: f} }

// run builds samples: for each task id, its answers as (sql, correct,
// class) triples.
type ans struct {
	sql   string
	ok    bool
	class failure.Class
}

func samples(byTask map[string][]ans) []rundir.Sample {
	var out []rundir.Sample
	ids := make([]string, 0, len(byTask))
	for id := range byTask {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		for j, a := range byTask[id] {
			s := rundir.Sample{TaskID: id, Sample: j, Verdict: sqlgym.Verdict{SQL: a.sql, Outcome: sqlgym.OutcomeWrong}}
			if a.ok {
				s.Outcome = sqlgym.OutcomeCorrect
			} else if a.class != "" {
				s.Failure = ptr(a.class)
			}
			out = append(out, s)
		}
	}
	return out
}

func tasksN(n int, split func(i int) string) []sqlgym.Task {
	var ts []sqlgym.Task
	for i := range n {
		ts = append(ts, sqlgym.Task{ID: fmt.Sprintf("t%02d", i), DB: "shop", SQL: fmt.Sprintf("SELECT %d", i), Split: split(i)})
	}
	return ts
}

func train(int) string { return sqlgym.SplitTrain }

// The mode is by normalised SQL: case, spacing and a trailing semicolon
// do not split a vote; ties go to the first seen; empty texts never win.
func TestModeByNormalisedSQL(t *testing.T) {
	got, n := Mode([]string{"select a from t;", "SELECT b FROM t", "SELECT  a\nFROM t", "", "SELECT b FROM t"})
	if got != "select a from t;" || n != 2 {
		t.Errorf("mode %q x%d, want the first spelling of a (2 votes, first seen before b's 2)", got, n)
	}
	if got, n := Mode([]string{"", " "}); got != "" || n != 0 {
		t.Errorf("empty texts: %q %d", got, n)
	}
}

// Ten failed and ten solved tasks, one held out of each kind. With --n 10
// and replay 0.2: 8 failed and 2 replay, in seed order; the held-out
// tasks never appear; per-class 3 on the top 2 classes gives 3 extras
// each, the failed tasks --n left out first.
func TestSelectSFTQuotas(t *testing.T) {
	tasks := tasksN(22, func(i int) string {
		if i == 0 || i == 11 {
			return sqlgym.SplitHoldout
		}
		return sqlgym.SplitTrain
	})
	by := map[string][]ans{}
	for i := range 22 {
		id := tasks[i].ID
		if i <= 10 { // failed: t00 (held out) .. t10
			c := failure.WrongGrain
			switch {
			case i%3 == 1:
				c = failure.MissingColumn
			case i == 10:
				c = failure.Syntax
			}
			by[id] = []ans{{"SELECT wrong", false, c}, {"SELECT wrong2", false, c}}
		} else { // solved: t11 (held out) .. t21
			by[id] = []ans{{"SELECT right", true, ""}, {"SELECT x", false, failure.Ordering}}
		}
	}
	stats := Collect(tasks, []RunSamples{{Samples: samples(by)}})
	picks, counts := SelectSFT(stats, SFTOptions{N: 10, Replay: 0.2, PerClass: 3, TopClasses: 2, Source: SourceGold, Seed: "s"})
	if counts.HeldOut != 2 || counts.Failed != 10 || counts.Solved != 10 {
		t.Fatalf("counts %+v", counts)
	}
	by2 := map[string][]Pick{}
	for _, p := range picks {
		if stats[p.Index].Task.Split == sqlgym.SplitHoldout {
			t.Fatalf("held-out task %s picked", stats[p.Index].Task.ID)
		}
		if p.Target != stats[p.Index].Task.SQL || p.Source != SourceGold {
			t.Fatalf("gold target: %+v", p)
		}
		by2[p.Reason] = append(by2[p.Reason], p)
	}
	if len(by2[ReasonFailed]) != 8 || len(by2[ReasonReplay]) != 2 {
		t.Fatalf("failed %d replay %d, want 8 and 2", len(by2[ReasonFailed]), len(by2[ReasonReplay]))
	}
	// wrong_grain is the top class of 6 failed tasks, missing_column of 3,
	// syntax of 1: the top two get 3 extras each.
	if !slices.Equal(counts.ExtraClasses, []failure.Class{failure.WrongGrain, failure.MissingColumn}) {
		t.Fatalf("extra classes %v", counts.ExtraClasses)
	}
	extra := map[failure.Class]int{}
	chosen := map[int]bool{}
	for _, p := range by2[ReasonFailed] {
		chosen[p.Index] = true
	}
	for _, p := range by2[ReasonExtra] {
		extra[p.Class]++
	}
	if extra[failure.WrongGrain] != 3 || extra[failure.MissingColumn] != 3 || len(extra) != 2 {
		t.Fatalf("extras %v", extra)
	}
	// The failed tasks --n left out come first among the extras.
	left := 0
	for _, p := range by2[ReasonExtra] {
		if !chosen[p.Index] {
			left++
		}
	}
	if left != 2 {
		t.Errorf("%d extras from the 2 failed tasks --n left out, want 2", left)
	}
	// The same seed gives the same set; another seed another order.
	again, _ := SelectSFT(stats, SFTOptions{N: 10, Replay: 0.2, PerClass: 3, TopClasses: 2, Source: SourceGold, Seed: "s"})
	if !slices.EqualFunc(picks, again, func(a, b Pick) bool { return a == b }) {
		t.Error("same seed, different selection")
	}
	// Without --n: every failed task, and replay as a share of the result:
	// 10 failed x 0.2/0.8 = 2.5, rounded to 3 (banker's rounding is not
	// used: math.Round rounds half away from zero).
	all, _ := SelectSFT(stats, SFTOptions{Replay: 0.2, Source: SourceGold, Seed: "s"})
	n := map[string]int{}
	for _, p := range all {
		n[p.Reason]++
	}
	if n[ReasonFailed] != 10 || n[ReasonReplay] != 3 || n[ReasonExtra] != 0 {
		t.Errorf("no --n: %v, want 10 failed, 3 replay", n)
	}
}

// --source self takes the model's most frequent correct answer, of any
// run (a hint run's too), and leaves out tasks without one; a hint run
// does not make a failed task solved. --source both falls back to gold.
func TestSelectSFTSelfTargets(t *testing.T) {
	tasks := tasksN(3, train)
	base := samples(map[string][]ans{
		"t00": {{"SELECT a", false, failure.FilterDiffers}, {"SELECT b", false, failure.FilterDiffers}},
		"t01": {{"SELECT x", false, failure.EmptyResult}},
		"t02": {{"select Y", true, ""}, {"SELECT y", true, ""}, {"SELECT z", true, ""}},
	})
	hint := samples(map[string][]ans{"t00": {{"SELECT good", true, ""}}})
	stats := Collect(tasks, []RunSamples{{Samples: base}, {Samples: hint, Hinted: true}})
	if stats[0].C != 0 || stats[0].N != 2 || len(stats[0].Correct) != 1 {
		t.Fatalf("hint run counted as measurement: %+v", stats[0])
	}
	picks, counts := SelectSFT(stats, SFTOptions{Replay: 0.5, Source: SourceSelf, Seed: "s"})
	got := map[string]string{}
	for _, p := range picks {
		got[stats[p.Index].Task.ID+"/"+p.Reason] = p.Target
	}
	want := map[string]string{"t00/failed": "SELECT good", "t02/replay": "select Y"}
	if fmt.Sprint(got) != fmt.Sprint(want) || counts.NoTarget != 1 {
		t.Errorf("self picks %v (no target %d), want %v and 1", got, counts.NoTarget, want)
	}
	both, _ := SelectSFT(stats, SFTOptions{Source: SourceBoth, Seed: "s"})
	src := map[string]Source{}
	for _, p := range both {
		src[stats[p.Index].Task.ID] = p.Source
	}
	if src["t00"] != SourceSelf || src["t01"] != SourceGold {
		t.Errorf("both: %v", src)
	}
	// A rate threshold makes a half-solved task failed.
	half, _ := SelectSFT(Collect(tasks, []RunSamples{{Samples: samples(map[string][]ans{
		"t02": {{"SELECT y", true, ""}, {"SELECT n", false, failure.WrongValues}}})}}), SFTOptions{FailBelow: 0.6, Source: SourceGold})
	if len(half) != 1 || half[0].Reason != ReasonFailed {
		t.Errorf("--fail-below 0.6 on a 1/2 task: %+v", half)
	}
}

// DPO: one pair per task, modes on both sides; gold only when no sample
// is right, capped at a share of the result; never identical sides; never
// an empty rejected side; held-out tasks never.
func TestMinePairsRules(t *testing.T) {
	tasks := tasksN(12, func(i int) string {
		if i == 11 {
			return sqlgym.SplitHoldout
		}
		return sqlgym.SplitTrain
	})
	by := map[string][]ans{
		// mined: chosen mode "SELECT ok" (2 of 3), rejected mode "SELECT bad" (2 of 3)
		"t00": {{"SELECT ok", true, ""}, {"select ok", true, ""}, {"SELECT other", true, ""},
			{"SELECT bad", false, failure.WrongColumns}, {"SELECT  BAD", false, failure.WrongColumns}, {"SELECT worse", false, failure.Syntax}},
		"t01": {{"SELECT ok", true, ""}, {"SELECT bad1", false, failure.EmptyResult}},
		"t02": {{"SELECT ok", true, ""}, {"SELECT bad2", false, failure.EmptyResult}},
		"t03": {{"SELECT ok", true, ""}, {"SELECT bad3", false, failure.EmptyResult}},
		// all right: no pair
		"t04": {{"SELECT ok", true, ""}},
		// wrong without SQL (no_query): no pair
		"t05": {{"", false, failure.NoQuery}},
		// identical sides: the wrong answer is the gold's text (judged wrong
		// under another database variant, say)
		"t06": {{"SELECT 6;", false, failure.WrongValues}},
		// gold fallbacks: 4 candidates, cap 0.25 of the result with 4 mined
		// pairs gives floor(4 x 0.25 / 0.75) = 1
		"t07": {{"SELECT f7", false, failure.MissingTable}},
		"t08": {{"SELECT f8", false, failure.MissingTable}},
		"t09": {{"SELECT f9", false, failure.MissingTable}},
		"t10": {{"SELECT f10", false, failure.MissingTable}},
		"t11": {{"SELECT held", false, failure.MissingTable}},
	}
	stats := Collect(tasks, []RunSamples{{Samples: samples(by)}})
	pairs, counts := MinePairs(stats, DPOOptions{GoldFallbackCap: 0.25, Seed: "s"})
	mined, fb := 0, 0
	for _, p := range pairs {
		if NormalizeSQL(p.Chosen) == NormalizeSQL(p.Rejected) || p.Rejected == "" {
			t.Fatalf("bad pair %+v", p)
		}
		if stats[p.Index].Task.Split == sqlgym.SplitHoldout {
			t.Fatal("held-out pair")
		}
		switch p.Source {
		case PairMined:
			mined++
		case PairGoldFallback:
			fb++
			if p.Chosen != stats[p.Index].Task.SQL {
				t.Errorf("fallback chosen %q is not the gold", p.Chosen)
			}
		}
	}
	if mined != 4 || fb != 1 || counts.CappedFallback != 3 {
		t.Fatalf("mined %d fallback %d capped %d, want 4, 1, 3", mined, fb, counts.CappedFallback)
	}
	p0 := pairs[0]
	if p0.Chosen != "SELECT ok" || p0.ChosenCount != 2 || p0.Rejected != "SELECT bad" || p0.RejectedCount != 2 || p0.RejectedClass != failure.WrongColumns {
		t.Errorf("t00 pair %+v", p0)
	}
	if counts.AllRight != 1 || counts.NoWrongSQL != 1 || counts.IdenticalSides != 1 || counts.HeldOut != 1 {
		t.Errorf("counts %+v", counts)
	}
	// Cap 0: no fallback at all; cap 0.5 with 4 mined: 4 fallbacks allowed.
	if ps, _ := MinePairs(stats, DPOOptions{GoldFallbackCap: 0}); len(ps) != 4 {
		t.Errorf("cap 0: %d pairs", len(ps))
	}
	if ps, c := MinePairs(stats, DPOOptions{GoldFallbackCap: 0.5}); len(ps) != 8 || c.CappedFallback != 0 {
		t.Errorf("cap 0.5: %d pairs, %d capped", len(ps), c.CappedFallback)
	}
	if err := (DPOOptions{GoldFallbackCap: 1}).Validate(); err == nil {
		t.Error("cap 1 accepted")
	}
	a := Audit([]Pair{{Chosen: "SELECT T1.a FROM t AS T1", Rejected: "SELECT a FROM t", Source: PairGoldFallback},
		{Chosen: "SELECT a FROM t", Rejected: "SELECT t1.b FROM t t1", Source: PairMined}})
	if a.AliasRateChosen != 0.5 || a.AliasRateRejected != 0.5 || a.AliasRateChosenMined != 0 {
		t.Errorf("audit %+v", a)
	}
}
