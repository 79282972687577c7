package compare

import (
	"math"
	"testing"

	"github.com/sqlgym/sqlgym"
)

// edgeCase is one line of the verifier's edge-case table: the expected
// score per mode (f1's from BIRD mini-dev's calculate_f1_score by hand).
type edgeCase struct {
	name       string
	pred, gold *sqlgym.ResultSet
	opt        Options
	want       map[Mode]float64
	why        map[Mode]string // expected Why where the score is 0
}

func edgeCases() []edgeCase {
	one := res(1, row(I(1)))
	return []edgeCase{
		{
			name: "[(1,)] vs [(1,),(1,)]",
			pred: one, gold: res(1, row(I(1)), row(I(1))),
			want: map[Mode]float64{Multiset: 0, Bird: 1, Strict: 0, TestSuite: 0, Spider2: 0, F1: 1},
			why:  map[Mode]string{Multiset: WhyRowCount, Strict: WhyRowCount, TestSuite: WhyRowCount, Spider2: WhyRowCount},
		},
		{
			name: "columns swapped",
			pred: res(2, row(I(1), T("a")), row(I(2), T("b"))),
			gold: res(2, row(T("a"), I(1)), row(T("b"), I(2))),
			want: map[Mode]float64{Multiset: 1, Bird: 0, Strict: 0, TestSuite: 1, Spider2: 1, F1: 1},
			why:  map[Mode]string{Bird: WhyValues, Strict: WhyValues},
		},
		{
			name: "1 vs 1.0",
			pred: res(1, row(I(1))), gold: res(1, row(F(1.0))),
			want: map[Mode]float64{Multiset: 1, Bird: 1, Strict: 1, TestSuite: 1, Spider2: 1, F1: 1},
		},
		{
			name: "0.333 vs 0.3333",
			pred: res(1, row(F(0.333))), gold: res(1, row(F(0.3333))),
			want: map[Mode]float64{Multiset: 1, Bird: 0, Strict: 0, TestSuite: 0, Spider2: 1, F1: 0},
			why:  map[Mode]string{Bird: WhyValues, Strict: WhyValues, TestSuite: WhyValues, F1: WhyValues},
		},
		{
			name: "NULL vs 0",
			pred: res(1, row(N())), gold: res(1, row(I(0))),
			want: map[Mode]float64{Multiset: 0, Bird: 0, Strict: 0, TestSuite: 0, Spider2: 1, F1: 0},
			why:  map[Mode]string{Multiset: WhyValues, Bird: WhyValues, Strict: WhyValues, TestSuite: WhyValues, F1: WhyValues},
		},
		{
			name: "'1' vs 1",
			pred: res(1, row(T("1"))), gold: res(1, row(I(1))),
			want: map[Mode]float64{Multiset: 1, Bird: 0, Strict: 0, TestSuite: 0, Spider2: 1, F1: 0},
			why:  map[Mode]string{Bird: WhyValues, Strict: WhyValues, TestSuite: WhyValues, F1: WhyValues},
		},
		{
			name: "'ABC' vs 'abc'",
			pred: res(1, row(T("ABC"))), gold: res(1, row(T("abc"))),
			want: map[Mode]float64{Multiset: 1, Bird: 0, Strict: 0, TestSuite: 0, Spider2: 0, F1: 0},
			why:  map[Mode]string{Bird: WhyValues, Strict: WhyValues, TestSuite: WhyValues, Spider2: WhyValues, F1: WhyValues},
		},
		{
			name: "empty vs empty",
			pred: res(2), gold: res(2),
			want: map[Mode]float64{Multiset: 1, Bird: 1, Strict: 1, TestSuite: 1, Spider2: 1, F1: 1},
		},
		{
			name: "empty vs empty, other column count",
			pred: res(1), gold: res(2),
			want: map[Mode]float64{Multiset: 1, Bird: 1, Strict: 0, TestSuite: 1, Spider2: 1, F1: 1},
			why:  map[Mode]string{Strict: WhyColumnCount},
		},
		{
			name: "an extra predicted column",
			pred: res(2, row(I(1), I(2))), gold: res(1, row(I(1))),
			want: map[Mode]float64{Multiset: 0, Bird: 0, Strict: 0, TestSuite: 0, Spider2: 1, F1: 2.0 / 3},
			why:  map[Mode]string{Multiset: WhyColumnCount, Bird: WhyColumnCount, Strict: WhyColumnCount, TestSuite: WhyColumnCount, F1: WhyColumnCount},
		},
		{
			name: "rows reversed, gold has ORDER BY",
			pred: res(1, row(I(2)), row(I(1))), gold: res(1, row(I(1)), row(I(2))),
			opt: Options{GoldOrdered: true, IgnoreOrder: true},
			// strict's default order policy is ignore.
			want: map[Mode]float64{Multiset: 0, Bird: 1, Strict: 1, TestSuite: 0, Spider2: 1, F1: 1},
			why:  map[Mode]string{Multiset: WhyOrder, TestSuite: WhyOrder},
		},
		{
			name: "rows ('x',1),('y',2) vs ('x',2),('y',1)",
			pred: res(2, row(T("x"), I(1)), row(T("y"), I(2))),
			gold: res(2, row(T("x"), I(2)), row(T("y"), I(1))),
			opt:  Options{IgnoreOrder: true},
			want: map[Mode]float64{Multiset: 0, Bird: 0, Strict: 0, TestSuite: 0, Spider2: 1, F1: 0.5},
			why:  map[Mode]string{Multiset: WhyValues, Bird: WhyValues, Strict: WhyValues, TestSuite: WhyValues, F1: WhyValues},
		},
	}
}

func TestEdgeCaseTable(t *testing.T) {
	for _, tc := range edgeCases() {
		for _, m := range Modes {
			want, ok := tc.want[m]
			if !ok {
				t.Fatalf("%s: no expectation for %s", tc.name, m)
			}
			got := Compare(m, tc.pred, tc.gold, tc.opt)
			if math.Abs(got.Score-want) > 1e-12 || got.Match != (want == 1) {
				t.Errorf("%s / %s: got %+v, want score %v", tc.name, m, got, want)
			}
			if got.Match && got.Why != "" {
				t.Errorf("%s / %s: a match gives no reason, got %q", tc.name, m, got.Why)
			}
			if !got.Match && got.Why == "" {
				t.Errorf("%s / %s: a miss must say why", tc.name, m)
			}
			if w, ok := tc.why[m]; ok && got.Why != w {
				t.Errorf("%s / %s: why %q, want %q", tc.name, m, got.Why, w)
			}
		}
	}
}

// Spider 2.0 keeps row order unless told otherwise.
func TestSpider2RowOrderWithoutIgnoreOrder(t *testing.T) {
	pred := res(1, row(I(2)), row(I(1)))
	gold := res(1, row(I(1)), row(I(2)))
	if v := Compare(Spider2, pred, gold, Options{}); v.Match || v.Why != WhyOrder {
		t.Fatalf("got %+v, want a miss for order", v)
	}
	if v := Compare(Spider2, pred, gold, Options{IgnoreOrder: true}); !v.Match {
		t.Fatalf("ignore_order: got %+v", v)
	}
}
