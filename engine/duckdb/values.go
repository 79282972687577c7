package duckdb

import (
	"encoding/hex"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"

	duck "github.com/duckdb/duckdb-go/v2"
	"github.com/duckdb/duckdb-go/v2/mapping"

	"github.com/sqlgym/sqlgym"
)

// readAsText reports whether a column's values are read as DuckDB's own
// VARCHAR rendering: types the driver hands over as Go values that lose
// DuckDB's text (nested types, JSON parsed into maps, UUID as raw bytes,
// INTERVAL as parts, TIMETZ without its offset).
func readAsText(info duck.TypeInfo) bool {
	if info.Alias() == "JSON" {
		return true
	}
	switch info.InternalType() {
	case duck.TYPE_LIST, duck.TYPE_ARRAY, duck.TYPE_STRUCT, duck.TYPE_MAP, duck.TYPE_UNION,
		duck.TYPE_UUID, duck.TYPE_INTERVAL, duck.TYPE_TIME_TZ, duck.TYPE_ANY, duck.TYPE_INVALID:
		return true
	}
	switch info.InternalType() {
	case duck.TYPE_BOOLEAN, duck.TYPE_TINYINT, duck.TYPE_SMALLINT, duck.TYPE_INTEGER, duck.TYPE_BIGINT,
		duck.TYPE_UTINYINT, duck.TYPE_USMALLINT, duck.TYPE_UINTEGER, duck.TYPE_UBIGINT,
		duck.TYPE_HUGEINT, duck.TYPE_UHUGEINT, duck.TYPE_BIGNUM, duck.TYPE_FLOAT, duck.TYPE_DOUBLE,
		duck.TYPE_DECIMAL, duck.TYPE_VARCHAR, duck.TYPE_BLOB, duck.TYPE_ENUM, duck.TYPE_BIT,
		duck.TYPE_DATE, duck.TYPE_TIME, duck.TYPE_TIMESTAMP, duck.TYPE_TIMESTAMP_S,
		duck.TYPE_TIMESTAMP_MS, duck.TYPE_TIMESTAMP_NS, duck.TYPE_TIMESTAMP_TZ, duck.TYPE_SQLNULL:
		return false
	}
	// Anything newer than this code or unsupported by the driver
	// (TIME_NS, GEOMETRY, VARIANT, ...) is read as text rather than
	// guessed at.
	return true
}

// textKind is the kind of a column read as text.
func textKind(info duck.TypeInfo) sqlgym.Kind {
	switch info.InternalType() {
	case duck.TYPE_INTERVAL:
		return sqlgym.KindInterval
	case mapping.TypeTimeNS:
		return sqlgym.KindTime
	}
	return sqlgym.KindText
}

// toValue canonicalises one driver value; typ is DuckDB's type name for
// the column, which tells DATE, TIME and TIMESTAMP apart (all time.Time).
func toValue(v any, typ string) sqlgym.Value {
	switch x := v.(type) {
	case nil:
		return sqlgym.Null()
	case bool:
		return sqlgym.Bool(x)
	case int8:
		return sqlgym.Int(int64(x))
	case int16:
		return sqlgym.Int(int64(x))
	case int32:
		return sqlgym.Int(int64(x))
	case int64:
		return sqlgym.Int(x)
	case uint8:
		return sqlgym.Int(int64(x))
	case uint16:
		return sqlgym.Int(int64(x))
	case uint32:
		return sqlgym.Int(int64(x))
	case uint64:
		if x > math.MaxInt64 {
			return sqlgym.Decimal(strconv.FormatUint(x, 10))
		}
		return sqlgym.Int(int64(x))
	case *big.Int:
		if x.IsInt64() {
			return sqlgym.Int(x.Int64())
		}
		return sqlgym.Decimal(x.String())
	case float32:
		// The shortest text that reads back as this float32, widened: 0.1
		// stays 0.1 instead of becoming 0.10000000149011612.
		f, _ := strconv.ParseFloat(strconv.FormatFloat(float64(x), 'g', -1, 32), 64)
		return sqlgym.Float(f)
	case float64:
		return sqlgym.Float(x)
	case duck.Decimal:
		return sqlgym.Decimal(decimalText(x))
	case string:
		return sqlgym.Text(x)
	case []byte:
		if typ == "UUID" && len(x) == 16 {
			return sqlgym.Text(uuidText(x))
		}
		return sqlgym.Bytes(x)
	case time.Time:
		return timeValue(x, typ)
	case duck.Interval:
		return sqlgym.Interval(intervalText(x))
	}
	// Only reached for a type readAsText should have turned into text.
	return sqlgym.Text(fmt.Sprint(v))
}

