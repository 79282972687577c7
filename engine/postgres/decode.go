package postgres

import (
	"encoding/hex"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5/pgtype"
	"github.com/sqlgym/sqlgym"
)

// decoder turns one cell in PostgreSQL's text format into a sqlgym.Value.
// The sandbox transaction pins the settings the text depends on (DateStyle
// ISO, TimeZone UTC, IntervalStyle postgres, bytea_output hex,
// extra_float_digits 1), so the text is canonical and exact: numeric keeps
// its scale, floats print their shortest round-trip form, and nothing is
// lost on the way, unlike a binary decode into Go types.
type decoder func(b []byte) (sqlgym.Value, error)

// decoderFor picks the decoder of a column by its type OID; every type
// without a canonical kind (uuid, json, arrays, ...) keeps its text form.
func decoderFor(oid uint32) decoder {
	switch oid {
	case pgtype.Int2OID, pgtype.Int4OID, pgtype.Int8OID:
		return decodeInt
	case pgtype.Float4OID, pgtype.Float8OID:
		return decodeFloat
	case pgtype.NumericOID:
		return decodeNumeric
	case pgtype.BoolOID:
		return decodeBool
	case pgtype.ByteaOID:
		return decodeBytea
	case pgtype.DateOID:
		return func(b []byte) (sqlgym.Value, error) { return sqlgym.Date(string(b)), nil }
	case pgtype.TimeOID:
		return func(b []byte) (sqlgym.Value, error) { return sqlgym.TimeOfDay(string(b)), nil }
	case pgtype.TimestampOID:
		return func(b []byte) (sqlgym.Value, error) { return sqlgym.Timestamp(string(b)), nil }
	case pgtype.TimestamptzOID:
		return decodeTimestamptz
	case pgtype.IntervalOID:
		return func(b []byte) (sqlgym.Value, error) { return sqlgym.Interval(string(b)), nil }
	}
	return func(b []byte) (sqlgym.Value, error) { return sqlgym.Text(string(b)), nil }
}

func decodeInt(b []byte) (sqlgym.Value, error) {
	i, err := strconv.ParseInt(string(b), 10, 64)
	if err != nil {
		return sqlgym.Value{}, err
	}
	return sqlgym.Int(i), nil
}

// decodeFloat accepts PostgreSQL's NaN, Infinity and -Infinity, which
// strconv reads as well.
func decodeFloat(b []byte) (sqlgym.Value, error) {
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		return sqlgym.Value{}, err
	}
	return sqlgym.Float(f), nil
}

// decodeNumeric keeps the exact text ("12.50", "NaN", "Infinity") and lets
// sqlgym.Decimal compute the nearest float, which is ±Inf or NaN for the
// special values.
func decodeNumeric(b []byte) (sqlgym.Value, error) {
	return sqlgym.Decimal(string(b)), nil
}

func decodeBool(b []byte) (sqlgym.Value, error) {
	switch string(b) {
	case "t":
		return sqlgym.Bool(true), nil
	case "f":
		return sqlgym.Bool(false), nil
	}
	return sqlgym.Value{}, errBadText("bool", b)
}

func decodeBytea(b []byte) (sqlgym.Value, error) {
	if len(b) < 2 || b[0] != '\\' || b[1] != 'x' {
		return sqlgym.Value{}, errBadText("bytea", b)
	}
	raw := make([]byte, hex.DecodedLen(len(b)-2))
	if _, err := hex.Decode(raw, b[2:]); err != nil {
		return sqlgym.Value{}, err
	}
	return sqlgym.Bytes(raw), nil
}

// decodeTimestamptz drops the "+00" the server prints in UTC, keeping a
// trailing " BC"; infinity stays as printed.
func decodeTimestamptz(b []byte) (sqlgym.Value, error) {
	s := string(b)
	bc := strings.HasSuffix(s, " BC")
	if bc {
		s = strings.TrimSuffix(s, " BC")
	}
	if !strings.HasSuffix(s, "+00") {
		if s == "infinity" || s == "-infinity" {
			return sqlgym.Timestamp(s), nil
		}
		return sqlgym.Value{}, errBadText("timestamptz (not UTC)", b)
	}
	s = strings.TrimSuffix(s, "+00")
	if bc {
		s += " BC"
	}
	return sqlgym.Timestamp(s), nil
}

type badTextError struct {
	typ  string
	text string
}

func (e *badTextError) Error() string {
	return "unexpected " + e.typ + " text " + strconv.Quote(e.text)
}

func errBadText(typ string, b []byte) error {
	s := string(b)
	if len(s) > 40 {
		s = s[:40] + "..."
	}
	return &badTextError{typ: typ, text: s}
}
