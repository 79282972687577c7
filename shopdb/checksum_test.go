package shopdb_test

import (
	"math/big"
	"testing"
	"time"

	"github.com/duckdb/duckdb-go/v2"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/shopdb"
)

// The shapes below are the ones the three drivers and the sqlgym engines
// hand back for the same stored value; each must reach one canonical text.
func TestCanonicalAgreesAcrossDrivers(t *testing.T) {
	day := time.Date(2024, 2, 29, 0, 0, 0, 0, time.UTC)
	stamp := time.Date(2024, 2, 29, 13, 4, 5, 0, time.UTC)
	cases := []struct {
		typ  string
		want string
		in   []any
	}{
		{"DECIMAL(10,2)", "12.00", []any{int64(12), float64(12), "12.00", []byte("12"),
			duckdb.Decimal{Width: 10, Scale: 2, Value: big.NewInt(1200)}, sqlgym.Decimal("12.00"), sqlgym.Int(12)}},
		{"DECIMAL(10,2)", "12.50", []any{12.5, "12.50", duckdb.Decimal{Width: 10, Scale: 2, Value: big.NewInt(1250)},
			sqlgym.Float(12.5), sqlgym.Decimal("12.5")}},
		{"DECIMAL(10,2)", "19.99", []any{19.99, "19.99", duckdb.Decimal{Width: 10, Scale: 2, Value: big.NewInt(1999)}}},
		{"DECIMAL(4,2)", "0.05", []any{0.05, "0.05", duckdb.Decimal{Width: 4, Scale: 2, Value: big.NewInt(5)}}},
		{"INTEGER", "42", []any{int64(42), int32(42), 42, float64(42), "42", sqlgym.Int(42)}},
		{"DATE", "2024-02-29", []any{day, "2024-02-29", "2024-02-29T00:00:00Z", sqlgym.Date("2024-02-29")}},
		{"TIMESTAMP", "2024-02-29 13:04:05", []any{stamp, "2024-02-29 13:04:05", "2024-02-29T13:04:05Z",
			[]byte("2024-02-29 13:04:05"), sqlgym.Timestamp("2024-02-29 13:04:05")}},
		{"VARCHAR(50)", "O'Brien", []any{"O'Brien", []byte("O'Brien"), sqlgym.Text("O'Brien")}},
	}
	for _, c := range cases {
		for _, in := range c.in {
			got, null, err := shopdb.Canonical(c.typ, in)
			if err != nil || null || got != c.want {
				t.Errorf("Canonical(%s, %#v) = %q, null=%v, %v; want %q", c.typ, in, got, null, err, c.want)
			}
		}
	}
}

func TestCanonicalNullAndMismatches(t *testing.T) {
	for _, in := range []any{nil, sqlgym.Null()} {
		if _, null, err := shopdb.Canonical("TEXT", in); !null || err != nil {
			t.Errorf("Canonical(TEXT, %#v): null=%v, %v; want NULL", in, null, err)
		}
	}
	// The text "NULL" is a value, not NULL.
	if s, null, _ := shopdb.Canonical("TEXT", "NULL"); null || s != "NULL" {
		t.Errorf(`Canonical(TEXT, "NULL") = %q, null=%v`, s, null)
	}
	bad := []struct {
		typ string
		in  any
	}{
		{"INTEGER", 12.5},
		{"INTEGER", "12.5"},
		{"DECIMAL(10,2)", "twelve"},
		{"DATE", "2024-02-29 13:04:05"},
		{"DATE", int64(20240229)},
		{"TIMESTAMP", "yesterday"},
		{"TEXT", int64(3)},
		{"BLOB", "x"},
	}
	for _, b := range bad {
		if s, _, err := shopdb.Canonical(b.typ, b.in); err == nil {
			t.Errorf("Canonical(%s, %#v) = %q, want an error", b.typ, b.in, s)
		}
	}
}
