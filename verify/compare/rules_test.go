package compare

import (
	"errors"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym"
)

func TestParseMode(t *testing.T) {
	for _, m := range Modes {
		got, err := ParseMode(" " + strings.ToUpper(string(m)) + " ")
		if err != nil || got != m {
			t.Errorf("ParseMode(%q) = %q, %v", m, got, err)
		}
	}
	if m, err := ParseMode(""); err != nil || m != Multiset {
		t.Errorf("empty mode: %q, %v; want the default multiset", m, err)
	}
	_, err := ParseMode("exact")
	var ue *sqlgym.UserError
	if !errors.As(err, &ue) {
		t.Fatalf("unknown mode: want a UserError, got %v", err)
	}
	for _, m := range Modes {
		if !strings.Contains(ue.Hint, string(m)) {
			t.Errorf("hint %q does not list %s", ue.Hint, m)
		}
	}
}

func TestStopAfter(t *testing.T) {
	gold := res(1, row(I(1)), row(I(2)), row(I(3)))
	want := map[Mode]int{Multiset: 4, Strict: 4, TestSuite: 4, Spider2: 4, Bird: 0, F1: 0}
	for m, w := range want {
		if got := StopAfter(m, gold); got != w {
			t.Errorf("StopAfter(%s) = %d, want %d", m, got, w)
		}
		if got := Prepare(m, gold, Options{}).StopAfter(); got != w {
			t.Errorf("Gold.StopAfter(%s) = %d, want %d", m, got, w)
		}
	}
}

// A prediction read up to StopAfter rows comes back capped; every mode
// must refuse it, with the reason its rules give.
func TestCapped(t *testing.T) {
	gold := res(1, row(I(1)), row(I(2)))
	pred := res(1, row(I(1)), row(I(2)), row(I(2)))
	pred.Capped = true
	want := map[Mode]string{Multiset: WhyRowCount, TestSuite: WhyRowCount, Spider2: WhyRowCount,
		Strict: WhyRowCount, Bird: WhyCapped, F1: WhyCapped}
	for m, why := range want {
		v := Compare(m, pred, gold, Options{})
		if v.Match || v.Score != 0 || v.Why != why {
			t.Errorf("%s: got %+v, want a miss for %s", m, v, why)
		}
	}
	// Even a capped result holding exactly the gold's rows never matches.
	same := res(1, row(I(1)), row(I(2)))
	same.Capped = true
	for _, m := range Modes {
		if v := Compare(m, same, gold, Options{}); v.Match {
			t.Errorf("%s: a capped result matched", m)
		}
	}
}

func TestWhyDuplicates(t *testing.T) {
	gold := res(2, row(I(1), T("a")), row(I(1), T("a")), row(I(2), T("b")))
	pred := res(2, row(I(1), T("a")), row(I(2), T("b")), row(I(2), T("b")))
	for _, m := range []Mode{Multiset, Strict, TestSuite} {
		if v := Compare(m, pred, gold, Options{}); v.Match || v.Why != WhyDuplicates {
			t.Errorf("%s: got %+v, want duplicates", m, v)
		}
	}
	// With columns swapped the sets still agree for the permuting modes.
	swapped := res(2, row(T("a"), I(1)), row(T("b"), I(2)), row(T("b"), I(2)))
	for _, m := range []Mode{Multiset, TestSuite} {
		if v := Compare(m, swapped, gold, Options{}); v.Why != WhyDuplicates {
			t.Errorf("%s swapped: got %+v, want duplicates", m, v)
		}
	}
	if v := Compare(Bird, pred, gold, Options{}); !v.Match {
		t.Errorf("bird collapses duplicates: got %+v", v)
	}
	// Different sets: values, not duplicates.
	other := res(2, row(I(1), T("a")), row(I(3), T("c")), row(I(3), T("c")))
	if v := Compare(Multiset, other, gold, Options{}); v.Why != WhyValues {
		t.Errorf("got %+v, want values", v)
	}
}

