package verify

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/verify/extract"
)

// Reward components: deterministic scores in [0, 1] computed beside the
// outcome, on the same verified path (the rows the verdict was judged on,
// the SQL it ran), so a trainer can shape a reward out of them without a
// second scorer. They exist because a 0/1 outcome leaves a GRPO group in
// which every answer is wrong with no signal at all; partial credit tells
// a near miss from nonsense there (docs/training.md, "Reward components").
const (
	// CompOutcome is the outcome reward itself (Config.Rewards).
	CompOutcome = "outcome"
	// CompRows is the F1 of the answer's rows against the gold's, as
	// multisets of rows whose cells are compared as values in any column
	// order (Think2SQL's precision/recall of the result).
	CompRows = "rows"
	// CompRowPrecision and CompRowRecall are the two halves of CompRows.
	CompRowPrecision = "row_precision"
	CompRowRecall    = "row_recall"
	// CompCells is the F1 of the answer's cell values against the gold's,
	// as multisets, wherever they stand: a result with the right values
	// in a wrong shape still earns some.
	CompCells = "cells"
	// CompCellPrecision and CompCellRecall are the two halves of CompCells.
	CompCellPrecision = "cell_precision"
	CompCellRecall    = "cell_recall"
	// CompCardinality is min/max of the two row counts (1 when equal).
	CompCardinality = "cardinality"
	// CompSchema is the Jaccard overlap of the tables and columns the
	// answer's SQL reads with the gold's (Reasoning-SQL's schema linking).
	CompSchema = "schema"
	// CompExecutes is 1 when the answer ran without an error (correct or
	// wrong), 0 when it failed, timed out, was too large or was missing.
	CompExecutes = "executes"
	// CompFormat is 1 when the SQL was found where prompts ask for it (a
	// ```sql fence or a <sql>/<answer>/<solution> tag), 0.5 in a fence
	// without a language, 0 as a bare statement or not at all; an item
	// that sends SQL itself is 1.
	CompFormat = "format"
	// CompLength is min(1, LengthTarget / characters of the reply).
	CompLength = "length"
)

// ComponentNames lists every component, in the order docs show them.
var ComponentNames = []string{CompOutcome, CompRows, CompRowPrecision, CompRowRecall, CompCells, CompCellPrecision,
	CompCellRecall, CompCardinality, CompSchema, CompExecutes, CompFormat, CompLength}

// DefaultLengthTarget is the reply length, in characters, under which
// CompLength is 1.
const DefaultLengthTarget = 2048

// Weights turn components into a reward: the sum of weight x component.
// The default, outcome=1, is the outcome reward unchanged.
type Weights map[string]float64

// DefaultWeights is today's reward: the outcome alone.
func DefaultWeights() Weights { return Weights{CompOutcome: 1} }

// ParseWeights reads "outcome=1,rows=0.5" (components not named weigh 0;
// an empty string is the default).
func ParseWeights(s string) (Weights, error) {
	if strings.TrimSpace(s) == "" {
		return DefaultWeights(), nil
	}
	w := Weights{}
	for _, part := range strings.Split(s, ",") {
		k, val, ok := strings.Cut(strings.TrimSpace(part), "=")
		x, err := strconv.ParseFloat(strings.TrimSpace(val), 64)
		if !ok || err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, sqlgym.Userf("write COMPONENT=NUMBER, e.g. --reward-weights outcome=1,rows=0.5",
				"reward weights %q: cannot read %q", s, part)
		}
		w[strings.TrimSpace(k)] = x
	}
	return w, w.Check()
}

// Check refuses a weight for a component that does not exist.
func (w Weights) Check() error {
	for k := range w {
		if !knownComponent(k) {
			return sqlgym.Userf("components: "+strings.Join(ComponentNames, ", "), "no reward component %q", k)
		}
	}
	return nil
}

// IsDefault reports whether w is the outcome reward alone.
func (w Weights) IsDefault() bool {
	for k, x := range w {
		if x != 0 && (k != CompOutcome || x != 1) {
			return false
		}
	}
	return w[CompOutcome] == 1
}

// String renders w in the --reward-weights syntax, in ComponentNames order.
func (w Weights) String() string {
	var parts []string
	for _, k := range ComponentNames {
		if x, ok := w[k]; ok {
			parts = append(parts, fmt.Sprintf("%s=%g", k, x))
		}
	}
	return strings.Join(parts, ",")
}

// Combine is the reward of an answer under w: nil when the outcome
// carries no reward (a truncated reply, a broken gold, an outage), since
// no component may make such a sample learnable; else the weighted sum.
// Components an answer lacks count 0.
func (w Weights) Combine(reward *float64, c sqlgym.Components) *float64 {
	if reward == nil {
		return nil
	}
	if w.IsDefault() {
		x := *reward
		return &x
	}
	var sum float64
	for k, x := range w {
		if k == CompOutcome {
			sum += x * *reward
			continue
		}
		sum += x * c[k]
	}
	return &sum
}

