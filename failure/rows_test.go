package failure_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/engine/sqlite"
	"github.com/sqlgym/sqlgym/failure"
)

var shopFixture = []string{
	"CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT, city TEXT, tier TEXT)",
	"CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER, total REAL, status TEXT)",
	"CREATE TABLE archived_orders (id INTEGER PRIMARY KEY, customer_id INTEGER, total REAL, status TEXT)",
	"INSERT INTO customers VALUES (1,'Ann','Paris','gold'),(2,'Bob','Rome','silver'),(3,'Cid','Paris','gold'),(4,'Dan','Oslo','bronze')",
	"INSERT INTO orders VALUES (1,1,10.004,'paid'),(2,1,20.0,'paid'),(3,2,5.5,'open'),(4,3,7.25,'paid'),(5,4,1.0,'open')",
	"INSERT INTO archived_orders VALUES (1,1,10.004,'paid'),(2,2,99.0,'paid')",
	"CREATE TABLE visits (id INTEGER PRIMARY KEY, city TEXT)",
	"INSERT INTO visits VALUES (1,'Paris'),(2,'Paris'),(3,'Paris'),(4,'Rome'),(5,'Oslo')",
}

// Each wrong answer is run for real next to its gold; the class (and the
// row relation where it says one) is what the taxonomy must give.
var rowCases = []struct {
	name, pred, gold string
	want             failure.Class
	rel              failure.Relation
}{
	{"no rows", "SELECT name FROM customers WHERE city = 'Lima'", "SELECT name FROM customers WHERE city = 'Paris'", failure.EmptyResult, ""},
	{"column count", "SELECT name, city FROM customers WHERE city = 'Paris'", "SELECT name FROM customers WHERE city = 'Paris'", failure.WrongColumns, ""},
	{"which column", "SELECT id, city FROM customers", "SELECT id, name FROM customers", failure.WrongColumns, failure.RelDisjoint},
	{"missing distinct", "SELECT city FROM customers", "SELECT DISTINCT city FROM customers", failure.MissingDistinct, failure.RelSuperset},
	// The read stops one row past the gold's 3: three Paris and a Rome,
	// Oslo unseen. It was wrong_values "overlap" (issue 26).
	{"missing distinct, capped read", "SELECT city FROM visits", "SELECT DISTINCT city FROM visits", failure.MissingDistinct, failure.RelOverlap},
	{"join fan-out", "SELECT c.name FROM customers c JOIN orders o ON o.customer_id = c.id WHERE c.tier = 'gold'", "SELECT name FROM customers WHERE tier = 'gold'", failure.DuplicatedRows, failure.RelSuperset},
	{"group by grain", "SELECT count(*) FROM orders GROUP BY customer_id", "SELECT count(*) FROM orders GROUP BY status", failure.WrongGrain, failure.RelOverlap},
	{"filter literal", "SELECT name FROM customers WHERE city = 'Rome'", "SELECT name FROM customers WHERE city = 'Oslo'", failure.FilterDiffers, failure.RelDisjoint},
	{"comparison", "SELECT id FROM orders WHERE total > 7.25", "SELECT id FROM orders WHERE total >= 7.25", failure.FilterDiffers, failure.RelSubset},
	{"row order", "SELECT name FROM customers ORDER BY name DESC", "SELECT name FROM customers ORDER BY name", failure.Ordering, failure.RelEqual},
	{"limit", "SELECT name FROM customers ORDER BY name LIMIT 3", "SELECT name FROM customers ORDER BY name LIMIT 2", failure.Ordering, failure.RelSuperset},
	{"rounding", "SELECT id, round(total, 1) FROM orders WHERE id = 1", "SELECT id, total FROM orders WHERE id = 1", failure.Rounding, failure.RelDisjoint},
	{"formatting", "SELECT upper(name) FROM customers WHERE id = 1", "SELECT name FROM customers WHERE id = 1", failure.Rounding, failure.RelDisjoint},
	{"which expression", "SELECT max(total) FROM orders", "SELECT min(total) FROM orders", failure.WrongColumns, failure.RelDisjoint},
	{"wrong table", "SELECT id, total FROM archived_orders", "SELECT id, total FROM orders", failure.WrongTable, failure.RelOverlap},
	{"missing rows", "SELECT name FROM customers WHERE city = 'Paris' AND tier = 'gold' AND id < 3", "SELECT name FROM customers WHERE city = 'Paris' AND tier = 'gold' AND id < 9", failure.FilterDiffers, failure.RelSubset},
}

