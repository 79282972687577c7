package compare

import (
	"math"
	"testing"

	"github.com/sqlgym/sqlgym"
)

// Expected scores worked out by hand from calculate_f1_score.
func TestF1Scores(t *testing.T) {
	cases := []struct {
		name       string
		pred, gold [][]any
		want       float64
	}{
		// One row right, one missing: tp=1, fn=1 -> P=1, R=0.5.
		{"one of two rows", [][]any{{1, "a"}}, [][]any{{1, "a"}, {2, "b"}}, 2.0 / 3},
		// Half of each cell pair right: tp=1, fp=1, fn=1.
		{"half cells", [][]any{{"x", 2}, {"y", 1}}, [][]any{{"x", 1}, {"y", 2}}, 0.5},
		// An extra predicted row: tp=1, fp=1 -> P=0.5, R=1.
		{"extra row", [][]any{{1}, {2}}, [][]any{{1}}, 2.0 / 3},
		// Nothing predicted: tp=0.
		{"empty prediction", nil, [][]any{{1}}, 0},
		{"empty gold", [][]any{{1}}, nil, 0},
		// Duplicates collapse on both sides before pairing.
		{"duplicates", [][]any{{1}, {1}, {2}}, [][]any{{2}, {1}}, 1},
		// Cell membership ignores position: (1,2) vs (2,1) is a full match.
		{"cells anywhere in the row", [][]any{{1, 2}}, [][]any{{2, 1}}, 1},
		// A row missing one of three cells: tp=2/3, fp=1/3, fn=1/3.
		{"two of three cells", [][]any{{1, 2, 9}}, [][]any{{1, 2, 3}}, 2.0 / 3},
		// A narrower prediction: tp=1/2, fp=0, fn=1/2 -> P=1, R=1/2.
		{"narrow prediction", [][]any{{1}}, [][]any{{1, 2}}, 2.0 / 3},
	}
	for _, c := range cases {
		v := Compare(F1, anyRes(c.pred, c.gold), anyRes(c.gold, c.pred), Options{})
		if math.Abs(v.Score-c.want) > 1e-12 || v.Match != (c.want == 1) {
			t.Errorf("%s: got %+v, want %v", c.name, v, c.want)
		}
	}
}

// anyRes builds a result from Go values; other gives the column count
// when rows is empty.
func anyRes(rows, other [][]any) *sqlgym.ResultSet {
	n := 0
	if len(rows) > 0 {
		n = len(rows[0])
	} else if len(other) > 0 {
		n = len(other[0])
	}
	r := res(n)
	for _, in := range rows {
		var out []sqlgym.Value
		for _, x := range in {
			switch x := x.(type) {
			case int:
				out = append(out, I(int64(x)))
			case float64:
				out = append(out, F(x))
			case string:
				out = append(out, T(x))
			case nil:
				out = append(out, N())
			}
		}
		r.Rows = append(r.Rows, out)
	}
	return r
}

// Rows whose texts would run together if cells were just joined with a
// separator byte are still two different rows: the gold has two rows, so
// one predicted row cannot score 1.
func TestF1RowKeysDoNotRunTogether(t *testing.T) {
	r1 := row(T("a\xffsb"), T("c"))
	r2 := row(T("a"), T("b\xffsc"))
	v := Compare(F1, res(2, r1), res(2, r1, r2), Options{})
	if v.Match || v.Score >= 1 {
		t.Fatalf("got %+v: two gold rows were taken for one", v)
	}
}

// Membership ignores repeats: (2.0, 0, 2) fully matches (0, 0, 2), and
// the pairing must find that pair among others.
func TestF1PairsBySetOfCells(t *testing.T) {
	pred := res(3, row(T("1"), I(0), F(1)), row(F(2), I(0), F(0)), row(F(2), I(0), I(2)))
	gold := res(3, row(T("1"), I(0), F(1)), row(I(0), I(0), I(2)), row(F(2), I(0), F(0)))
	if v := Compare(F1, pred, gold, Options{}); !v.Match {
		t.Fatalf("got %+v, want a full score", v)
	}
}
