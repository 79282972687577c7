package compare

import (
	"math"
	"testing"

	"github.com/sqlgym/sqlgym"
)

// Cell equality in strict mode. The first group is the upstream test of
// canon_value (lmnst/text2sql-rlvr, tests/test_compare.py:138-153), with
// Python's values as the drivers hand them over (sqlite3: INTEGER int,
// REAL float, TEXT str; psycopg/duckdb: bool, Decimal). The rest follow the
// branches of canon_value itself (src/text2sql_rlvr/rewards/canonical.py:
// 27-47), one case per rule.
func TestStrictCellEquality(t *testing.T) {
	big := int64(1)<<60 + 1
	cases := []struct {
		name string
		a, b sqlgym.Value
		eq   bool
	}{
		// tests/test_compare.py:141-149
		{"1 = 1.0", I(1), F(1.0), true},
		{"2.0000001 = 2.0000002 at 6 significant digits", F(2.0000001), F(2.0000002), true},
		{"1.0 != 1.1", F(1.0), F(1.1), false},
		{"None != 0", N(), I(0), false},
		{"None != ''", N(), T(""), false},
		{"0 != ''", I(0), T(""), false},
		{"0 != '0'", I(0), T("0"), false},
		{"True = 1", sqlgym.Bool(true), I(1), true},
		{"2**60+1 != float(2**60+1)", I(big), F(float64(big)), false},

		// canonical.py:29-30, None only equals None.
		{"None = None", N(), N(), true},
		// canonical.py:31-34, bool is an int.
		{"False = 0", sqlgym.Bool(false), I(0), true},
		// canonical.py:36-39, NaN and infinities by name.
		{"nan = nan", F(math.NaN()), F(math.NaN()), true},
		{"inf = inf", F(math.Inf(1)), F(math.Inf(1)), true},
		{"inf != -inf", F(math.Inf(1)), F(math.Inf(-1)), false},
		// canonical.py:40-41, integral floats below 2**53 are ints.
		{"-0.0 = 0", F(negZero()), I(0), true},
		{"2**53-1 as float = int", F(1<<53 - 1), I(1<<53 - 1), true},
		{"2**53 as float stays a float", F(1 << 53), I(1 << 53), false},
		{"1e16 != 10**16", F(1e16), I(10_000_000_000_000_000), false},
		{"2**53 = 2**53+2 as floats, both 9.0072e+15", F(1 << 53), F(1<<53 + 2), true},
		// canonical.py:42, other floats by their .6g text.
		{"0.1+0.2 = 0.3", F(pointOne + pointTwo), F(0.3), true},
		{"1/3 = 0.333333", F(1.0 / 3), F(0.333333), true},
		{"0.333 != 0.3333", F(0.333), F(0.3333), false},
		{"2.0000001 != 2: '2' as text is not the int 2", F(2.0000001), I(2), false},
		{"1234567.4 = 1234571.2, both 1.23457e+06", F(1234567.4), F(1234571.2), true},
		{"1234567.4 != 1234570.0, an integral float is an int", F(1234567.4), F(1234570), false},
		{"1e-07 = 1.0000004e-07", F(1e-7), F(1.0000004e-7), true},
		// canonical.py:43-44, bytes by their bytes.
		{"b'a' = b'a'", sqlgym.Bytes([]byte("a")), sqlgym.Bytes([]byte("a")), true},
		{"b'a' != 'a'", sqlgym.Bytes([]byte("a")), T("a"), false},
		// canonical.py:45-46, str exact.
		{"'a' != 'A'", T("a"), T("A"), false},
		{"'a ' != 'a'", T("a "), T("a"), false},
		{"'1' != 1", T("1"), I(1), false},
		// canonical.py:47, everything else by str(): Decimal keeps its digits.
		{"Decimal('1.50') != Decimal('1.5')", D("1.50"), D("1.5"), false},
		{"Decimal('2') != 2", D("2"), I(2), false},
		{"Decimal('12.5') != 12.5", D("12.5"), F(12.5), false},
		{"Decimal('0.0000001') = Decimal('1E-7')", D("0.0000001"), D("1E-7"), true},
		{"Decimal('007.50') = Decimal('7.50')", D("007.50"), D("7.50"), true},
		{"Decimal('NaN') != float nan", D("NaN"), F(math.NaN()), false},
		// Dates and times by str(), never equal to a str.
		{"date = date", sqlgym.Date("2024-01-02"), sqlgym.Date("2024-01-02"), true},
		{"date != its text", sqlgym.Date("2024-01-02"), T("2024-01-02"), false},
		{"time = timedelta when str() agrees, as in Python", sqlgym.TimeOfDay("10:00:00"), sqlgym.Interval("10:00:00"), true},
	}
	for _, c := range cases {
		v := Compare(Strict, res(1, row(c.a)), res(1, row(c.b)), Options{})
		if v.Match != c.eq {
			t.Errorf("%s: got %+v, want match=%v", c.name, v, c.eq)
		}
		if !c.eq && v.Why != WhyValues {
			t.Errorf("%s: why %q, want values", c.name, v.Why)
		}
	}
}