func knownComponent(k string) bool {
	for _, n := range ComponentNames {
		if n == k {
			return true
		}
	}
	return false
}

// formatScore is CompFormat for an extraction method.
func formatScore(method string) float64 {
	switch method {
	case extract.MethodFenceSQL, extract.MethodTagSQL, extract.MethodTagAnswer, extract.MethodTagSolution:
		return 1
	case extract.MethodFence:
		return 0.5
	}
	return 0
}

// lengthScore is CompLength for a reply of n characters.
func lengthScore(n, target int) float64 {
	if n <= target || n == 0 {
		return 1
	}
	return float64(target) / float64(n)
}

// rowStats compares a candidate's rows with a gold's as multisets: rows
// whose cells are the same values in any column order match, and cells
// match as values wherever they stand.
type rowStats struct {
	rowHits, cellHits    int
	predRows, goldRows   int
	predCells, goldCells int
}

// multiset is a result's rows and cells as comparison keys with their
// counts: made once per gold (goldEntry keeps it), once per candidate.
type multiset struct {
	rows, cells map[string]int
	nRows       int
	nCells      int
}

func newMultiset(rs *sqlgym.ResultSet) *multiset {
	m := &multiset{rows: make(map[string]int, len(rs.Rows)), cells: map[string]int{}, nRows: len(rs.Rows)}
	var key []string
	for _, row := range rs.Rows {
		key = rowKey(row, key[:0])
		m.rows[strings.Join(key, "\x00")]++
		for _, c := range key {
			m.cells[c]++
		}
		m.nCells += len(row)
	}
	return m
}

// compareRows counts the matches of pred's rows and cells in gold's: for
// each key, the smaller of its two counts.
func compareRows(pred, gold *multiset) rowStats {
	st := rowStats{predRows: pred.nRows, goldRows: gold.nRows, predCells: pred.nCells, goldCells: gold.nCells}
	for k, n := range pred.rows {
		st.rowHits += min(n, gold.rows[k])
	}
	for k, n := range pred.cells {
		st.cellHits += min(n, gold.cells[k])
	}
	return st
}

// rowKey is a row's cells as comparison keys, sorted, so column order does
// not matter.
func rowKey(row []sqlgym.Value, out []string) []string {
	for _, v := range row {
		out = append(out, cellKey(v))
	}
	sort.Strings(out)
	return out
}

// cellKey makes equal values equal keys: 1, 1.0 and true are one number
// (rounded to 9 significant digits, so float noise does not split them);
// NULL is its own key; other values compare as their text.
func cellKey(v sqlgym.Value) string {
	if v.IsNull() {
		return "\x01null"
	}
	if f, ok := v.Numeric(); ok {
		return "\x02" + strconv.FormatFloat(f, 'g', 9, 64)
	}
	return v.String()
}

// components of the result comparison, added to c.
func (st rowStats) into(c sqlgym.Components) {
	p, r := ratio(st.rowHits, st.predRows, st.goldRows), ratio(st.rowHits, st.goldRows, st.predRows)
	c[CompRowPrecision], c[CompRowRecall], c[CompRows] = p, r, f1(p, r)
	p, r = ratio(st.cellHits, st.predCells, st.goldCells), ratio(st.cellHits, st.goldCells, st.predCells)
	c[CompCellPrecision], c[CompCellRecall], c[CompCells] = p, r, f1(p, r)
	c[CompCardinality] = ratio(min(st.predRows, st.goldRows), max(st.predRows, st.goldRows), 0)
}

// ratio is hits/n; with n 0 it is 1 when the other side is empty too
// (nothing asked, nothing given) and 0 otherwise.
func ratio(hits, n, other int) float64 {
	if n == 0 {
		if other == 0 {
			return 1
		}
		return 0
	}
	return float64(hits) / float64(n)
}

func f1(p, r float64) float64 {
	if p+r == 0 {
		return 0
	}
	return 2 * p * r / (p + r)
}

// jaccard is |a ∩ b| / |a ∪ b| of two name sets, case-insensitive; 1 for
// two empty sets.
func jaccard(a, b []string) float64 {
	set := map[string]int{}
	for _, x := range a {
		set[strings.ToLower(x)] |= 1
	}
	for _, x := range b {
		set[strings.ToLower(x)] |= 2
	}
	if len(set) == 0 {
		return 1
	}
	both := 0
	for _, m := range set {
		if m == 3 {
			both++
		}
	}
	return float64(both) / float64(len(set))
}