func TestRowsClassesOnSQLite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "shop.sqlite")
	loadFile(t, "sqlite3", "file:"+path, shopFixture)
	eng, err := sqlite.Open(path, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	ctx := context.Background()
	for _, c := range rowCases {
		gold, err := eng.Query(ctx, c.gold, sqlgym.Limits{})
		if err != nil {
			t.Fatalf("%s: gold: %v", c.name, err)
		}
		// Read the candidate as the verifier does: one row past the gold.
		pred, err := eng.Query(ctx, c.pred, sqlgym.Limits{StopAfter: len(gold.Rows) + 1})
		if err != nil {
			t.Fatalf("%s: pred: %v", c.name, err)
		}
		f := failure.Classify(failure.Input{Dialect: sqlgym.DialectSQLite, PredSQL: c.pred, GoldSQL: c.gold,
			Pred: pred, Gold: gold, Outcome: sqlgym.OutcomeWrong})
		if f.Class != c.want || c.rel != "" && f.Rows != c.rel {
			t.Errorf("%s: got %s rows=%s (%s), want %s rows=%s", c.name, f.Class, f.Rows, f.Detail, c.want, c.rel)
		}
		if f.Detail == "" {
			t.Errorf("%s: no detail", c.name)
		}
	}
}

// Rows that differ in no way the structure explains fall back on the row
// relation: a subset is missing_rows, a superset extra_rows, and anything
// else wrong_values. Built by hand: two queries with the same structure
// and different rows need different data, not different SQL.
func TestRelationFallback(t *testing.T) {
	rs := func(vals ...int64) *sqlgym.ResultSet {
		r := &sqlgym.ResultSet{Columns: []string{"v"}}
		for _, v := range vals {
			r.Rows = append(r.Rows, []sqlgym.Value{sqlgym.Int(v)})
		}
		return r
	}
	q := "SELECT v FROM t"
	for _, c := range []struct {
		pred, gold *sqlgym.ResultSet
		want       failure.Class
		rel        failure.Relation
	}{
		{rs(1, 2), rs(1, 2, 3), failure.MissingRows, failure.RelSubset},
		{rs(1, 2, 3, 4), rs(1, 2, 3), failure.ExtraRows, failure.RelSuperset},
		{rs(1, 5), rs(1, 2, 3), failure.WrongValues, failure.RelOverlap},
		{rs(7, 8, 9), rs(1, 2, 3), failure.WrongValues, failure.RelDisjoint},
	} {
		f := failure.Classify(failure.Input{PredSQL: q, GoldSQL: q, Pred: c.pred, Gold: c.gold, Outcome: sqlgym.OutcomeWrong})
		if f.Class != c.want || f.Rows != c.rel {
			t.Errorf("%v vs %v: %s %s, want %s %s", c.pred.Rows, c.gold.Rows, f.Class, f.Rows, c.want, c.rel)
		}
	}
	// A capped candidate (more rows than it holds) is never a subset.
	p := rs(1, 2)
	p.Capped = true
	if f := failure.Classify(failure.Input{PredSQL: q, GoldSQL: q, Pred: p, Gold: rs(1), Outcome: sqlgym.OutcomeWrong}); f.Class != failure.ExtraRows {
		t.Errorf("capped superset: %s %s", f.Class, f.Rows)
	}
	if f := failure.Classify(failure.Input{Outcome: sqlgym.OutcomeNoQuery}); f.Class != failure.NoQuery {
		t.Errorf("no_query: %s", f.Class)
	}
	if f := failure.Classify(failure.Input{Outcome: sqlgym.OutcomeTruncated}); f.Class != failure.Truncated {
		t.Errorf("truncated: %s", f.Class)
	}
}