func TestMultisetValues(t *testing.T) {
	eq := [][2]sqlgym.Value{
		{T(" 2.50 "), F(2.5)},
		{T("1"), I(1)},
		{T("007"), I(7)},
		{T("1e3"), I(1000)},
		{F(1.005), D("1.01")}, // half away from zero on the shortest digits
		{T("1.005"), F(1.01)},
		{F(2.675), D("2.68")},
		{F(-0.001), I(0)},
		{F(0.125), F(0.13)},
		{F(-0.125), F(-0.13)},
		{D("12.50"), T("12.5")},
		{F(1e20), D("100000000000000000000")},
		{sqlgym.Bool(true), I(1)},
		{T("  Hello World "), T("hello world")},
		{T("ÄBC"), T("äbc")},
		{sqlgym.Date("2024-01-02"), T("2024-01-02")},
		{sqlgym.Timestamp("2024-01-02 10:00:00"), T("2024-01-02 10:00:00")},
		{N(), N()},
	}
	for _, c := range eq {
		if v := Compare(Multiset, res(1, row(c[0])), res(1, row(c[1])), Options{}); !v.Match {
			t.Errorf("multiset %v (%s) vs %v (%s): got %+v, want a match", c[0], c[0].Kind, c[1], c[1].Kind, v)
		}
	}
	ne := [][2]sqlgym.Value{
		{F(0.334), F(0.335)},
		{N(), T("")},
		{N(), I(0)},
		{T(""), I(0)},
		{T("1,000"), I(1000)},
		{T("abc"), T("abd")},
		{sqlgym.Bytes([]byte("a")), T("a")},
		{F(1.004), F(1.005)},
	}
	for _, c := range ne {
		if v := Compare(Multiset, res(1, row(c[0])), res(1, row(c[1])), Options{}); v.Match {
			t.Errorf("multiset %v vs %v matched", c[0], c[1])
		}
	}
}

func TestBirdValues(t *testing.T) {
	eq := [][2]sqlgym.Value{
		{I(1), F(1.0)},
		{sqlgym.Bool(true), I(1)},
		{sqlgym.Bool(false), F(0)},
		{D("1.0"), I(1)},
		{D("1.00"), D("1")},
		{D("0.5"), F(0.5)},
		{D("-2.500"), F(-2.5)},
		{F(1e20), D("100000000000000000000")},
	}
	for _, c := range eq {
		if v := Compare(Bird, res(1, row(c[0])), res(1, row(c[1])), Options{}); !v.Match {
			t.Errorf("bird %v (%s) vs %v (%s): got %+v", c[0], c[0].Kind, c[1], c[1].Kind, v)
		}
	}
	ne := [][2]sqlgym.Value{
		{D("0.1"), F(0.1)}, // Python: Decimal('0.1') != 0.1
		{D("1E+23"), F(1e23)},
		{I(9007199254740993), F(9007199254740992)},
		{T("1"), I(1)},
		{T("ABC"), T("abc")},
		{T("a "), T("a")},
		{N(), I(0)},
		{N(), T("")},
		{sqlgym.Date("2024-01-02"), T("2024-01-02")},
		{sqlgym.Bytes([]byte("a")), T("a")},
		{F(pointOne + pointTwo), F(0.3)}, // 0.30000000000000004
	}
	for _, c := range ne {
		if v := Compare(Bird, res(1, row(c[0])), res(1, row(c[1])), Options{}); v.Match {
			t.Errorf("bird %v (%s) vs %v (%s) matched", c[0], c[0].Kind, c[1], c[1].Kind)
		}
	}
}

