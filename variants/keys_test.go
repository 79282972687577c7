package variants

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/catalog"
	"github.com/sqlgym/sqlgym/engine/sqlite"
)

// keylessToy is toyDB with no constraint declared: the keys, the
// foreign key and the NOT NULLs are what the data and names imply.
func keylessToy(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "toy.sqlite")
	stmts := []string{
		`CREATE TABLE customers (customer_id INTEGER, name VARCHAR(40), city VARCHAR(40), tier INTEGER)`,
		`CREATE TABLE orders (order_id INTEGER, customer_id INTEGER, order_date DATE, amount DECIMAL(10,2), status VARCHAR(12))`,
	}
	for i := 1; i <= 12; i++ {
		city := fmt.Sprintf("'City%d'", i%4)
		if i%5 == 0 {
			city = "NULL"
		}
		stmts = append(stmts, fmt.Sprintf("INSERT INTO customers VALUES (%d, 'Name%d', %s, %d)", i, i, city, 1+i%3))
	}
	for i := 1; i <= 40; i++ {
		status := []string{"paid", "shipped", "cancelled"}[i%3]
		stmts = append(stmts, fmt.Sprintf("INSERT INTO orders VALUES (%d, %d, '2024-%02d-%02d', %d.50, '%s')",
			i, 1+(i*7)%12, 1+i%12, 2+i%25, 10+i*3, status))
	}
	if err := sqlite.Create(context.Background(), path, stmts); err != nil {
		t.Fatal(err)
	}
	return path
}

// violations counts, on one database, the rows that break what the
// keyless toy implies: NULL or repeated keys, orphan orders, NULLs where
// the data had none, a repeated name, a date that is not an ISO date.
var violations = map[string]string{
	"customer key":  `SELECT (SELECT COUNT(*) FROM customers WHERE customer_id IS NULL) + (SELECT COUNT(*) - COUNT(DISTINCT customer_id) FROM customers)`,
	"order key":     `SELECT (SELECT COUNT(*) FROM orders WHERE order_id IS NULL) + (SELECT COUNT(*) - COUNT(DISTINCT order_id) FROM orders)`,
	"orphan order":  `SELECT COUNT(*) FROM orders WHERE customer_id IS NOT NULL AND customer_id NOT IN (SELECT customer_id FROM customers)`,
	"null order":    `SELECT COUNT(*) FROM orders WHERE customer_id IS NULL OR order_date IS NULL OR amount IS NULL OR status IS NULL`,
	"null customer": `SELECT COUNT(*) FROM customers WHERE name IS NULL OR tier IS NULL`,
	"namesake":      `SELECT COUNT(*) - COUNT(DISTINCT name) FROM customers`,
	"not a date":    `SELECT COUNT(*) FROM orders WHERE typeof(order_date) <> 'text' OR date(order_date) IS NOT order_date`,
}

