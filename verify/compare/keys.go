package compare

import (
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/sqlgym/sqlgym"
)

// A keyFunc appends a cell's canonical key to dst. Two cells are equal
// under a mode exactly when their keys are byte-equal, so results can be
// interned to integer ids and compared as integer tuples. Every key starts
// with a tag byte that keeps kinds apart.
type keyFunc func(dst []byte, v sqlgym.Value) []byte

// ---- multiset: lenient, numbers rounded to 2 places, text folded ----

func multisetKey(dst []byte, v sqlgym.Value) []byte {
	switch v.Kind {
	case sqlgym.KindNull:
		return append(dst, 'N')
	case sqlgym.KindInt, sqlgym.KindBool:
		dst = strconv.AppendInt(append(dst, 'n'), v.Int, 10)
		return append(dst, ".00"...)
	case sqlgym.KindFloat:
		return appendRound2Float(append(dst, 'n'), v.Float)
	case sqlgym.KindDecimal:
		if plainDecimal(v.Str) {
			return appendRound2(append(dst, 'n'), v.Str)
		}
		return appendRound2Float(append(dst, 'n'), v.Float)
	case sqlgym.KindBytes:
		return append(append(dst, 'b'), v.Str...)
	}
	// Text, and dates, times, timestamps and intervals by their canonical
	// text, so a DATE from one engine equals the same date stored as TEXT.
	t := strings.TrimSpace(v.Str)
	if maybeNumber(t) {
		if plainDecimal(t) {
			return appendRound2(append(dst, 'n'), t)
		}
		if sciDecimal(t) {
			f, err := strconv.ParseFloat(t, 64)
			if err == nil {
				return appendRound2Float(append(dst, 'n'), f)
			}
		}
	}
	dst = append(dst, 's')
	for i := 0; i < len(t); i++ {
		if t[i] >= 0x80 {
			return append(dst, strings.ToLower(t)...)
		}
	}
	for i := 0; i < len(t); i++ {
		c := t[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		dst = append(dst, c)
	}
	return dst
}

// maybeNumber is a cheap first look: numbers start with a digit, a sign
// or a point.
func maybeNumber(s string) bool {
	if s == "" {
		return false
	}
	c := s[0]
	return (c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.'
}

// plainDecimal reports whether s is [+-]digits[.digits] with at least one
// digit and no exponent.
func plainDecimal(s string) bool {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	digits, dot := 0, false
	for ; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9':
			digits++
		case c == '.' && !dot:
			dot = true
		default:
			return false
		}
	}
	return digits > 0
}

// sciDecimal reports whether s is a plain decimal followed by an exponent.
func sciDecimal(s string) bool {
	e := strings.IndexAny(s, "eE")
	if e <= 0 || !plainDecimal(s[:e]) {
		return false
	}
	x := s[e+1:]
	if x != "" && (x[0] == '+' || x[0] == '-') {
		x = x[1:]
	}
	if x == "" {
		return false
	}
	for i := 0; i < len(x); i++ {
		if x[i] < '0' || x[i] > '9' {
			return false
		}
	}
	return true
}

// appendRound2Float rounds f to 2 decimal places, half away from zero, on
// its shortest decimal form: 1.005 rounds to 1.01 as the text "1.005"
// does, so a REAL and a numeric string of the same digits agree.
func appendRound2Float(dst []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		return append(dst, "nan"...)
	case math.IsInf(f, 1):
		return append(dst, "inf"...)
	case math.IsInf(f, -1):
		return append(dst, "-inf"...)
	}
	if f == math.Trunc(f) && math.Abs(f) < 1e15 {
		if f == 0 {
			return append(dst, "0.00"...)
		}
		return append(strconv.AppendInt(dst, int64(f), 10), ".00"...)
	}
	var tmp [40]byte
	s := strconv.AppendFloat(tmp[:0], f, 'f', -1, 64)
	return appendRound2Bytes(dst, s)
}

func appendRound2(dst []byte, s string) []byte {
	var tmp [64]byte
	return appendRound2Bytes(dst, append(tmp[:0], s...))
}

// appendRound2Bytes writes the plain decimal s rounded half away from zero
// to exactly two fraction digits, without leading zeros or a negative zero.
func appendRound2Bytes(dst []byte, s []byte) []byte {
	neg := false
	if len(s) > 0 && (s[0] == '+' || s[0] == '-') {
		neg = s[0] == '-'
		s = s[1:]
	}
	intPart, frac := s, []byte(nil)
	if i := indexByte(s, '.'); i >= 0 {
		intPart, frac = s[:i], s[i+1:]
	}
	// digits = intPart followed by the first two fraction digits.
	var buf [80]byte
	digits := append(buf[:0], intPart...)
	for k := 0; k < 2; k++ {
		if k < len(frac) {
			digits = append(digits, frac[k])
		} else {
			digits = append(digits, '0')
		}
	}
	if len(frac) > 2 && frac[2] >= '5' {
		i := len(digits) - 1
		for ; i >= 0; i-- {
			if digits[i] == '9' {
				digits[i] = '0'
				continue
			}
			digits[i]++
			break
		}
		if i < 0 {
			digits = append([]byte{'1'}, digits...)
		}
	}
	ip := digits[:len(digits)-2]
	for len(ip) > 1 && ip[0] == '0' {
		ip = ip[1:]
	}
	if len(ip) == 0 {
		ip = []byte{'0'}
	}
	fp := digits[len(digits)-2:]
	zero := len(ip) == 1 && ip[0] == '0' && fp[0] == '0' && fp[1] == '0'
	if neg && !zero {
		dst = append(dst, '-')
	}
	dst = append(dst, ip...)
	dst = append(dst, '.')
	return append(dst, fp...)
}