// The test-suite quick reject sorts each row's cells by str(x)+str(type(x)):
// (2, 2.5) sorts to (2.5, 2) but (2.0, 2.5) stays, so they differ even
// though 2 == 2.0.
func TestTestSuiteQuickRejectQuirk(t *testing.T) {
	a := res(2, row(I(2), F(2.5)))
	b := res(2, row(F(2.0), F(2.5)))
	if v := Compare(TestSuite, a, b, Options{}); v.Match {
		t.Fatalf("(2, 2.5) vs (2.0, 2.5) matched; the official scorer rejects it")
	}
	// Where the sort order agrees, int and float are equal.
	c := res(2, row(I(2), I(3)))
	d := res(2, row(F(2.0), I(3)))
	if v := Compare(TestSuite, c, d, Options{}); !v.Match {
		t.Fatalf("(2, 3) vs (2.0, 3): got %+v", v)
	}
	// Multiset has no such quirk.
	if v := Compare(Multiset, a, b, Options{}); !v.Match {
		t.Fatalf("multiset (2, 2.5) vs (2.0, 2.5): got %+v", v)
	}
}

// Bag semantics with a column permutation, and order when asked.
func TestTestSuiteBag(t *testing.T) {
	gold := res(2, row(I(1), T("a")), row(I(1), T("a")), row(I(2), T("b")))
	pred := res(2, row(T("b"), I(2)), row(T("a"), I(1)), row(T("a"), I(1)))
	if v := Compare(TestSuite, pred, gold, Options{}); !v.Match {
		t.Fatalf("got %+v", v)
	}
	if v := Compare(TestSuite, pred, gold, Options{GoldOrdered: true}); v.Match || v.Why != WhyOrder {
		t.Fatalf("ordered: got %+v", v)
	}
	inOrder := res(2, row(T("a"), I(1)), row(T("a"), I(1)), row(T("b"), I(2)))
	if v := Compare(TestSuite, inOrder, gold, Options{GoldOrdered: true}); !v.Match {
		t.Fatalf("ordered, columns swapped: got %+v", v)
	}
}

func TestPythonFloatRepr(t *testing.T) {
	// Expected strings are what CPython 3.11's repr() prints.
	cases := map[float64]string{
		2.0: "2.0", 2.5: "2.5", 0.1: "0.1", pointOne + pointTwo: "0.30000000000000004",
		1e16: "1e+16", 1.5e16: "1.5e+16", 1e15: "1000000000000000.0", 123456789.123: "123456789.123",
		0.0001: "0.0001", 1e-05: "1e-05", 1.5e-7: "1.5e-07", 12345678901234567890.0: "1.2345678901234567e+19",
		5e-324: "5e-324", 1e100: "1e+100", -2.0: "-2.0", -1e-10: "-1e-10", 100.0: "100.0", 0: "0.0",
	}
	for f, want := range cases {
		if got := string(appendPyFloatRepr(nil, f)); got != want {
			t.Errorf("repr(%v) = %q, want %q", f, got, want)
		}
	}
	if got := string(appendPyFloatRepr(nil, negZero())); got != "-0.0" {
		t.Errorf("repr(-0.0) = %q", got)
	}
}

func TestPythonBytesRepr(t *testing.T) {
	cases := map[string]string{
		"abc":                `b'abc'`,
		"it's":               `b"it's"`,
		"a'b\"":              `b'a\'b"'`,
		"\x00\xff\\\n\t\r":   `b'\x00\xff\\\n\t\r'`,
		string([]byte{0x7f}): `b'\x7f'`,
		"":                   `b''`,
	}
	for in, want := range cases {
		if got := string(appendPyBytesRepr(nil, in)); got != want {
			t.Errorf("repr(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestPySortKey(t *testing.T) {
	cases := []struct {
		v    sqlgym.Value
		want string
	}{
		{I(2), "2<class 'int'>"},
		{F(2), "2.0<class 'float'>"},
		{N(), "None<class 'NoneType'>"},
		{T("x"), "x<class 'str'>"},
		{sqlgym.Bytes([]byte("x")), "b'x'<class 'bytes'>"},
		{sqlgym.Bool(true), "True<class 'bool'>"},
		{D("1.50"), "1.50<class 'decimal.Decimal'>"},
		{D("0.0000001"), "1E-7<class 'decimal.Decimal'>"}, // str(Decimal) turns scientific below 1e-6
	}
	for _, c := range cases {
		if got := string(appendPySortKey(nil, c.v)); got != c.want {
			t.Errorf("%v: %q, want %q", c.v, got, c.want)
		}
	}
}
