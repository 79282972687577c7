package mysql

import (
	"math"
	"strconv"
	"strings"

	"github.com/sqlgym/sqlgym"
)

// decoder turns one column's raw text-protocol bytes into a value, chosen
// once per column from the type the server reported. The text protocol
// carries every value as the server printed it, so DECIMAL keeps its
// scale, dates and times their exact text, and binary strings their bytes.
type decoder func(raw []byte) sqlgym.Value

func decoderFor(dbType string) decoder {
	t := strings.TrimPrefix(dbType, "UNSIGNED ")
	switch t {
	case "TINYINT", "SMALLINT", "MEDIUMINT", "INT", "BIGINT", "YEAR":
		return decodeInt
	case "FLOAT", "DOUBLE":
		return decodeFloat
	case "DECIMAL":
		return func(raw []byte) sqlgym.Value { return sqlgym.Decimal(string(raw)) }
	case "DATE":
		return func(raw []byte) sqlgym.Value { return sqlgym.Date(string(raw)) }
	case "DATETIME", "TIMESTAMP":
		return func(raw []byte) sqlgym.Value { return sqlgym.Timestamp(string(raw)) }
	case "TIME":
		return func(raw []byte) sqlgym.Value { return sqlgym.TimeOfDay(string(raw)) }
	case "BIT":
		return decodeBit
	case "BLOB", "TINYBLOB", "MEDIUMBLOB", "LONGBLOB", "BINARY", "VARBINARY", "GEOMETRY":
		return func(raw []byte) sqlgym.Value { return sqlgym.Bytes(raw) }
	}
	// CHAR, VARCHAR, TEXT kinds, ENUM, SET, JSON: text as the server sent it.
	return func(raw []byte) sqlgym.Value { return sqlgym.Text(string(raw)) }
}

// cell is one scanned value. The driver parses integers and floats of
// the text protocol itself; the rest arrives as the server's bytes.
func cell(c any, dec decoder) sqlgym.Value {
	switch v := c.(type) {
	case []byte:
		return dec(v)
	case int64:
		return sqlgym.Int(v)
	case uint64:
		if v <= math.MaxInt64 {
			return sqlgym.Int(int64(v))
		}
		return sqlgym.Decimal(strconv.FormatUint(v, 10))
	case float64:
		return sqlgym.Float(v)
	case float32:
		// The shortest text of the FLOAT, as the server printed it, not
		// the float32's binary expansion (0.1, not 0.10000000149).
		f, _ := strconv.ParseFloat(strconv.FormatFloat(float64(v), 'g', -1, 32), 64)
		return sqlgym.Float(f)
	case string:
		return sqlgym.Text(v)
	}
	return sqlgym.Null()
}

// decodeInt keeps an unsigned BIGINT past int64 as its exact digits.
func decodeInt(raw []byte) sqlgym.Value {
	if i, err := strconv.ParseInt(string(raw), 10, 64); err == nil {
		return sqlgym.Int(i)
	}
	return sqlgym.Decimal(string(raw))
}

func decodeFloat(raw []byte) sqlgym.Value {
	if f, err := strconv.ParseFloat(string(raw), 64); err == nil {
		return sqlgym.Float(f)
	}
	return sqlgym.Text(string(raw))
}

// decodeBit reads BIT(n), which arrives as big-endian bytes, as its
// number: how the mysql client shows it with --binary-as-hex off is
// unreadable, and b'101' = 5 is what a query compares it with.
func decodeBit(raw []byte) sqlgym.Value {
	var u uint64
	for _, b := range raw {
		u = u<<8 | uint64(b)
	}
	if len(raw) <= 8 && u <= 1<<63-1 {
		return sqlgym.Int(int64(u))
	}
	return sqlgym.Decimal(strconv.FormatUint(u, 10))
}
