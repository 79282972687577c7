package duckdb

import (
	"database/sql"
	"errors"
	"fmt"
	"math"
	"math/big"
	"testing"

	duck "github.com/duckdb/duckdb-go/v2"
)

var posInf = math.Inf(1)

func TestDecimalTextUnit(t *testing.T) {
	cases := []struct {
		v     int64
		scale uint8
		want  string
	}{
		{1250, 2, "12.50"}, {-5, 2, "-0.05"}, {0, 2, "0.00"}, {7, 0, "7"}, {-7, 0, "-7"}, {1, 3, "0.001"}, {-1000, 3, "-1.000"},
	}
	for _, c := range cases {
		got := decimalText(duck.Decimal{Width: 18, Scale: c.scale, Value: big.NewInt(c.v)})
		if got != c.want {
			t.Errorf("decimalText(%d, scale %d) = %q, want %q", c.v, c.scale, got, c.want)
		}
	}
}

func TestIntervalTextFallback(t *testing.T) {
	cases := []struct {
		iv   duck.Interval
		want string
	}{
		{duck.Interval{Months: 12, Days: 2, Micros: 3 * 3600e6}, "1 year 2 days 03:00:00"},
		{duck.Interval{Months: 1}, "1 month"},
		{duck.Interval{}, "00:00:00"},
		{duck.Interval{Micros: -1_500_000}, "-00:00:01.5"},
	}
	for _, c := range cases {
		if got := intervalText(c.iv); got != c.want {
			t.Errorf("intervalText(%+v) = %q, want %q", c.iv, got, c.want)
		}
	}
}

// A model's answer cannot make its worker restart by naming a column
// after DuckDB's fatal-error wording: the error's type decides.
func TestFatalErrorIsDecidedByType(t *testing.T) {
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range []string{
		`SELECT "FATAL Error: database has been invalidated"`,
		`SELECT "INTERNAL Error" FROM range(1)`,
		`SELECT CAST('FATAL Error invalidated' AS INTEGER)`,
	} {
		_, err := db.Exec(q)
		if err == nil {
			t.Fatalf("%s: ran", q)
		}
		if fatalError(err) {
			t.Errorf("%s: %v counted as fatal", q, err)
		}
	}
	for _, typ := range []duck.ErrorType{duck.ErrorTypeFatal, duck.ErrorTypeInternal} {
		if !fatalError(fmt.Errorf("query: %w", &duck.Error{Type: typ, Msg: "x"})) {
			t.Errorf("type %v not counted as fatal", typ)
		}
	}
	if !fatalError(errors.New("FATAL Error: untyped")) || fatalError(errors.New(`Binder Error: column "FATAL Error"`)) {
		t.Error("untyped errors are read at their start only")
	}
}
