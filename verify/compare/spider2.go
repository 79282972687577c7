package compare

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/sqlgym/sqlgym"
)

// Spider 2.0's compare_pandas_table, reproduced. Both results reach it
// after a CSV round trip (DataFrame.to_csv, then pandas.read_csv), so the
// column types are whatever read_csv infers from the text: a text column
// of digits becomes integers, '' and 'NULL' become NaN, and so on. Then:
//
//   - every gold column (or only ConditionCols) must equal SOME predicted
//     column as a vector; extra predicted columns are fine and one
//     predicted column may serve several gold columns;
//   - NaN counts as 0 (the scorer's normalize step);
//   - with IgnoreOrder each vector is sorted on its own by
//     (str(x), isinstance(x, (int, float))) before comparing;
//   - numbers (bool included: it is an int in Python) match when
//     math.isclose(a, b, abs_tol=1e-2); anything else by ==, so the text
//     '1' never equals the number 1 unless its column became numeric.

type pyKind uint8

const (
	pyInt pyKind = iota
	pyFloat
	pyBool
	pyStr
)

// pyVal is a cell as the scorer's Python sees it after the round trip and
// the NaN-to-0 normalisation.
type pyVal struct {
	kind pyKind
	i    int64
	f    float64
	s    string // pyStr's text; for every kind, str(x) once computed
}

func (v *pyVal) numeric() bool { return v.kind != pyStr }

func (v *pyVal) float() float64 {
	switch v.kind {
	case pyInt, pyBool:
		return float64(v.i)
	}
	return v.f
}

// str is Python's str(x).
func (v *pyVal) str() string {
	switch v.kind {
	case pyInt:
		return strconv.FormatInt(v.i, 10)
	case pyBool:
		if v.i != 0 {
			return "True"
		}
		return "False"
	case pyFloat:
		return string(appendPyFloatRepr(nil, v.f))
	}
	return v.s
}

type s2Vec []pyVal

type s2Gold struct {
	rows    int
	badCols bool // a condition column is out of range: pandas raises, the score is 0
	vecs    []s2Vec
	sorted  []s2Vec // vecs sorted, when IgnoreOrder or to explain a miss
	ignore  bool
}

func newS2Gold(gold *sqlgym.ResultSet, opt Options) *s2Gold {
	g := &s2Gold{rows: len(gold.Rows), ignore: opt.IgnoreOrder}
	n := gold.NumCols()
	cols := identity(n)
	if len(opt.ConditionCols) > 0 {
		cols = make([]int, 0, len(opt.ConditionCols))
		for _, c := range opt.ConditionCols {
			if c < 0 {
				c += n // iloc counts negative positions from the end
			}
			if c < 0 || c >= n {
				g.badCols = true
				return g
			}
			cols = append(cols, c)
		}
	}
	g.vecs = s2Frame(gold, cols)
	g.sorted = make([]s2Vec, len(g.vecs))
	for i, v := range g.vecs {
		g.sorted[i] = sortedVec(v)
	}
	return g
}

func (g *s2Gold) compare(pred *sqlgym.ResultSet) Verdict {
	if g.badCols {
		return miss(WhyColumnCount)
	}
	if len(g.vecs) == 0 {
		return matched
	}
	if pred.Capped || len(pred.Rows) != g.rows {
		return miss(WhyRowCount)
	}
	pv := s2Frame(pred, identity(pred.NumCols()))
	var ps []s2Vec
	sortedPred := func() []s2Vec {
		if ps == nil {
			ps = make([]s2Vec, len(pv))
			for i, v := range pv {
				ps[i] = sortedVec(v)
			}
		}
		return ps
	}
	gv, cand := g.vecs, pv
	if g.ignore {
		gv, cand = g.sorted, sortedPred()
	}
	if anyMatchAll(gv, cand) {
		return matched
	}
	if !g.ignore && anyMatchAll(g.sorted, sortedPred()) {
		return miss(WhyOrder)
	}
	return miss(WhyValues)
}

func anyMatchAll(gold, pred []s2Vec) bool {
outer:
	for _, gv := range gold {
		for _, pv := range pred {
			if vectorsMatch(gv, pv) {
				continue outer
			}
		}
		return false
	}
	return true
}