// staff is the upstream fixture's table (tests/conftest.py:19-41) as
// Python's sqlite3 returns it: INTEGER as int, REAL as float, TEXT as str,
// NULL as None.
var staff = []struct {
	id     int64
	name   string
	dept   int64
	salary float64
	note   sqlgym.Value
}{
	{1, "Ada", 1, 100.0, T("lead")},
	{2, "Bob", 1, 90.0, N()},
	{3, "Cy", 1, 90.0, T("")},
	{4, "Dee", 2, 80.0, N()},
	{5, "Eve", 2, 80.0, T("part-time")},
}

// names is SELECT name FROM staff, in the order of ids.
func names(ids ...int64) *sqlgym.ResultSet {
	rs := res(1)
	for _, id := range ids {
		rs.Rows = append(rs.Rows, row(T(staff[id-1].name)))
	}
	return rs
}

// The upstream verifier's own tests, on the result sets their queries give
// on the fixture: tests/test_compare.py:28-87.
func TestStrictUpstreamCases(t *testing.T) {
	salaries := res(1)
	for _, s := range staff {
		salaries.Rows = append(salaries.Rows, row(F(s.salary)))
	}
	idName := res(2)
	for _, s := range staff {
		idName.Rows = append(idName.Rows, row(I(s.id), T(s.name)))
	}
	cases := []struct {
		name       string
		pred, gold *sqlgym.ResultSet
		strict     bool
		why        string
		bird       bool // the upstream "official" verdict, BIRD's set(pred) == set(gold)
	}{
		// test_compare.py:28-32
		{"identical queries agree", names(1, 2, 3), names(1, 2, 3), true, "", true},
		// test_compare.py:35-44: SELECT DISTINCT salary vs SELECT salary.
		{"DISTINCT hides duplicate rows", res(1, row(F(100)), row(F(90)), row(F(80))), salaries, false, WhyRowCount, true},
		// test_compare.py:47-58: two empty results with different column counts.
		{"empty vs empty, other column count", res(2), res(1), false, WhyColumnCount, true},
		// test_compare.py:61-69
		{"empty vs empty, same column count", res(1), res(1), true, "", true},
		// test_compare.py:72-79: SELECT 0.3 vs SELECT 0.1 + 0.2.
		{"float noise", res(1, row(F(0.3))), res(1, row(F(pointOne+pointTwo))), true, "", false},
		// test_compare.py:82-87: SELECT staff_id, name vs SELECT name.
		{"column count", idName, names(1, 2, 3, 4, 5), false, WhyColumnCount, false},
	}
	for _, c := range cases {
		v := Compare(Strict, c.pred, c.gold, Options{})
		if v.Match != c.strict || v.Why != c.why {
			t.Errorf("%s: strict got %+v, want match=%v why=%q", c.name, v, c.strict, c.why)
		}
		if b := Compare(Bird, c.pred, c.gold, Options{}); b.Match != c.bird {
			t.Errorf("%s: official (bird) got %+v, want match=%v", c.name, b, c.bird)
		}
	}
}

// Order policies, on the upstream case (tests/test_compare.py:107-135):
// gold ORDER BY salary DESC, name ASC against prediction ORDER BY salary
// ASC, name DESC; the rows agree as a multiset only.
func TestStrictOrderPolicy(t *testing.T) {
	gold := names(1, 2, 3, 4, 5) // 100 Ada, 90 Bob, 90 Cy, 80 Dee, 80 Eve
	pred := names(5, 4, 3, 2, 1)
	cases := []struct {
		policy      OrderPolicy
		goldOrderBy bool
		match       bool
	}{
		{OrderDefault, true, true}, // test_compare.py:119-123: the default ignores order
		{OrderIgnore, true, true},
		{OrderGoldOrderBy, true, false}, // test_compare.py:125-128
		{OrderGoldOrderBy, false, true}, // compare.py:128-130: only with a top-level ORDER BY
		{OrderAlways, true, false},      // test_compare.py:130-131
		{OrderAlways, false, false},
	}
	for _, c := range cases {
		v := Compare(Strict, pred, gold, Options{GoldOrdered: c.goldOrderBy, Order: c.policy})
		if v.Match != c.match {
			t.Errorf("policy %q, gold ORDER BY %v: got %+v, want match=%v", c.policy, c.goldOrderBy, v, c.match)
		}
		if !c.match && v.Why != WhyOrder {
			t.Errorf("policy %q: why %q, want order", c.policy, v.Why)
		}
		// Rows in the gold's order match under every policy.
		if v := Compare(Strict, names(1, 2, 3, 4, 5), gold, Options{GoldOrdered: c.goldOrderBy, Order: c.policy}); !v.Match {
			t.Errorf("policy %q: the gold's own order: got %+v", c.policy, v)
		}
	}
	// A multiset miss is reported before order (compare.py:124-132):
	// Ada is missing, so the rows differ, whatever the order.
	if v := Compare(Strict, names(5, 4, 3, 2, 2), gold, Options{Order: OrderAlways}); v.Why != WhyValues {
		t.Errorf("wrong rows under always: got %+v, want values", v)
	}
	// test_compare.py:133-135: an unknown policy is refused.
	if _, err := ParseOrder("whatever"); err == nil {
		t.Error("ParseOrder accepted an unknown policy")
	}
}

