package sqlgym

import (
	"strconv"
)

// Kind is the canonical type of a value, the same whichever engine produced it.
type Kind uint8

const (
	KindNull Kind = iota
	KindInt
	KindFloat
	KindDecimal
	KindText
	KindBytes
	KindBool
	KindDate
	KindTime
	KindTimestamp
	KindInterval
)

var kindNames = [...]string{"null", "int", "float", "decimal", "text", "bytes", "bool", "date", "time", "timestamp", "interval"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// Value is one cell of a result, canonicalised across engines.
//
// Which fields are set depends on Kind:
//   - KindInt: Int. KindBool: Int is 0 or 1.
//   - KindFloat: Float.
//   - KindDecimal: Str is the exact decimal text as the engine printed it
//     ("12.50"), Float its nearest float64.
//   - KindText: Str. KindBytes: Str holds the raw bytes.
//   - KindDate: Str "2006-01-02". KindTime: Str "15:04:05[.ffffff]".
//   - KindTimestamp: Str "2006-01-02 15:04:05[.ffffff]", in UTC when the
//     engine's value carried a time zone.
//   - KindInterval: Str, the engine's canonical text of the interval.
//
// Values are small and compared often, so they are plain structs, not
// interfaces.
type Value struct {
	Kind  Kind
	Int   int64
	Float float64
	Str   string
}

// Constructors keep call sites short and the field conventions in one place.

func Null() Value              { return Value{Kind: KindNull} }
func Int(i int64) Value        { return Value{Kind: KindInt, Int: i} }
func Float(f float64) Value    { return Value{Kind: KindFloat, Float: f} }
func Text(s string) Value      { return Value{Kind: KindText, Str: s} }
func Bytes(b []byte) Value     { return Value{Kind: KindBytes, Str: string(b)} }
func Date(s string) Value      { return Value{Kind: KindDate, Str: s} }
func TimeOfDay(s string) Value { return Value{Kind: KindTime, Str: s} }
func Timestamp(s string) Value { return Value{Kind: KindTimestamp, Str: s} }
func Interval(s string) Value  { return Value{Kind: KindInterval, Str: s} }
func Decimal(s string) Value {
	f, _ := strconv.ParseFloat(s, 64)
	return Value{Kind: KindDecimal, Str: s, Float: f}
}
func Bool(b bool) Value {
	if b {
		return Value{Kind: KindBool, Int: 1}
	}
	return Value{Kind: KindBool}
}

// IsNull reports whether v is SQL NULL.
func (v Value) IsNull() bool { return v.Kind == KindNull }

// Numeric reports v as a float64 when v is a number (int, float, decimal,
// bool); ok is false otherwise.
func (v Value) Numeric() (f float64, ok bool) {
	switch v.Kind {
	case KindInt, KindBool:
		return float64(v.Int), true
	case KindFloat, KindDecimal:
		return v.Float, true
	}
	return 0, false
}

// String renders v for people and for JSON previews: NULL as "NULL",
// numbers in their shortest exact form, everything else as its text.
func (v Value) String() string {
	switch v.Kind {
	case KindNull:
		return "NULL"
	case KindInt:
		return strconv.FormatInt(v.Int, 10)
	case KindBool:
		if v.Int != 0 {
			return "true"
		}
		return "false"
	case KindFloat:
		return strconv.FormatFloat(v.Float, 'g', -1, 64)
	}
	return v.Str
}

// Size is the approximate number of bytes v holds, for result byte caps.
func (v Value) Size() int { return 16 + len(v.Str) }