func vectorsMatch(a, b s2Vec) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := &a[i], &b[i]
		if x.numeric() && y.numeric() {
			if !isClose(x.float(), y.float()) {
				return false
			}
			continue
		}
		if x.kind != pyStr || y.kind != pyStr || x.s != y.s {
			return false
		}
	}
	return true
}

// isClose is math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-2).
func isClose(a, b float64) bool {
	if a == b {
		return true
	}
	if math.IsInf(a, 0) || math.IsInf(b, 0) {
		return false
	}
	d := math.Abs(a - b)
	return d <= 1e-9*math.Abs(b) || d <= 1e-9*math.Abs(a) || d <= 1e-2
}

// sortedVec sorts by (str(x), isinstance(x, (int, float))) as the scorer
// does. Sorting by text puts 10 before 9: kept on purpose. Python's sort
// is stable, this one is not, but cells that tie on both keys are equal
// for vectorsMatch (same text and both numbers, or both the same text),
// so the verdict cannot differ.
func sortedVec(v s2Vec) s2Vec {
	type keyed struct {
		str string
		num bool
		i   int
	}
	ks := make([]keyed, len(v))
	for i := range v {
		ks[i] = keyed{v[i].str(), v[i].numeric(), i}
	}
	slices.SortFunc(ks, func(a, b keyed) int {
		if c := strings.Compare(a.str, b.str); c != 0 {
			return c
		}
		switch {
		case a.num == b.num:
			return 0
		case b.num:
			return -1
		}
		return 1
	})
	out := make(s2Vec, len(v))
	for k, e := range ks {
		out[k] = v[e.i]
	}
	return out
}

// ---- the CSV round trip ----

type dtype uint8

const (
	dtInt dtype = iota
	dtFloat
	dtBool
	dtObject
)

// pandasNA is read_csv's default set of texts read as NaN.
var pandasNA = map[string]bool{
	"": true, "#N/A": true, "#N/A N/A": true, "#NA": true, "-1.#IND": true, "-1.#QNAN": true,
	"-NaN": true, "-nan": true, "1.#IND": true, "1.#QNAN": true, "<NA>": true, "N/A": true,
	"NA": true, "NULL": true, "NaN": true, "None": true, "n/a": true, "nan": true, "null": true,
}

// s2Frame turns the chosen columns of rs into the vectors the scorer's
// frame.transpose().values.tolist() yields.
func s2Frame(rs *sqlgym.ResultSet, cols []int) []s2Vec {
	vecs := make([]s2Vec, len(cols))
	types := make([]dtype, len(cols))
	for i, c := range cols {
		vecs[i], types[i] = s2Column(rs, c)
	}
	// .values finds one dtype for the frame: int and float columns
	// together all become float; with a text or bool column everything
	// stays a Python object of its own type.
	anyFloat, allNumeric := false, true
	for _, t := range types {
		switch t {
		case dtFloat:
			anyFloat = true
		case dtBool, dtObject:
			allNumeric = false
		}
	}
	if allNumeric && anyFloat {
		for i, t := range types {
			if t == dtInt {
				for k := range vecs[i] {
					v := &vecs[i][k]
					v.kind, v.f = pyFloat, float64(v.i)
				}
			}
		}
	}
	return vecs
}

