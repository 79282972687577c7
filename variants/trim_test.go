package variants

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/engine/sqlite"
	schemapkg "github.com/sqlgym/sqlgym/schema"
)

// The key closure: an untouched child of a deleted row goes with it; a
// touched child keeps its parent, and a kept row keeps the rows it refers
// to, up the chain.
func TestCloseOverKeysKeepsReferencesWhole(t *testing.T) {
	schema := &sqlgym.Schema{Tables: []sqlgym.Table{
		{Name: "customers", Columns: []sqlgym.Column{{Name: "customer_id"}}, PrimaryKey: []string{"customer_id"}},
		{Name: "orders", Columns: []sqlgym.Column{{Name: "order_id"}, {Name: "customer_id"}}, PrimaryKey: []string{"order_id"},
			ForeignKeys: []sqlgym.ForeignKey{{Columns: []string{"customer_id"}, RefTable: "customers", RefColumns: []string{"customer_id"}}}},
		{Name: "items", Columns: []sqlgym.Column{{Name: "item_id"}, {Name: "order_id"}},
			ForeignKeys: []sqlgym.ForeignKey{{Columns: []string{"order_id"}, RefTable: "orders"}}},
	}}
	tab := func(name string, cols []string, rows [][]int64, touched ...int64) *trimTable {
		tt := &trimTable{name: name, cols: map[string]int{}, rows: map[int64][]sqlgym.Value{}, touched: map[int64]bool{}}
		for i, c := range cols {
			tt.cols[c] = i
		}
		for _, r := range rows {
			var vs []sqlgym.Value
			for _, v := range r {
				vs = append(vs, sqlgym.Int(v))
			}
			tt.rowids = append(tt.rowids, r[0])
			tt.rows[r[0]] = vs
		}
		for _, id := range touched {
			tt.touched[id] = true
		}
		return tt
	}
	tabs := map[string]*trimTable{
		"customers": tab("customers", []string{"customer_id"}, [][]int64{{1}, {2}, {3}}),
		// Order 11 of customer 1 is untouched; 12 of customer 2 has a
		// touched item; 13 of customer 3 was inserted by an edit.
		"orders": tab("orders", []string{"order_id", "customer_id"}, [][]int64{{11, 1}, {12, 2}, {13, 3}}, 13),
		"items":  tab("items", []string{"item_id", "order_id"}, [][]int64{{101, 11}, {102, 12}, {103, 12}}, 103),
	}
	del := map[string]map[int64]bool{"customers": {1: true, 2: true, 3: true}}
	closeOverKeys(tabs, schema, del)
	want := map[string][]int64{"customers": {1}, "orders": {11}, "items": {101, 102}}
	for name, ids := range want {
		var got []int64
		for id := range del[name] {
			got = append(got, id)
		}
		slices.Sort(got)
		if !slices.Equal(got, ids) {
			t.Errorf("%s: deleted %v, want %v", name, got, ids)
		}
	}
	stmts := deleteStatements(tabs, schema, del)
	wantStmts := []string{
		`DELETE FROM "items" WHERE rowid IN (101,102)`,
		`DELETE FROM "orders" WHERE rowid IN (11)`,
		`DELETE FROM "customers" WHERE rowid IN (1)`,
	}
	if !slices.Equal(stmts, wantStmts) {
		t.Errorf("statements\n%s\nwant\n%s", strings.Join(stmts, "\n"), strings.Join(wantStmts, "\n"))
	}
}

// On the toy shop the thinning and the trim delete original rows from the
// variants, the statements rebuild each variant with its recorded row
// count, the kills
// the variant was kept for stay (the generator's own full check), and the
// rows no edit touched are the only ones gone.
func TestTrimDeletesOnlyUntouchedRows(t *testing.T) {
	path, res, _ := sharedToy(t)
	ctx := context.Background()
	trimmed := 0
	for _, v := range res.Variants {
		trimmed += v.TrimmedRows + v.ThinnedRows
		t.Logf("%s: %d rows after the trim, %d thinned, %d trimmed in %d trials", v.Name, v.Rows, v.ThinnedRows, v.TrimmedRows, v.TrimTrials)
		if v.TrimTrials > maxTrimTrials {
			t.Errorf("%s: %d trim trials, more than the bound %d", v.Name, v.TrimTrials, maxTrimTrials)
		}
		re := rebuild(t, path, v)
		eng, err := sqlite.Open(re, sqlite.Options{})
		if err != nil {
			t.Fatal(err)
		}
		var rows int64
		for _, tb := range []string{"customers", "orders"} {
			rs, err := eng.Query(ctx, "SELECT COUNT(*) FROM "+tb, sqlgym.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			rows += rs.Rows[0][0].Int
		}
		rs, err := eng.Query(ctx, "SELECT COUNT(*) FROM orders WHERE customer_id NOT IN (SELECT customer_id FROM customers)", sqlgym.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		eng.Close()
		if rows != v.Rows {
			t.Errorf("%s: the rebuild has %d rows, the result says %d", v.Name, rows, v.Rows)
		}
		if n := rs.Rows[0][0].Int; n != 0 {
			t.Errorf("%s: %d orders lost their customer to the trim", v.Name, n)
		}
		// The trim's deletions name only rows the edits left as they were
		// (after the thinning's deletions, when it was thinned).
		edits := append([]string(nil), v.Statements[:v.ThinStatements]...)
		for _, s := range v.Statements[v.ThinStatements:] {
			if !strings.HasPrefix(s, "DELETE FROM ") || !strings.Contains(s, " WHERE rowid IN (") {
				edits = append(edits, s)
			}
		}
		before := filepath.Join(t.TempDir(), "edits.sqlite")
		if err := copyFile(before, path); err != nil {
			t.Fatal(err)
		}
		if _, err := sqlite.Edit(ctx, before, edits); err != nil {
			t.Fatal(err)
		}
		oe, err := sqlite.Open(path, sqlite.Options{})
		if err != nil {
			t.Fatal(err)
		}
		schema, err := schemapkg.Load(ctx, oe, 0)
		oe.Close()
		if err != nil {
			t.Fatal(err)
		}
		orig, err := readTrimTables(ctx, path, schema, nil)
		if err != nil {
			t.Fatal(err)
		}
		edited, err := readTrimTables(ctx, before, schema, orig)
		if err != nil {
			t.Fatal(err)
		}
		after, err := readTrimTables(ctx, re, schema, orig)
		if err != nil {
			t.Fatal(err)
		}
		for name, tt := range edited {
			for _, id := range tt.rowids {
				if _, kept := after[name].rows[id]; !kept && tt.touched[id] {
					t.Errorf("%s: the trim deleted row %d of %s, which an edit touched", v.Name, id, name)
				}
			}
		}
	}
	if trimmed == 0 {
		t.Errorf("the thinning and the trim deleted no row from any of %d variants of the toy shop (40 orders, 12 customers)", len(res.Variants))
	}
}

// rebuild makes variant v from the original at path and its statements
// alone, as the catalog rebuilds the shipped ones, and fails the test if
// one of them does not apply.
func rebuild(t *testing.T, path string, v Kept) string {
	t.Helper()
	re := filepath.Join(t.TempDir(), v.Name+".sqlite")
	if err := copyFile(re, path); err != nil {
		t.Fatal(err)
	}
	applied, err := sqlite.Edit(context.Background(), re, v.Statements)
	if err != nil {
		t.Fatal(err)
	}
	if i := slices.Index(applied, false); i >= 0 {
		t.Fatalf("%s: statement %d does not apply on a rebuild: %s", v.Name, i+1, v.Statements[i])
	}
	return re
}
