package compare

import (
	"testing"

	"github.com/sqlgym/sqlgym"
)

// The CSV round trip decides types per column, as read_csv infers them.
func TestSpider2CSVRoundTrip(t *testing.T) {
	cases := []struct {
		name       string
		pred, gold *sqlgym.ResultSet
		opt        Options
		match      bool
	}{
		{"digit text becomes a number", res(1, row(T("1")), row(T("2"))), res(1, row(I(1)), row(I(2))), Options{}, true},
		{"text beside a word stays text", res(1, row(T("1")), row(T("a"))), res(1, row(I(1)), row(T("a"))), Options{}, true},
		{"text '1' in a text column is not 1",
			res(2, row(T("1"), I(9)), row(T("a"), I(9))), res(1, row(I(1)), row(I(2))), Options{}, false},
		{"empty text is NaN is 0", res(1, row(T("")), row(T("x"))), res(1, row(I(0)), row(T("x"))), Options{}, false},
		{"empty text is NaN is 0 in a number column", res(1, row(T("")), row(T("5"))), res(1, row(I(0)), row(I(5))), Options{}, true},
		{"'NULL' text is NaN", res(1, row(T("NULL")), row(I(3))), res(1, row(N()), row(I(3))), Options{}, true},
		{"NULL beside text is 0, not a string", res(1, row(N()), row(T("a"))), res(1, row(I(0)), row(T("a"))), Options{}, false},
		{"bool is a number", res(1, row(sqlgym.Bool(true)), row(sqlgym.Bool(false))), res(1, row(I(1)), row(I(0))), Options{}, true},
		{"'true' text is a bool", res(1, row(T("true")), row(T("False"))), res(1, row(F(1)), row(F(0))), Options{}, true},
		{"tolerance 1e-2", res(1, row(F(1.004))), res(1, row(F(1.0))), Options{}, true},
		{"outside tolerance", res(1, row(F(1.02))), res(1, row(F(1.0))), Options{}, false},
		{"decimal text", res(1, row(D("12.50"))), res(1, row(F(12.5))), Options{}, true},
		{"text is exact", res(1, row(T("a "))), res(1, row(T("a"))), Options{}, false},
		{"blanks around digits still parse", res(1, row(T(" 7 "))), res(1, row(I(7))), Options{}, true},
		{"dates compare as text", res(1, row(sqlgym.Date("2024-01-02"))), res(1, row(T("2024-01-02"))), Options{}, true},
		{"one predicted column serves two gold columns", res(1, row(I(4))), res(2, row(I(4), I(4))), Options{}, true},
		{"condition column only", res(1, row(I(1)), row(I(2))), res(2, row(T("x"), I(1)), row(T("y"), I(2))),
			Options{ConditionCols: []int{1}}, true},
		{"condition column from the end", res(1, row(I(1)), row(I(2))), res(2, row(T("x"), I(1)), row(T("y"), I(2))),
			Options{ConditionCols: []int{-1}}, true},
		{"all columns without condition columns", res(1, row(I(1)), row(I(2))), res(2, row(T("x"), I(1)), row(T("y"), I(2))),
			Options{}, false},
		// Sorting by str(x) puts "10" before "9" on both sides alike.
		{"ignore order sorts by text", res(1, row(I(10)), row(I(9)), row(I(100))), res(1, row(I(9)), row(I(100)), row(I(10))),
			Options{IgnoreOrder: true}, true},
		{"ignore order, each column alone", res(2, row(T("x"), I(2)), row(T("y"), I(1))), res(2, row(T("y"), I(2)), row(T("x"), I(1))),
			Options{IgnoreOrder: true}, true},
	}
	for _, c := range cases {
		v := Compare(Spider2, c.pred, c.gold, c.opt)
		if v.Match != c.match {
			t.Errorf("%s: got %+v, want match=%v", c.name, v, c.match)
		}
	}
}

// In an all-number frame pandas turns int columns into floats, which
// changes str(x) and so the ignore_order sort; the match must survive.
func TestSpider2FrameUpcast(t *testing.T) {
	gold := res(2, row(I(1), F(0.5)), row(I(10), F(1.5)), row(I(2), F(2.5)))
	vecs := s2Frame(gold, identity(2))
	if vecs[0][0].kind != pyFloat {
		t.Fatalf("int column beside a float column: kind %v, want float", vecs[0][0].kind)
	}
	withText := res(2, row(I(1), T("a")))
	if v := s2Frame(withText, identity(2)); v[0][0].kind != pyInt {
		t.Fatalf("int column beside a text column: kind %v, want int", v[0][0].kind)
	}
	pred := res(1, row(I(10)), row(I(2)), row(I(1)))
	if v := Compare(Spider2, pred, gold, Options{IgnoreOrder: true, ConditionCols: []int{0}}); !v.Match {
		t.Fatalf("got %+v", v)
	}
}

func TestSpider2BadConditionColumn(t *testing.T) {
	gold := res(2, row(I(1), I(2)))
	if v := Compare(Spider2, gold, gold, Options{ConditionCols: []int{2}}); v.Match || v.Why != WhyColumnCount {
		t.Fatalf("got %+v, want a column_count miss", v)
	}
}
