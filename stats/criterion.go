package stats

import (
	"fmt"
	"strconv"
	"strings"
)

// Criterion is a pre-registered bar for a paired comparison, such as
// "delta>=0.05" or "lo>0". Its grammar, with optional spaces between parts:
//
//	criterion = side op number ["%"]
//	side      = "delta" | "lo" | "hi"
//	op        = ">=" | ">" | "<=" | "<"
//	number    = a finite decimal such as 0.05, -1, 5e-2
//
// side names Delta.Value, Delta.Lo or Delta.Hi of a PairedResult; a "%"
// suffix divides the number by 100, so "delta>=5%" is "delta>=0.05".
type Criterion struct {
	Side  string  // "delta", "lo" or "hi"
	Op    string  // ">=", ">", "<=" or "<"
	Bound float64 // as a fraction, after any % was applied
}

// ParseCriterion parses s by the grammar on Criterion.
func ParseCriterion(s string) (Criterion, error) {
	rest := strings.TrimSpace(s)
	var c Criterion
	for _, side := range []string{"delta", "lo", "hi"} {
		if strings.HasPrefix(rest, side) {
			c.Side, rest = side, strings.TrimSpace(rest[len(side):])
			break
		}
	}
	if c.Side == "" {
		return Criterion{}, fmt.Errorf("criterion %q: must start with delta, lo or hi", s)
	}
	// Two-character operators first, so ">=" is not read as ">" then "=".
	for _, op := range []string{">=", "<=", ">", "<"} {
		if strings.HasPrefix(rest, op) {
			c.Op, rest = op, strings.TrimSpace(rest[len(op):])
			break
		}
	}
	if c.Op == "" {
		return Criterion{}, fmt.Errorf("criterion %q: expected >=, >, <= or < after %s", s, c.Side)
	}
	num, percent := strings.CutSuffix(rest, "%")
	num = strings.TrimSpace(num)
	if num == "" {
		return Criterion{}, fmt.Errorf("criterion %q: missing number after %s", s, c.Op)
	}
	// ParseFloat alone would also take "inf", "nan" and hex floats; a bar
	// is written in decimal.
	if strings.ContainsFunc(num, func(r rune) bool { return !strings.ContainsRune("0123456789.+-eE", r) }) {
		return Criterion{}, fmt.Errorf("criterion %q: %q is not a decimal number", s, num)
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil {
		return Criterion{}, fmt.Errorf("criterion %q: %w", s, err)
	}
	if percent {
		v /= 100
	}
	c.Bound = v
	return c, nil
}

// Check reports whether r meets the criterion. A NaN side never meets it.
func (c Criterion) Check(r PairedResult) bool {
	var x float64
	switch c.Side {
	case "delta":
		x = r.Delta.Value
	case "lo":
		x = r.Delta.Lo
	case "hi":
		x = r.Delta.Hi
	default:
		return false
	}
	switch c.Op {
	case ">=":
		return x >= c.Bound
	case ">":
		return x > c.Bound
	case "<=":
		return x <= c.Bound
	case "<":
		return x < c.Bound
	}
	return false
}

// String writes the criterion back in the grammar, as a fraction.
func (c Criterion) String() string {
	return c.Side + c.Op + strconv.FormatFloat(c.Bound, 'g', -1, 64)
}
