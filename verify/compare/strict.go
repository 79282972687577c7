package compare

import (
	"math"
	"strconv"
	"strings"

	"github.com/sqlgym/sqlgym"
)

// The strict mode is Text2SQL-RLVR's own verifier, reproduced from
// lmnst/text2sql-rlvr: compare() in src/text2sql_rlvr/rewards/compare.py
// (lines 85-134) over the keys of canon_value() in
// src/text2sql_rlvr/rewards/canonical.py (lines 27-47).

// strictSig is canonical.py's DEFAULT_FLOAT_SIG: the significant digits a
// non-integral float keeps.
const strictSig = 6

// strictIntLimit is canonical.py's _INT_EXACT_LIMIT: an integral float at
// least this large may not be the integer it prints as, so it stays a
// float.
const strictIntLimit = 1 << 53

// rlvrKey keys a cell as canon_value keys the object a Python driver
// (sqlite3, psycopg, duckdb) returns for it. The tag bytes stand for the
// tuple's first element:
//
//   - None: 'N'.
//   - bool and int: 'i' and the integer, so True = 1 (bool is tested
//     first only to turn it into an int).
//   - float: NaN and ±inf by name; an integral float below 2^53 in
//     magnitude is the integer ('i', so 2.0 = 2 and -0.0 = 0); any other
//     float is 'f' and its f"{x:.6g}" text, so 2.0000001 = 2.0000002
//     (both "2") but neither equals 2, and 1e16 ≠ 10**16.
//   - bytes: 'b' and the bytes. str: 's' and the text, exact.
//   - everything else ('o' and str(x)): Decimal by its own digits
//     (Decimal('1.50') ≠ Decimal('1.5') ≠ 1.5 ≠ Decimal('2') ≠ 2), dates,
//     times, timestamps and intervals by their text, never equal to a str.
func rlvrKey(dst []byte, v sqlgym.Value) []byte {
	switch v.Kind {
	case sqlgym.KindNull:
		return append(dst, 'N')
	case sqlgym.KindInt, sqlgym.KindBool:
		return strconv.AppendInt(append(dst, 'i'), v.Int, 10)
	case sqlgym.KindFloat:
		return appendRLVRFloat(dst, v.Float)
	case sqlgym.KindText:
		return append(append(dst, 's'), v.Str...)
	case sqlgym.KindBytes:
		return append(append(dst, 'b'), v.Str...)
	case sqlgym.KindDecimal:
		return append(append(dst, 'o'), pyDecimalStr(v.Str)...)
	}
	return append(append(dst, 'o'), v.Str...)
}

func appendRLVRFloat(dst []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		return append(dst, "fnan"...)
	case math.IsInf(f, 1):
		return append(dst, "finf"...)
	case math.IsInf(f, -1):
		return append(dst, "f-inf"...)
	case f == math.Trunc(f) && math.Abs(f) < strictIntLimit:
		return strconv.AppendInt(append(dst, 'i'), int64(f), 10)
	}
	// Go's 'g' with a precision is Python's ".6g": the same switch to an
	// exponent (below 1e-4 or at 1e6 and up), trailing zeros dropped, a
	// signed exponent of at least two digits, ties to even on the exact
	// binary value. TestRLVRFloatFormat holds the cases.
	return strconv.AppendFloat(append(dst, 'f'), f, 'g', strictSig, 64)
}

// pyDecimalStr is str(Decimal(s)): the digits and exponent the text gives,
// written in Python's scientific notation when the exponent is positive or
// the number is smaller than 1e-6 ("0.0000001" is "1E-7"). Text that is
// not a decimal comes back as it is.
func pyDecimalStr(s string) string {
	t := strings.TrimSpace(s)
	sign := ""
	if t != "" && (t[0] == '+' || t[0] == '-') {
		if t[0] == '-' {
			sign = "-"
		}
		t = t[1:]
	}
	switch strings.ToLower(t) {
	case "inf", "infinity":
		return sign + "Infinity"
	case "nan":
		return sign + "NaN"
	case "snan":
		return sign + "sNaN"
	}
	mant, exp := t, 0
	if i := strings.IndexAny(t, "eE"); i >= 0 {
		e, err := strconv.Atoi(t[i+1:])
		if err != nil {
			return s
		}
		mant, exp = t[:i], e
	}
	intPart, frac := mant, ""
	if i := strings.IndexByte(mant, '.'); i >= 0 {
		intPart, frac = mant[:i], mant[i+1:]
	}
	if intPart == "" && frac == "" || !allDigits(intPart) || !allDigits(frac) {
		return s
	}
	exp -= len(frac)
	coeff := strings.TrimLeft(intPart+frac, "0")
	if coeff == "" {
		coeff = "0"
	}
	// _pydecimal's Decimal.__str__, eng=False.
	left := exp + len(coeff)
	dot := 1
	if exp <= 0 && left > -6 {
		dot = left
	}
	var b strings.Builder
	b.WriteString(sign)
	switch {
	case dot <= 0:
		b.WriteString("0.")
		b.WriteString(strings.Repeat("0", -dot))
		b.WriteString(coeff)
	case dot >= len(coeff):
		b.WriteString(coeff)
		b.WriteString(strings.Repeat("0", dot-len(coeff)))
	default:
		b.WriteString(coeff[:dot])
		b.WriteByte('.')
		b.WriteString(coeff[dot:])
	}
	if left != dot {
		b.WriteByte('E')
		if left-dot > 0 {
			b.WriteByte('+')
		}
		b.WriteString(strconv.Itoa(left - dot))
	}
	return b.String()
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// compareStrict follows compare() step by step. The original's first
// check, a truncated result, is sqlgym's too_large outcome and never gets
// here; a prediction capped by StopAfter is known to be longer than the
// gold, which the original reports after the column count, as row_count.
func (g *Gold) compareStrict(pred *sqlgym.ResultSet) Verdict {
	pr := len(pred.Rows)
	if pred.Capped && pr <= g.rows {
		// Read less far than the gold is long: nothing is known.
		return miss(WhyCapped)
	}
	// The column count decides even when both are empty.
	if pred.NumCols() != g.cols {
		return miss(WhyColumnCount)
	}
	if pred.Capped || pr != g.rows {
		return miss(WhyRowCount)
	}
	// Counter(pred) == Counter(gold): duplicates count.
	p, ok := lookupPred(pred, g.key, g.dict, true)
	if !ok {
		return miss(WhyValues) // a cell the gold does not hold
	}
	if !matchIdentity(&g.ids, g.bag, &p, false) {
		return miss(g.explainBag(&p, false))
	}
	if g.ordered && !equalIDs(g.ids.ids, p.ids) {
		return miss(WhyOrder)
	}
	return matched
}
