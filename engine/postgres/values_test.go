package postgres

import (
	"context"
	"math"
	"testing"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/engine/enginetest"
)

// TestValueKinds checks the canonical value of every PostgreSQL type the
// engine maps, including the special values of floats, numerics, dates
// and timestamps, and that time zones are rendered in UTC.
func TestValueKinds(t *testing.T) {
	s := newSandbox(t, []string{
		`CREATE TABLE typed (i2 smallint, i4 integer, i8 bigint, f4 real, f8 double precision, num numeric(10,2),
			vc varchar(10), ch char(5), tx text, by bytea, b boolean, d date, tm time, ts timestamp, tstz timestamptz,
			iv interval, u uuid, js json, jb jsonb, arr integer[])`,
		`INSERT INTO typed VALUES (-32768, 2147483647, -9223372036854775808, 1.5, 0.1, 12.50,
			'abc', 'ab', 'x', '\x00ff10', true, '2024-02-29', '23:59:59.123456', '2021-03-04 05:06:07.5',
			'2024-01-01 12:00:00+02', '1 year 2 months 3 days 04:05:06', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11',
			'{"a": [1, 2]}', '{"b": 1, "a": 2}', '{1,2,3}')`,
	})
	eng := s.open(t, Options{})
	cases := []struct {
		name string
		sql  string
		want []sqlgym.Value
	}{
		{"columns", `SELECT i2, i4, i8, f4, f8, num, vc, ch, tx, by, b, d, tm, ts, tstz, iv, u, js, jb, arr FROM typed`, []sqlgym.Value{
			sqlgym.Int(-32768), sqlgym.Int(2147483647), sqlgym.Int(math.MinInt64), sqlgym.Float(1.5), sqlgym.Float(0.1),
			sqlgym.Decimal("12.50"), sqlgym.Text("abc"), sqlgym.Text("ab   "), sqlgym.Text("x"), sqlgym.Bytes([]byte{0, 0xff, 0x10}),
			sqlgym.Bool(true), sqlgym.Date("2024-02-29"), sqlgym.TimeOfDay("23:59:59.123456"), sqlgym.Timestamp("2021-03-04 05:06:07.5"),
			sqlgym.Timestamp("2024-01-01 10:00:00"), sqlgym.Interval("1 year 2 mons 3 days 04:05:06"),
			sqlgym.Text("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"), sqlgym.Text(`{"a": [1, 2]}`), sqlgym.Text(`{"a": 2, "b": 1}`), sqlgym.Text("{1,2,3}"),
		}},
		{"float_specials", `SELECT 'NaN'::float8, 'Infinity'::float8, '-Infinity'::float4, 1e300::float8 * 10, 0.1::float4`, []sqlgym.Value{
			sqlgym.Float(math.NaN()), sqlgym.Float(math.Inf(1)), sqlgym.Float(math.Inf(-1)), sqlgym.Float(1e301), sqlgym.Float(0.1),
		}},
		{"numeric_specials", `SELECT 'NaN'::numeric, 'Infinity'::numeric, '-Infinity'::numeric, 1.10::numeric(5,3), 10::numeric / 4, 123456789012345678901234567890.5`, []sqlgym.Value{
			sqlgym.Decimal("NaN"), sqlgym.Decimal("Infinity"), sqlgym.Decimal("-Infinity"), sqlgym.Decimal("1.100"),
			sqlgym.Decimal("2.5000000000000000"), sqlgym.Decimal("123456789012345678901234567890.5"),
		}},
		{"date_specials", `SELECT 'infinity'::date, '0044-03-15 BC'::date, '2024-06-01 12:00:00 BC'::timestamptz, '-infinity'::timestamptz`, []sqlgym.Value{
			sqlgym.Date("infinity"), sqlgym.Date("0044-03-15 BC"), sqlgym.Timestamp("2024-06-01 12:00:00 BC"), sqlgym.Timestamp("-infinity"),
		}},
		{"text_kinds", `SELECT 'n'::name, 'x'::"char", NULL::int, NULL::text, false, ''::text, ''::bytea`, []sqlgym.Value{
			sqlgym.Text("n"), sqlgym.Text("x"), sqlgym.Null(), sqlgym.Null(), sqlgym.Bool(false), sqlgym.Text(""), sqlgym.Bytes(nil),
		}},
		{"intervals", `SELECT interval '90 minutes', interval '-1 day 02:00', interval '1.5 seconds'`, []sqlgym.Value{
			sqlgym.Interval("01:30:00"), sqlgym.Interval("-1 days +02:00:00"), sqlgym.Interval("00:00:01.5"),
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := eng.Query(context.Background(), c.sql, sqlgym.Limits{})
			if err != nil {
				t.Fatalf("%s: %v", c.sql, err)
			}
			if len(res.Rows) != 1 || len(res.Rows[0]) != len(c.want) {
				t.Fatalf("got %d rows of %v, want one row of %d values", len(res.Rows), res.Rows, len(c.want))
			}
			for i, w := range c.want {
				got := res.Rows[0][i]
				if !sameOrBothNaN(got, w) {
					t.Errorf("column %d (%s): got %s, want %s", i, res.Columns[i], enginetest.FormatValue(got), enginetest.FormatValue(w))
				}
			}
		})
	}
}

func sameOrBothNaN(a, b sqlgym.Value) bool {
	if a.Kind == b.Kind && (a.Kind == sqlgym.KindFloat || a.Kind == sqlgym.KindDecimal) && math.IsNaN(a.Float) && math.IsNaN(b.Float) {
		return a.Str == b.Str
	}
	return enginetest.SameValue(a, b)
}

// TestColumnsWithoutRows checks that column names come back for results
// with no rows and for a query with no columns at all.
func TestColumnsWithoutRows(t *testing.T) {
	s := newSandbox(t, []string{`CREATE TABLE e (a int, "B c" text)`})
	eng := s.open(t, Options{})
	res, err := eng.Query(context.Background(), `SELECT a, "B c", a + 1 FROM e`, sqlgym.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	enginetest.ExpectRows(t, res, []string{"a", "B c", "?column?"}, nil)
	res, err = eng.Query(context.Background(), `SELECT FROM generate_series(1, 3)`, sqlgym.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if res.NumCols() != 0 || len(res.Rows) != 3 {
		t.Errorf("SELECT with no columns: %d columns, %d rows; want 0 and 3", res.NumCols(), len(res.Rows))
	}
}
