package compare

import (
	"encoding/binary"
	"slices"
	"strings"

	"github.com/sqlgym/sqlgym"
)

// BIRD mini-dev's soft F1, reproduced: duplicates dropped from both
// results, then row i of the prediction is paired with row i of the gold;
// in a pair each predicted cell found anywhere in the gold row counts as a
// match, the others as predicted-only, and each gold cell missing from the
// predicted row as gold-only, all divided by the gold row's width. Unpaired
// rows count 1 predicted-only or 1 gold-only. F1 comes from the summed
// counts. Cells are equal as Python objects are (1 == 1.0, '1' != 1).
//
// The original pairs rows in Python's set iteration order: hash order,
// which for text changes from process to process, and which can differ
// even between two equal sets built in different orders (so the original
// sometimes scores identical results below 1). Here both sides are sorted
// before pairing by each row's set of distinct cells, then by the row
// itself. That is deterministic, and it scores 1 exactly when some pairing
// of the rows would: a pair is perfect only when both rows hold the same
// set of values (membership ignores position and repeats), so sorting by
// that set lines the perfect pairs up.

type f1Row []string // each cell's pyKey

type f1Gold struct {
	cols int
	rows []f1Row
}

func newF1Gold(gold *sqlgym.ResultSet) *f1Gold {
	return &f1Gold{cols: gold.NumCols(), rows: f1Rows(gold)}
}

func f1Rows(rs *sqlgym.ResultSet) []f1Row {
	cols := rs.NumCols()
	seen := make(map[string]bool, len(rs.Rows))
	var rows []f1Row
	var buf, cell []byte
	starts, ends := make([]int, cols), make([]int, cols)
	for _, row := range rs.Rows {
		// Each cell's key behind its length, so that no two different
		// rows can spell the same row key, whatever bytes their text holds.
		buf = buf[:0]
		for c := 0; c < cols; c++ {
			cell = pyKey(cell[:0], cellAt(row, c))
			buf = binary.AppendUvarint(buf, uint64(len(cell)))
			starts[c] = len(buf)
			buf = append(buf, cell...)
			ends[c] = len(buf)
		}
		if seen[string(buf)] {
			continue
		}
		// One string per row; the cells are slices of it.
		key := string(buf)
		seen[key] = true
		cells := make(f1Row, cols)
		for c := 0; c < cols; c++ {
			cells[c] = key[starts[c]:ends[c]]
		}
		rows = append(rows, cells)
	}
	sortRows(rows)
	return rows
}

func sortRows(rows []f1Row) {
	type keyed struct {
		cells  f1Row
		sorted f1Row
	}
	ks := make([]keyed, len(rows))
	for i, r := range rows {
		ks[i] = keyed{r, slices.Compact(slices.Sorted(slices.Values(r)))}
	}
	slices.SortFunc(ks, func(a, b keyed) int {
		if c := compareRows(a.sorted, b.sorted); c != 0 {
			return c
		}
		return compareRows(a.cells, b.cells)
	})
	for i := range ks {
		rows[i] = ks[i].cells
	}
}

func compareRows(a, b f1Row) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if c := strings.Compare(a[i], b[i]); c != 0 {
			return c
		}
	}
	return len(a) - len(b)
}

func (g *f1Gold) compare(pred *sqlgym.ResultSet) Verdict {
	if pred.Capped {
		return miss(WhyCapped)
	}
	if len(pred.Rows) == 0 && len(g.rows) == 0 {
		return matched
	}
	p := f1Rows(pred)
	score, ok := softF1(p, g.rows)
	v := Verdict{Score: score, Match: ok && score == 1}
	if !v.Match {
		switch {
		case pred.NumCols() != g.cols:
			v.Why = WhyColumnCount
		case len(p) != len(g.rows):
			v.Why = WhyRowCount
		default:
			v.Why = WhyValues
		}
	}
	return v
}

// softF1 follows calculate_f1_score; ok is false where the original would
// raise (a gold row with no cells), which its caller scores 0.
func softF1(pred, gold []f1Row) (float64, bool) {
	var tp, fp, fn float64
	for i, gt := range gold {
		if i >= len(pred) {
			fn += 1
			continue
		}
		if len(gt) == 0 {
			return 0, false
		}
		m, po, to := rowMatch(pred[i], gt)
		total := float64(len(gt))
		tp += float64(m) / total
		fp += float64(po) / total
		fn += float64(to) / total
	}
	for i := len(gold); i < len(pred); i++ {
		fp += 1
	}
	var precision, recall float64
	if tp+fp > 0 {
		precision = tp / (tp + fp)
	}
	if tp+fn > 0 {
		recall = tp / (tp + fn)
	}
	if precision+recall == 0 {
		return 0, true
	}
	return 2 * precision * recall / (precision + recall), true
}

func rowMatch(pred, gt f1Row) (matches, predOnly, truthOnly int) {
	for _, v := range pred {
		if contains(gt, v) {
			matches++
		} else {
			predOnly++
		}
	}
	for _, v := range gt {
		if !contains(pred, v) {
			truthOnly++
		}
	}
	return
}

func contains(row f1Row, v string) bool {
	for _, x := range row {
		if x == v {
			return true
		}
	}
	return false
}