func indexByte(b []byte, c byte) int {
	for i := range b {
		if b[i] == c {
			return i
		}
	}
	return -1
}

// appendIntegralFloat writes an integral float's exact integer digits.
func appendIntegralFloat(dst []byte, f float64) []byte {
	if f == 0 {
		return append(dst, '0')
	}
	if math.Abs(f) < 1<<62 {
		return strconv.AppendInt(dst, int64(f), 10)
	}
	return strconv.AppendFloat(dst, f, 'f', 0, 64)
}

func appendNonFinite(dst []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		return append(dst, "nan"...)
	case f > 0:
		return append(dst, "+inf"...)
	}
	return append(dst, "-inf"...)
}

// integralDecimal returns the normalised integer digits of a plain decimal
// whose fraction is all zeros ("12.00" -> "12", "-0.0" -> "0").
func integralDecimal(s string) (string, bool) {
	if !plainDecimal(s) {
		return "", false
	}
	neg := s[0] == '-'
	if s[0] == '+' || s[0] == '-' {
		s = s[1:]
	}
	ip := s
	if i := strings.IndexByte(s, '.'); i >= 0 {
		ip = s[:i]
		for _, c := range s[i+1:] {
			if c != '0' {
				return "", false
			}
		}
	}
	ip = strings.TrimLeft(ip, "0")
	if ip == "" {
		return "0", true
	}
	if neg {
		return "-" + ip, true
	}
	return ip, true
}

// appendTagged keys the non-numeric kinds by a kind tag and their text.
func appendTagged(dst []byte, v sqlgym.Value) []byte {
	var tag byte
	switch v.Kind {
	case sqlgym.KindText:
		tag = 's'
	case sqlgym.KindBytes:
		tag = 'b'
	case sqlgym.KindDate:
		tag = 'D'
	case sqlgym.KindTime:
		tag = 'T'
	case sqlgym.KindTimestamp:
		tag = 'S'
	case sqlgym.KindInterval:
		tag = 'I'
	default:
		tag = '?'
	}
	return append(append(dst, tag), v.Str...)
}

// ---- python: equality of the objects a Python driver would return ----

// pyKey keys a value so that keys are equal exactly when Python's == holds
// between the objects sqlite3/psycopg would hand a scorer: int, float,
// bool and Decimal compare by exact numeric value (1 == 1.0 == True ==
// Decimal('1.00'), but Decimal('0.1') != 0.1), str only equals the same
// str, None only None, and dates, times and bytes only their own kind.
// NaN is the one deliberate difference: it equals NaN here, so a result
// always matches itself.
func pyKey(dst []byte, v sqlgym.Value) []byte {
	switch v.Kind {
	case sqlgym.KindNull:
		return append(dst, 'N')
	case sqlgym.KindInt, sqlgym.KindBool:
		return strconv.AppendInt(append(dst, 'n'), v.Int, 10)
	case sqlgym.KindFloat:
		return appendPyFloatKey(dst, v.Float)
	case sqlgym.KindDecimal:
		return appendPyDecimalKey(dst, v)
	}
	return appendTagged(dst, v)
}

func appendPyFloatKey(dst []byte, f float64) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return appendNonFinite(append(dst, 'f'), f)
	}
	if f == math.Trunc(f) {
		return appendIntegralFloat(append(dst, 'n'), f)
	}
	return strconv.AppendFloat(append(dst, 'f'), f, 'g', -1, 64)
}

func appendPyDecimalKey(dst []byte, v sqlgym.Value) []byte {
	s := strings.TrimSpace(v.Str)
	if ip, ok := integralDecimal(s); ok {
		return append(append(dst, 'n'), ip...)
	}
	switch strings.ToLower(strings.TrimLeft(s, "+")) {
	case "nan", "snan", "-nan":
		return append(dst, "fnan"...)
	case "inf", "infinity":
		return append(dst, "f+inf"...)
	case "-inf", "-infinity":
		return append(dst, "f-inf"...)
	}
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		return appendPyFloatKey(dst, v.Float)
	}
	if r.IsInt() {
		return append(append(dst, 'n'), r.Num().String()...)
	}
	// A Decimal equals a float only when the float's binary value is
	// exactly the decimal's value (Decimal('0.5') == 0.5, not 0.1).
	if f, exact := r.Float64(); exact {
		return strconv.AppendFloat(append(dst, 'f'), f, 'g', -1, 64)
	}
	return append(append(dst, 'd'), r.RatString()...)
}
