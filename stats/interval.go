package stats

import (
	"encoding/json"
	"fmt"
	"math"
)

// Interval is a point estimate with its 95% interval. Rates are fractions in
// [0, 1], not percentages. An estimate that could not be made (no eligible
// task) is NaN in all three fields and encodes as JSON null.
type Interval struct {
	Value float64
	Lo    float64
	Hi    float64
}

// HalfWidth is half the interval's width: the "plus or minus" of a report.
func (iv Interval) HalfWidth() float64 { return (iv.Hi - iv.Lo) / 2 }

// Contains reports whether x lies in [Lo, Hi].
func (iv Interval) Contains(x float64) bool { return x >= iv.Lo && x <= iv.Hi }

// Valid reports whether the interval holds numbers rather than NaN.
func (iv Interval) Valid() bool {
	return !math.IsNaN(iv.Value) && !math.IsNaN(iv.Lo) && !math.IsNaN(iv.Hi)
}

func (iv Interval) String() string {
	if !iv.Valid() {
		return "n/a"
	}
	return fmt.Sprintf("%.4f [%.4f, %.4f]", iv.Value, iv.Lo, iv.Hi)
}

var nanInterval = Interval{math.NaN(), math.NaN(), math.NaN()}

type intervalJSON struct {
	Value *float64 `json:"value"`
	Lo    *float64 `json:"lo"`
	Hi    *float64 `json:"hi"`
}

// MarshalJSON writes {"value","lo","hi"}, with null for NaN, because JSON
// has no NaN and encoding/json refuses it.
func (iv Interval) MarshalJSON() ([]byte, error) {
	ptr := func(x float64) *float64 {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil
		}
		return &x
	}
	return json.Marshal(intervalJSON{ptr(iv.Value), ptr(iv.Lo), ptr(iv.Hi)})
}

// UnmarshalJSON reads what MarshalJSON writes; null becomes NaN.
func (iv *Interval) UnmarshalJSON(b []byte) error {
	var raw intervalJSON
	if err := json.Unmarshal(b, &raw); err != nil {
		return fmt.Errorf("decode interval: %w", err)
	}
	val := func(p *float64) float64 {
		if p == nil {
			return math.NaN()
		}
		return *p
	}
	*iv = Interval{val(raw.Value), val(raw.Lo), val(raw.Hi)}
	return nil
}
