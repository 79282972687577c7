package stats

import (
	"math"
	"testing"
)

func TestParseCriterion(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Criterion
	}{
		{"delta>=0.05", Criterion{"delta", ">=", 0.05}},
		{"delta>0", Criterion{"delta", ">", 0}},
		{"lo>0", Criterion{"lo", ">", 0}},
		{"  hi < -1% ", Criterion{"hi", "<", -0.01}},
		{"delta >= 5%", Criterion{"delta", ">=", 0.05}},
		{"lo<=1e-2", Criterion{"lo", "<=", 0.01}},
		{"delta>=+.5", Criterion{"delta", ">=", 0.5}},
	} {
		got, err := ParseCriterion(tc.in)
		if err != nil {
			t.Errorf("ParseCriterion(%q): %v", tc.in, err)
			continue
		}
		if got.Side != tc.want.Side || got.Op != tc.want.Op || !near(got.Bound, tc.want.Bound, 1e-15) {
			t.Errorf("ParseCriterion(%q) = %+v, want %+v", tc.in, got, tc.want)
		}
		back, err := ParseCriterion(got.String())
		if err != nil || back != got {
			t.Errorf("round trip of %q through %q: %+v, %v", tc.in, got.String(), back, err)
		}
	}
}

func TestParseCriterionRejects(t *testing.T) {
	for _, in := range []string{
		"", "delta", "delta>=", "delta=>0.05", "delta==0.05", "delta=0.05", "foo>0", "Delta>0",
		"low>0", "delta>=abc", "delta>=inf", "delta>=nan", "delta>=0x1p-3", "delta>=5%%",
		"lo>0 extra", "lo>0 and hi<1", "delta>=1e999", ">=0.05", "delta>=%",
	} {
		if c, err := ParseCriterion(in); err == nil {
			t.Errorf("ParseCriterion(%q) = %+v, want an error", in, c)
		}
	}
}

func TestCriterionCheck(t *testing.T) {
	r := PairedResult{Delta: Interval{0.05, 0.01, 0.09}}
	for _, tc := range []struct {
		in   string
		want bool
	}{
		{"delta>=0.05", true},
		{"delta>=5%", true},
		{"delta>0.05", false},
		{"delta>0", true},
		{"lo>0", true},
		{"lo>=2%", false},
		{"lo<0", false},
		{"hi<0.1", true},
		{"hi<=0.09", true},
		{"hi<0.09", false},
	} {
		c, err := ParseCriterion(tc.in)
		if err != nil {
			t.Fatal(err)
		}
		if got := c.Check(r); got != tc.want {
			t.Errorf("%s on %v = %v, want %v", tc.in, r.Delta, got, tc.want)
		}
	}
	c, _ := ParseCriterion("delta<=1")
	if c.Check(PairedResult{Delta: Interval{math.NaN(), 0, 0}}) {
		t.Error("a NaN delta met a criterion")
	}
	if (Criterion{Side: "mid", Op: ">", Bound: 0}).Check(r) {
		t.Error("an unknown side met a criterion")
	}
}