// decimalText prints a DECIMAL exactly with its scale: 1250 at scale 2 is
// "12.50", -5 at scale 2 is "-0.05".
func decimalText(d duck.Decimal) string {
	if d.Value == nil {
		return "0"
	}
	digits := new(big.Int).Abs(d.Value).String()
	scale := int(d.Scale)
	sign := ""
	if d.Value.Sign() < 0 {
		sign = "-"
	}
	if scale == 0 {
		return sign + digits
	}
	if len(digits) <= scale {
		digits = strings.Repeat("0", scale-len(digits)+1) + digits
	}
	cut := len(digits) - scale
	return sign + digits[:cut] + "." + digits[cut:]
}

// The driver turns DuckDB's infinite dates and timestamps into the extreme
// instants their encodings hold.
var (
	dateInfinity = time.Unix(0, 0).UTC().AddDate(0, 0, math.MaxInt32)
	dateNegInf   = time.Unix(0, 0).UTC().AddDate(0, 0, -math.MaxInt32)
)

func timeValue(t time.Time, typ string) sqlgym.Value {
	switch typ {
	case "DATE":
		switch {
		case t.Equal(dateInfinity):
			return sqlgym.Date("infinity")
		case t.Equal(dateNegInf):
			return sqlgym.Date("-infinity")
		}
		return sqlgym.Date(bcDate(t) + t.Format("-01-02") + bcSuffix(t))
	case "TIME":
		return sqlgym.TimeOfDay(t.Format("15:04:05.999999999"))
	}
	// TIMESTAMP of any precision; TIMESTAMPTZ arrives as an instant and is
	// printed in UTC.
	t = t.UTC()
	if typ == "TIMESTAMP" || typ == "TIMESTAMPTZ" {
		switch t.UnixMicro() {
		case math.MaxInt64:
			return sqlgym.Timestamp("infinity")
		case -math.MaxInt64:
			return sqlgym.Timestamp("-infinity")
		}
	}
	return sqlgym.Timestamp(bcDate(t) + t.Format("-01-02") + bcSuffix(t) + t.Format(" 15:04:05.999999999"))
}

// bcDate prints the year as DuckDB does: years before 1 count back from
// 1 BC ("0044-03-15 (BC)" is Go's year -43), and bcSuffix follows the date
// part, before any time of day.
func bcDate(t time.Time) string {
	y := t.Year()
	if y <= 0 {
		y = 1 - y
	}
	return fmt.Sprintf("%04d", y)
}

func bcSuffix(t time.Time) string {
	if t.Year() <= 0 {
		return " (BC)"
	}
	return ""
}

func uuidText(b []byte) string {
	h := hex.EncodeToString(b)
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}

// intervalText is a fallback only: interval columns are read as DuckDB's
// text. It follows DuckDB's form ("1 year 2 days 03:00:00").
func intervalText(iv duck.Interval) string {
	var parts []string
	unit := func(n int64, name string) {
		if n == 0 {
			return
		}
		s := strconv.FormatInt(n, 10) + " " + name
		if n != 1 && n != -1 {
			s += "s"
		}
		parts = append(parts, s)
	}
	unit(int64(iv.Months/12), "year")
	unit(int64(iv.Months%12), "month")
	unit(int64(iv.Days), "day")
	if iv.Micros != 0 || len(parts) == 0 {
		us := iv.Micros
		sign := ""
		if us < 0 {
			sign, us = "-", -us
		}
		s := fmt.Sprintf("%s%02d:%02d:%02d", sign, us/3_600_000_000, us/60_000_000%60, us/1_000_000%60)
		if frac := us % 1_000_000; frac != 0 {
			s += strings.TrimRight(fmt.Sprintf(".%06d", frac), "0")
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, " ")
}
