package compare

import (
	"math"
	"strconv"

	"github.com/sqlgym/sqlgym"
)

// appendPyFloatRepr writes Python's repr(float) (which str() also gives):
// the shortest round-trip digits, fixed notation for exponents -4..15
// with at least one fraction digit ("2.0"), otherwise scientific with a
// signed two-digit exponent ("1e+16", "1.5e-07").
func appendPyFloatRepr(dst []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		return append(dst, "nan"...)
	case math.IsInf(f, 1):
		return append(dst, "inf"...)
	case math.IsInf(f, -1):
		return append(dst, "-inf"...)
	}
	var tmp [32]byte
	s := strconv.AppendFloat(tmp[:0], f, 'e', -1, 64)
	neg := s[0] == '-'
	if neg {
		s = s[1:]
	}
	ei := indexByte(s, 'e')
	mant, exps := s[:ei], s[ei+1:]
	exp, _ := strconv.Atoi(string(exps))
	var dbuf [24]byte
	digits := dbuf[:0]
	for _, c := range mant {
		if c != '.' {
			digits = append(digits, c)
		}
	}
	if neg {
		dst = append(dst, '-')
	}
	if exp >= -4 && exp < 16 {
		if exp >= 0 {
			if len(digits) <= exp+1 {
				dst = append(dst, digits...)
				for i := len(digits); i < exp+1; i++ {
					dst = append(dst, '0')
				}
				return append(dst, ".0"...)
			}
			dst = append(dst, digits[:exp+1]...)
			dst = append(dst, '.')
			return append(dst, digits[exp+1:]...)
		}
		dst = append(dst, "0."...)
		for i := 0; i < -exp-1; i++ {
			dst = append(dst, '0')
		}
		return append(dst, digits...)
	}
	dst = append(dst, digits[0])
	if len(digits) > 1 {
		dst = append(dst, '.')
		dst = append(dst, digits[1:]...)
	}
	dst = append(dst, 'e')
	if exp < 0 {
		dst = append(dst, '-')
		exp = -exp
	} else {
		dst = append(dst, '+')
	}
	if exp < 10 {
		dst = append(dst, '0')
	}
	return strconv.AppendInt(dst, int64(exp), 10)
}

// appendPyBytesRepr writes Python's repr(bytes): b'...' with \\, \t, \n,
// \r and \xNN escapes, double quotes when the bytes hold ' but not ".
func appendPyBytesRepr(dst []byte, b string) []byte {
	q := byte('\'')
	if containsByte(b, '\'') && !containsByte(b, '"') {
		q = '"'
	}
	dst = append(dst, 'b', q)
	const hex = "0123456789abcdef"
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case c == q || c == '\\':
			dst = append(dst, '\\', c)
		case c == '\t':
			dst = append(dst, '\\', 't')
		case c == '\n':
			dst = append(dst, '\\', 'n')
		case c == '\r':
			dst = append(dst, '\\', 'r')
		case c < 0x20 || c >= 0x7f:
			dst = append(dst, '\\', 'x', hex[c>>4], hex[c&15])
		default:
			dst = append(dst, c)
		}
	}
	return append(dst, q)
}

func containsByte(s string, c byte) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			return true
		}
	}
	return false
}

// appendPyStr writes str(x) for the object a Python driver returns for v.
func appendPyStr(dst []byte, v sqlgym.Value) []byte {
	switch v.Kind {
	case sqlgym.KindNull:
		return append(dst, "None"...)
	case sqlgym.KindInt:
		return strconv.AppendInt(dst, v.Int, 10)
	case sqlgym.KindBool:
		if v.Int != 0 {
			return append(dst, "True"...)
		}
		return append(dst, "False"...)
	case sqlgym.KindFloat:
		return appendPyFloatRepr(dst, v.Float)
	case sqlgym.KindBytes:
		return appendPyBytesRepr(dst, v.Str)
	case sqlgym.KindDecimal:
		return append(dst, pyDecimalStr(v.Str)...)
	}
	return append(dst, v.Str...)
}

// pyTypeNames is str(type(x)) for each kind's Python object.
var pyTypeNames = [...]string{
	sqlgym.KindNull:      "<class 'NoneType'>",
	sqlgym.KindInt:       "<class 'int'>",
	sqlgym.KindFloat:     "<class 'float'>",
	sqlgym.KindDecimal:   "<class 'decimal.Decimal'>",
	sqlgym.KindText:      "<class 'str'>",
	sqlgym.KindBytes:     "<class 'bytes'>",
	sqlgym.KindBool:      "<class 'bool'>",
	sqlgym.KindDate:      "<class 'datetime.date'>",
	sqlgym.KindTime:      "<class 'datetime.time'>",
	sqlgym.KindTimestamp: "<class 'datetime.datetime'>",
	sqlgym.KindInterval:  "<class 'datetime.timedelta'>",
}

// appendPySortKey writes str(x) + str(type(x)), the key Spider
// test-suite's quick reject sorts each row's cells by.
func appendPySortKey(dst []byte, v sqlgym.Value) []byte {
	dst = appendPyStr(dst, v)
	if int(v.Kind) < len(pyTypeNames) {
		return append(dst, pyTypeNames[v.Kind]...)
	}
	return append(dst, "<class 'object'>"...)
}