// s2Column writes column c as to_csv would and reads it back as read_csv
// would, NaN already normalised to 0.
func s2Column(rs *sqlgym.ResultSet, c int) (s2Vec, dtype) {
	n := len(rs.Rows)
	vec := make(s2Vec, n)
	// Numbers and NULLs only: the text round trip is the identity, bar
	// ints becoming floats beside a NULL or a float.
	numeric, anyFloat, anyNull := true, false, false
	for _, row := range rs.Rows {
		switch v := cellAt(row, c); v.Kind {
		case sqlgym.KindInt:
		case sqlgym.KindFloat:
			if math.IsNaN(v.Float) {
				anyNull = true
			} else {
				anyFloat = true
			}
		case sqlgym.KindNull:
			anyNull = true
		default:
			numeric = false
		}
	}
	if numeric {
		dt := dtInt
		if anyFloat || anyNull || n == 0 {
			dt = dtFloat
		}
		for r, row := range rs.Rows {
			v := cellAt(row, c)
			switch {
			case v.Kind == sqlgym.KindNull || (v.Kind == sqlgym.KindFloat && math.IsNaN(v.Float)):
				vec[r] = pyVal{kind: pyInt} // NaN -> 0
			case dt == dtInt:
				vec[r] = pyVal{kind: pyInt, i: v.Int}
			case v.Kind == sqlgym.KindInt:
				vec[r] = pyVal{kind: pyFloat, f: float64(v.Int)}
			default:
				vec[r] = pyVal{kind: pyFloat, f: v.Float}
			}
		}
		return vec, dt
	}

	texts := make([]string, n)
	na := make([]bool, n)
	allInt, allFloat, allBool, seen := true, true, true, 0
	for r, row := range rs.Rows {
		t := csvText(cellAt(row, c))
		if pandasNA[t] {
			na[r] = true
			anyNull = true
			continue
		}
		texts[r] = t
		seen++
		if allInt {
			if _, ok := csvInt(t); !ok {
				allInt = false
			}
		}
		// An int is a float too, so floats are only checked once a cell
		// is not an int.
		if allFloat && !allInt {
			if _, ok := csvFloat(t); !ok {
				allFloat = false
			}
		}
		if allBool {
			if _, ok := csvBool(t); !ok {
				allBool = false
			}
		}
	}
	var dt dtype
	switch {
	case seen == 0:
		dt = dtFloat
	case allInt && !anyNull:
		dt = dtInt
	case allInt || allFloat:
		dt = dtFloat
	case allBool && !anyNull:
		dt = dtBool
	default:
		dt = dtObject
	}
	for r := range vec {
		if na[r] {
			vec[r] = pyVal{kind: pyInt}
			continue
		}
		t := texts[r]
		switch {
		case dt == dtInt:
			i, _ := csvInt(t)
			vec[r] = pyVal{kind: pyInt, i: i}
		case dt == dtFloat:
			f, _ := csvFloat(t)
			vec[r] = pyVal{kind: pyFloat, f: f}
		case allBool:
			b, _ := csvBool(t)
			vec[r] = pyVal{kind: pyBool}
			if b {
				vec[r].i = 1
			}
		default:
			vec[r] = pyVal{kind: pyStr, s: t}
		}
	}
	return vec, dt
}

// csvText is the cell as DataFrame.to_csv writes the driver's object.
func csvText(v sqlgym.Value) string {
	switch v.Kind {
	case sqlgym.KindNull:
		return ""
	case sqlgym.KindInt:
		return strconv.FormatInt(v.Int, 10)
	case sqlgym.KindBool:
		if v.Int != 0 {
			return "True"
		}
		return "False"
	case sqlgym.KindFloat:
		if math.IsNaN(v.Float) {
			return ""
		}
		return string(appendPyFloatRepr(nil, v.Float))
	case sqlgym.KindBytes:
		return string(appendPyBytesRepr(nil, v.Str))
	}
	return v.Str // text, decimal, dates and times: already their str()
}

func trimASCII(s string) string { return strings.Trim(s, " \t\r\n\v\f") }

// csvInt parses an integer as read_csv's C parser does: optional sign,
// digits, surrounding blanks allowed.
func csvInt(s string) (int64, bool) {
	t := trimASCII(s)
	if t == "" {
		return 0, false
	}
	u := t
	if u[0] == '+' || u[0] == '-' {
		u = u[1:]
	}
	if u == "" {
		return 0, false
	}
	for i := 0; i < len(u); i++ {
		if u[i] < '0' || u[i] > '9' {
			return 0, false
		}
	}
	i, err := strconv.ParseInt(t, 10, 64)
	return i, err == nil
}

// csvFloat parses a float as read_csv does: decimal digits with an
// optional exponent, or inf/infinity; no hex, no underscores.
func csvFloat(s string) (float64, bool) {
	t := trimASCII(s)
	if t == "" || strings.ContainsAny(t, "xXpP_") {
		return 0, false
	}
	l := strings.ToLower(strings.TrimLeft(t, "+-"))
	if strings.Contains(l, "nan") {
		return 0, false
	}
	if l != "inf" && l != "infinity" && !plainDecimal(t) && !sciDecimal(t) {
		return 0, false
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil && !isRangeErr(err) {
		return 0, false
	}
	return f, true
}

func isRangeErr(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}

func csvBool(s string) (bool, bool) {
	switch s {
	case "True", "TRUE", "true":
		return true, true
	case "False", "FALSE", "false":
		return false, true
	}
	return false, false
}
