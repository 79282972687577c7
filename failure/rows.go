package failure

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/sqlgym/sqlgym"
)

// cellKey is a value as the taxonomy compares it. Numbers of any kind
// compare by value (1 = 1.0), as every verifier mode does; loose keys
// also round numbers to two decimals and compare text without case or
// surrounding space, reading numeric text as a number: what "equal up to
// rounding or formatting" means.
func cellKey(v sqlgym.Value, loose bool) string {
	if f, ok := v.Numeric(); ok && v.Kind != sqlgym.KindBool {
		if loose {
			f = math.Round(f*100) / 100
		}
		return "n" + strconv.FormatFloat(f, 'g', -1, 64)
	}
	switch v.Kind {
	case sqlgym.KindNull:
		return "\x00"
	case sqlgym.KindText:
		if loose {
			s := strings.ToLower(strings.TrimSpace(v.Str))
			if f, err := strconv.ParseFloat(strings.TrimSuffix(s, "%"), 64); err == nil {
				return "n" + strconv.FormatFloat(math.Round(f*100)/100, 'g', -1, 64)
			}
			return "t" + s
		}
	}
	return "t" + v.String()
}

// rowKey keys a row with its cells sorted, so that a candidate that only
// orders its columns differently keys its rows as the gold does.
func rowKey(row []sqlgym.Value, loose, sorted bool) string {
	ks := make([]string, len(row))
	for i, v := range row {
		ks[i] = cellKey(v, loose)
	}
	if sorted {
		slices.Sort(ks)
	}
	return strings.Join(ks, "\x1f")
}

func bagOf(rs *sqlgym.ResultSet, loose, sorted bool) map[string]int {
	b := make(map[string]int, len(rs.Rows))
	for _, r := range rs.Rows {
		b[rowKey(r, loose, sorted)]++
	}
	return b
}

func bagsEqual(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, n := range a {
		if b[k] != n {
			return false
		}
	}
	return true
}

func setsEqual(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if b[k] == 0 {
			return false
		}
	}
	return true
}

// relation is how the candidate's rows stand to the gold's as multisets.
// A capped candidate has more rows than it holds, so it is never a subset
// and never equal.
func relation(pred, gold map[string]int, predCapped bool) Relation {
	common, predIn, goldIn := 0, true, true
	for k, n := range pred {
		g := gold[k]
		common += min(n, g)
		if n > g {
			predIn = false
		}
	}
	for k, n := range gold {
		if pred[k] < n {
			goldIn = false
		}
	}
	switch {
	case predIn && goldIn && !predCapped:
		return RelEqual
	case predIn && !predCapped:
		return RelSubset
	case goldIn:
		return RelSuperset
	case common > 0:
		return RelOverlap
	}
	return RelDisjoint
}

// unmatchedColumns returns the gold columns whose values, as a multiset,
// no candidate column holds, when some other gold column is matched: the
// candidate selected the right rows but some wrong columns. It needs the
// same row count on both sides; nil otherwise.
func unmatchedColumns(pred, gold *sqlgym.ResultSet) []string {
	if len(pred.Rows) != len(gold.Rows) || len(gold.Rows) == 0 || pred.NumCols() != gold.NumCols() {
		return nil
	}
	col := func(rs *sqlgym.ResultSet, j int) string {
		ks := make([]string, len(rs.Rows))
		for i, r := range rs.Rows {
			ks[i] = cellKey(r[j], false)
		}
		slices.Sort(ks)
		return strings.Join(ks, "\x1f")
	}
	have := map[string]int{}
	for j := range pred.NumCols() {
		have[col(pred, j)]++
	}
	var missing []string
	for j, name := range gold.Columns {
		k := col(gold, j)
		if have[k] > 0 {
			have[k]--
			continue
		}
		missing = append(missing, name)
	}
	if len(missing) == 0 || len(missing) == gold.NumCols() {
		return nil
	}
	return missing
}

// setSubset reports whether every key of a is a key of b.
func setSubset(a, b map[string]int) bool {
	for k := range a {
		if b[k] == 0 {
			return false
		}
	}
	return true
}