// Rows are a Counter of canonical tuples (compare.py:120-126): column
// order is fixed and multiplicities count.
func TestStrictRows(t *testing.T) {
	gold := res(2, row(I(1), T("a")), row(I(1), T("a")), row(I(2), T("b")))
	cases := []struct {
		name  string
		pred  *sqlgym.ResultSet
		match bool
		why   string
	}{
		{"rows shuffled", res(2, row(I(2), T("b")), row(I(1), T("a")), row(I(1), T("a"))), true, ""},
		{"int and float mixed", res(2, row(F(1), T("a")), row(I(1), T("a")), row(F(2), T("b"))), true, ""},
		{"columns swapped", res(2, row(T("a"), I(1)), row(T("a"), I(1)), row(T("b"), I(2))), false, WhyValues},
		{"other multiplicities", res(2, row(I(1), T("a")), row(I(2), T("b")), row(I(2), T("b"))), false, WhyDuplicates},
		{"a row short", res(2, row(I(1), T("a")), row(I(2), T("b"))), false, WhyRowCount},
	}
	for _, c := range cases {
		v := Compare(Strict, c.pred, gold, Options{})
		if v.Match != c.match || v.Why != c.why {
			t.Errorf("%s: got %+v, want match=%v why=%q", c.name, v, c.match, c.why)
		}
	}
}

// str(Decimal(text)) as CPython 3.11 prints it: the key of a decimal in
// strict mode and its str() in the test-suite quick reject.
func TestPyDecimalStr(t *testing.T) {
	cases := map[string]string{
		"12.50": "12.50", "-3.10": "-3.10", "0.05": "0.05", "100": "100", "007.50": "7.50",
		"0.00": "0.00", "-0": "-0", "0.000001": "0.000001", "0.0000001": "1E-7", "0.00000010": "1.0E-7",
		"0.00000000": "0E-8", "1E+2": "1E+2", "1.0E+2": "1.0E+2", "1e-7": "1E-7", "12345678901234567890": "12345678901234567890",
		"NaN": "NaN", "-NaN": "-NaN", "Infinity": "Infinity", "-Infinity": "-Infinity", "inf": "Infinity",
		" 1.5 ": "1.5", "abc": "abc",
	}
	for in, want := range cases {
		if got := pyDecimalStr(in); got != want {
			t.Errorf("str(Decimal(%q)) = %q, want %q", in, got, want)
		}
	}
}

// f"{x:.6g}" as CPython 3.11 prints it, the key of a non-integral float.
func TestRLVRFloatFormat(t *testing.T) {
	cases := map[float64]string{
		0.5: "f0.5", 1.0 / 3: "f0.333333", 2.0000001: "f2", 123456.7: "f123457", 100000.5: "f100000",
		1234567.4: "f1.23457e+06", 0.0001: "f0.0001", 0.00001: "f1e-05", 1e16: "f1e+16",
		-2.5: "f-2.5", 9999995.5: "f1e+07", 99999.95: "f99999.9", 1 << 53: "f9.0072e+15",
		2.0: "i2", 0.0: "i0", 1e15: "i1000000000000000",
	}
	for f, want := range cases {
		if got := string(appendRLVRFloat(nil, f)); got != want {
			t.Errorf("%v: key %q, want %q", f, got, want)
		}
	}
	// A -0.0 literal is the constant +0 in Go: only a computed zero is negative.
	if got := string(appendRLVRFloat(nil, negZero())); got != "i0" {
		t.Errorf("-0: key %q, want %q", got, "i0")
	}
}
