package verify

import (
	"math"
	"testing"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/verify/extract"
)

func rows(rs ...[]sqlgym.Value) *sqlgym.ResultSet { return &sqlgym.ResultSet{Rows: rs} }

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestCompareRowsPartialCredit(t *testing.T) {
	gold := rows(
		[]sqlgym.Value{sqlgym.Int(1), sqlgym.Text("ann")},
		[]sqlgym.Value{sqlgym.Int(2), sqlgym.Text("bob")},
		[]sqlgym.Value{sqlgym.Int(3), sqlgym.Text("cy")},
		[]sqlgym.Value{sqlgym.Int(4), sqlgym.Text("di")},
	)
	cases := []struct {
		name string
		pred *sqlgym.ResultSet
		want sqlgym.Components
	}{
		{"same rows, columns swapped, 1.0 for 1", rows(
			[]sqlgym.Value{sqlgym.Text("ann"), sqlgym.Float(1)},
			[]sqlgym.Value{sqlgym.Text("bob"), sqlgym.Int(2)},
			[]sqlgym.Value{sqlgym.Text("cy"), sqlgym.Int(3)},
			[]sqlgym.Value{sqlgym.Text("di"), sqlgym.Int(4)},
		), sqlgym.Components{CompRows: 1, CompRowPrecision: 1, CompRowRecall: 1, CompCells: 1, CompCardinality: 1}},
		{"half the rows", rows(
			[]sqlgym.Value{sqlgym.Int(1), sqlgym.Text("ann")},
			[]sqlgym.Value{sqlgym.Int(2), sqlgym.Text("bob")},
		), sqlgym.Components{CompRowPrecision: 1, CompRowRecall: 0.5, CompRows: 2.0 / 3, CompCellPrecision: 1, CompCellRecall: 0.5, CompCardinality: 0.5}},
		{"one right row among extra ones", rows(
			[]sqlgym.Value{sqlgym.Int(1), sqlgym.Text("ann")},
			[]sqlgym.Value{sqlgym.Int(9), sqlgym.Text("zed")},
			[]sqlgym.Value{sqlgym.Int(8), sqlgym.Text("yo")},
			[]sqlgym.Value{sqlgym.Int(7), sqlgym.Text("xi")},
			[]sqlgym.Value{sqlgym.Int(6), sqlgym.Text("wu")},
			[]sqlgym.Value{sqlgym.Int(5), sqlgym.Text("vi")},
			[]sqlgym.Value{sqlgym.Int(4), sqlgym.Text("ut")},
			[]sqlgym.Value{sqlgym.Int(3), sqlgym.Text("ta")},
		), sqlgym.Components{CompRowPrecision: 1.0 / 8, CompRowRecall: 0.25, CompCardinality: 0.5, CompCellRecall: 0.5, CompCellPrecision: 0.25}},
		{"the names only: no row, half the cells", rows(
			[]sqlgym.Value{sqlgym.Text("ann")}, []sqlgym.Value{sqlgym.Text("bob")},
			[]sqlgym.Value{sqlgym.Text("cy")}, []sqlgym.Value{sqlgym.Text("di")},
		), sqlgym.Components{CompRows: 0, CompCellPrecision: 1, CompCellRecall: 0.5, CompCardinality: 1}},
		{"nothing", rows(), sqlgym.Components{CompRows: 0, CompCells: 0, CompCardinality: 0}},
	}
	for _, c := range cases {
		got := sqlgym.Components{}
		compareRows(newMultiset(c.pred), newMultiset(gold)).into(got)
		for k, want := range c.want {
			if !near(got[k], want) {
				t.Errorf("%s: %s = %g, want %g (all: %v)", c.name, k, got[k], want, got)
			}
		}
	}
	// Two empty results agree entirely.
	got := sqlgym.Components{}
	compareRows(newMultiset(rows()), newMultiset(rows())).into(got)
	if got[CompRows] != 1 || got[CompCardinality] != 1 || got[CompCells] != 1 {
		t.Errorf("empty vs empty: %v, want 1s", got)
	}
	// NULL matches NULL, not the text NULL.
	got = sqlgym.Components{}
	compareRows(newMultiset(rows([]sqlgym.Value{sqlgym.Text("NULL")})), newMultiset(rows([]sqlgym.Value{sqlgym.Null()}))).into(got)
	if got[CompCells] != 0 {
		t.Errorf("text NULL matched a NULL: %v", got)
	}
}

func TestFormatAndLengthScores(t *testing.T) {
	cases := map[string]float64{
		"Here:\n```sql\nSELECT 1\n```": 1,
		"<answer>SELECT 1</answer>":    1,
		"```\nSELECT 1\n```":           0.5,
		"SELECT 1":                     0,
	}
	for reply, want := range cases {
		if got := formatScore(extract.FromCompletion(reply, "").Method); got != want {
			t.Errorf("format of %q = %g, want %g", reply, got, want)
		}
	}
	if lengthScore(100, 2048) != 1 || lengthScore(4096, 2048) != 0.5 || lengthScore(0, 10) != 1 {
		t.Error("length score: want 1 under the target and target/n past it")
	}
}

func TestJaccard(t *testing.T) {
	if got := jaccard([]string{"orders", "orders.status"}, []string{"Orders", "orders.total_amount"}); !near(got, 1.0/3) {
		t.Errorf("jaccard = %g, want 1/3 (case-insensitive)", got)
	}
	if jaccard(nil, nil) != 1 || jaccard([]string{"a"}, nil) != 0 {
		t.Error("jaccard of empty sets")
	}
}

func TestWeights(t *testing.T) {
	w, err := ParseWeights("outcome=1, rows=0.5,schema=0.25")
	if err != nil {
		t.Fatal(err)
	}
	if w.IsDefault() || w.String() != "outcome=1,rows=0.5,schema=0.25" {
		t.Errorf("weights %v (%s)", w, w.String())
	}
	r := 0.1
	got := w.Combine(&r, sqlgym.Components{CompRows: 0.5, CompSchema: 1, CompCells: 1})
	if got == nil || !near(*got, 0.1+0.25+0.25) {
		t.Errorf("combined %v, want 0.6", got)
	}
	if w.Combine(nil, sqlgym.Components{CompRows: 1}) != nil {
		t.Error("a null outcome reward must stay null whatever the components")
	}
	if d, _ := ParseWeights(""); !d.IsDefault() || *d.Combine(&r, sqlgym.Components{CompRows: 1}) != 0.1 {
		t.Error("the default weights are the outcome reward")
	}
	for _, bad := range []string{"rows", "rows=x", "nosuch=1", "rows=NaN"} {
		if _, err := ParseWeights(bad); err == nil {
			t.Errorf("ParseWeights(%q) accepted", bad)
		}
	}
}