func countViolations(t *testing.T, path string) map[string]int64 {
	t.Helper()
	eng, err := sqlite.Open(path, sqlite.Options{PoolSize: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	out := map[string]int64{}
	for what, q := range violations {
		rs, err := eng.Query(context.Background(), q, sqlgym.Limits{})
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if n := rs.Rows[0][0].Int; n != 0 {
			out[what] = n
		}
	}
	return out
}

// TestVariantsKeepImpliedKeys generates variants of a database that
// declares nothing: every variant keeps the keys and the foreign key its
// data and names imply, puts no NULL or namesake where the data has
// none, and writes dates as dates; the report lists what was inferred.
func TestVariantsKeepImpliedKeys(t *testing.T) {
	path := keylessToy(t)
	if v := countViolations(t, path); len(v) != 0 {
		t.Fatalf("the original already breaks %v", v)
	}
	res, _ := generateTasks(t, path, 1, 3, toyTasks)
	if len(res.Variants) == 0 {
		t.Fatal("no variant kept: nothing checked")
	}
	for _, v := range res.Variants {
		if got := countViolations(t, v.Path); len(got) != 0 {
			t.Errorf("%s breaks %v", v.Name, got)
		}
	}
	if res.Inferred == nil {
		t.Fatal("no inferred constraints reported")
	}
	for _, want := range []string{"customers(customer_id)", "orders(order_id)"} {
		if !slices.Contains(res.Inferred.Keys, want) {
			t.Errorf("inferred keys %v lack %s", res.Inferred.Keys, want)
		}
	}
	if !slices.ContainsFunc(res.Inferred.ForeignKeys, func(s string) bool { return strings.HasPrefix(s, "orders.customer_id -> customers.") }) {
		t.Errorf("inferred foreign keys %v lack orders.customer_id", res.Inferred.ForeignKeys)
	}
}

// keyTasks are golds whose key-dependent rewrites (keyRewrites) mean the
// same on every database that keeps the toy's implied keys.
var keyTasks = []sqlgym.Task{
	{ID: "k_count", DB: "toy", SQL: "SELECT COUNT(*) FROM orders WHERE status = 'paid'"},
	{ID: "k_count_join", DB: "toy", SQL: "SELECT COUNT(*) FROM customers AS T1 JOIN orders AS T2 ON T1.customer_id = T2.customer_id WHERE T2.status = 'shipped'"},
	{ID: "k_skip", DB: "toy", SQL: "SELECT T1.order_id, T2.customer_id FROM orders AS T1 JOIN customers AS T2 ON T1.customer_id = T2.customer_id WHERE T1.amount > 50"},
	{ID: "k_group", DB: "toy", SQL: "SELECT customers.name, COUNT(*) FROM customers JOIN orders ON orders.customer_id = customers.customer_id GROUP BY customers.name"},
}

// TestKeyRewritesStayCorrect is the fast version of
// TestRewritesStayCorrectOnSpiderVariants: variants of the keyless toy,
// made for its tasks and the key tasks, turn no rewrite wrong, the
// key-dependent ones included (a join skipped through a foreign key that
// is never NULL, COUNT of the key, grouping by the key for a unique name).
func TestKeyRewritesStayCorrect(t *testing.T) {
	path := keylessToy(t)
	tasks := append(append([]sqlgym.Task(nil), toyTasks...), keyTasks...)
	res, cat := generateTasks(t, path, 1, 3, tasks)
	if len(res.Variants) == 0 {
		t.Fatal("no variant kept: nothing judged")
	}
	noFalseNegatives(t, cat, res.TasksAfter(), 8, keyedRewrites)
}

// TestKeyRewritesWrite checks the key-dependent rewrites' texts.
func TestKeyRewritesWrite(t *testing.T) {
	path := keylessToy(t)
	cat := toyCatalog(t, path)
	k := keysOf(t, cat, "toy")
	want := map[string]map[string]string{
		"k_count":      {"count_key": `SELECT COUNT(orders."order_id") FROM orders WHERE status = 'paid'`},
		"k_count_join": {"count_key": `SELECT COUNT(T1."customer_id") FROM customers AS T1 JOIN orders AS T2 ON T1.customer_id = T2.customer_id WHERE T2.status = 'shipped'`},
		"k_skip": {"skip_join": `SELECT T1.order_id, T1."customer_id" FROM orders AS T1 WHERE T1.amount > 50`,
			"count_key": ""},
		"k_group": {"group_by_key": `SELECT customers.name, COUNT(*) FROM customers JOIN orders ON orders.customer_id = customers.customer_id GROUP BY customers."customer_id"`,
			"count_key": `SELECT customers.name, COUNT(customers."customer_id") FROM customers JOIN orders ON orders.customer_id = customers.customer_id GROUP BY customers.name`},
	}
	for _, tk := range keyTasks {
		got := keyRewrites(tk.SQL, k.schema, k.cons)
		for kind, w := range want[tk.ID] {
			if got[kind] != w {
				t.Errorf("%s %s:\n got  %q\n want %q", tk.ID, kind, got[kind], w)
			}
		}
	}
}

func toyCatalog(t *testing.T, path string) *catalog.Catalog {
	t.Helper()
	cat, err := catalog.New(catalog.Config{Refs: []string{"toy=sqlite:" + path}, CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cat.Close() })
	return cat
}

// TestPastKeepsTheDateForm: on SQLite a value stepped past a date
// column's extreme is a date text in the column's own form, never the
// integer '2024-05-01' + 1 would give; a number stays a number.
func TestPastKeepsTheDateForm(t *testing.T) {
	path := keylessToy(t)
	cat := toyCatalog(t, path)
	k := keysOf(t, cat, "toy")
	p := &planner{schema: k.schema, cons: k.cons}
	orders := k.schema.Table("orders")
	got, ok := p.past(orders, orders.Column("order_date"), "(SELECT MAX(order_date) FROM orders)", true)
	if want := "strftime('%Y-%m-%d', (SELECT MAX(order_date) FROM orders), '+1 day')"; !ok || got != want {
		t.Errorf("order_date: %q, %v; want %q", got, ok, want)
	}
	got, ok = p.past(orders, orders.Column("amount"), "(SELECT MIN(amount) FROM orders)", false)
	if want := "(SELECT MIN(amount) FROM orders) - 1"; !ok || got != want {
		t.Errorf("amount: %q, %v; want %q", got, ok, want)
	}
	eng, err := sqlite.Open(path, sqlite.Options{PoolSize: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	date, _ := p.past(orders, orders.Column("order_date"), "(SELECT MAX(order_date) FROM orders)", true)
	rs, err := eng.Query(context.Background(), "SELECT "+date+", typeof("+date+")", sqlgym.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if v, typ := rs.Rows[0][0].Str, rs.Rows[0][1].Str; typ != "text" || len(v) != 10 || v <= "2024-12-01" {
		t.Errorf("stepped date %q (%s): want an ISO date text after the maximum", v, typ)
	}
}
