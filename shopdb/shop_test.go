package shopdb_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	_ "github.com/mattn/go-sqlite3" // database/sql driver "sqlite3", for loading and reading the test files

	"github.com/sqlgym/sqlgym/shopdb"
	"github.com/sqlgym/sqlgym/shopdb/internal/gen"
)

var wantTables = []string{"customers", "categories", "products", "orders", "order_items", "payments", "shipments", "reviews"}

// TestGeneratedFileIsCurrent keeps the committed shop.sql from drifting
// away from its generator: run `go generate ./shopdb` after changing it.
func TestGeneratedFileIsCurrent(t *testing.T) {
	got := gen.SQL()
	if !bytes.Equal(got, []byte(shopdb.SQL())) {
		t.Fatal("shop.sql differs from what shopdb/internal/gen produces: run go generate ./shopdb")
	}
	if again := gen.SQL(); !bytes.Equal(got, again) {
		t.Fatal("two runs of the generator gave different bytes")
	}
	sum := sha256.Sum256(got)
	if shopdb.Digest() != hex.EncodeToString(sum[:]) {
		t.Fatalf("Digest() = %s, want the SHA-256 of shop.sql", shopdb.Digest())
	}
}

func TestSchemaAndStatements(t *testing.T) {
	schema := shopdb.Schema()
	if n := strings.Count(schema, "CREATE TABLE "); n != shopdb.NumTables {
		t.Errorf("Schema() has %d CREATE TABLE, want %d", n, shopdb.NumTables)
	}
	if strings.Contains(schema, "INSERT") || !strings.HasPrefix(schema, "CREATE TABLE customers") {
		t.Errorf("Schema() is not just the DDL:\n%.200s", schema)
	}
	st := shopdb.Statements()
	for i, s := range st {
		want := "INSERT INTO "
		if i < shopdb.NumTables {
			want = "CREATE TABLE " + wantTables[i] + " ("
		}
		if !strings.HasPrefix(s, want) {
			t.Errorf("statement %d starts %.40q, want %q", i, s, want)
		}
		if strings.HasSuffix(s, ";") {
			t.Errorf("statement %d keeps its semicolon", i)
		}
	}
	// Inserts follow table creation order: no row before its referent.
	last := 0
	for _, s := range st[shopdb.NumTables:] {
		table := strings.Fields(s)[2]
		i := slices.Index(wantTables, table)
		if i < last {
			t.Errorf("insert into %s after inserts into %s", table, wantTables[last])
		}
		last = i
	}
	st[0] = "mutated"
	if shopdb.Statements()[0] == "mutated" {
		t.Error("Statements() shares its slice with callers")
	}
}

func TestTables(t *testing.T) {
	ts := shopdb.Tables()
	var names []string
	refs := 0
	for _, tb := range ts {
		names = append(names, tb.Name)
		if tb.PrimaryKey != tb.Columns[0].Name || tb.Columns[0].Type != "INTEGER" {
			t.Errorf("%s: primary key %q, want its first, INTEGER column", tb.Name, tb.PrimaryKey)
		}
		for _, c := range tb.Columns {
			if c.References != "" {
				refs++
			}
		}
	}
	if !slices.Equal(names, wantTables) {
		t.Fatalf("Tables() = %v, want %v", names, wantTables)
	}
	if refs != 9 {
		t.Errorf("%d foreign keys, want 9", refs)
	}
	orders := ts[3]
	want := shopdb.Column{Name: "customer_id", Type: "INTEGER", NotNull: true, References: "customers(customer_id)"}
	if orders.Columns[1] != want {
		t.Errorf("orders.customer_id = %+v, want %+v", orders.Columns[1], want)
	}
	if c := ts[6].Columns[5]; c.Name != "delivered_at" || c.Type != "TIMESTAMP" || c.NotNull {
		t.Errorf("shipments.delivered_at = %+v", c)
	}
}

// openSQLite loads the shop into a fresh SQLite file with foreign keys
// enforced while loading, and reports how long loading took.
func openSQLite(t *testing.T) (*sql.DB, time.Duration) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "shop.sqlite")
	db, err := sql.Open("sqlite3", "file:"+path+"?_foreign_keys=1")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	ctx := context.Background()
	start := time.Now()
	if err := shopdb.Load(ctx, db); err != nil {
		t.Fatal(err)
	}
	return db, time.Since(start)
}

func TestSQLite(t *testing.T) {
	db, took := openSQLite(t)
	t.Logf("loaded into SQLite in %v", took)
	ctx := context.Background()

	if got := queryInt(t, db, "PRAGMA foreign_keys"); got != 1 {
		t.Fatalf("foreign keys were not enforced while loading (PRAGMA foreign_keys = %d)", got)
	}
	rows, err := db.QueryContext(ctx, "PRAGMA foreign_key_check")
	if err != nil {
		t.Fatal(err)
	}
	if rows.Next() {
		t.Error("PRAGMA foreign_key_check reports dangling references")
	}
	rows.Close()

	var got []string
	for _, r := range queryRows(t, db, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY rowid") {
		got = append(got, r[0])
	}
	if !slices.Equal(got, wantTables) {
		t.Fatalf("tables %v, want %v", got, wantTables)
	}
	checkFacts(t, db)
	checkHard(t, db)
	checkLifecycle(t, db)
}

func queryInt(t *testing.T, db *sql.DB, q string) int {
	t.Helper()
	var n int
	if err := db.QueryRowContext(context.Background(), q).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

// queryRows returns every row as text (NULL as "NULL").
func queryRows(t *testing.T, db *sql.DB, q string) [][]string {
	t.Helper()
	rows, err := db.QueryContext(context.Background(), q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var out [][]string
	for rows.Next() {
		vals := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		row := make([]string, len(cols))
		for i, v := range vals {
			row[i] = "NULL"
			if v.Valid {
				row[i] = v.String
			}
		}
		out = append(out, row)
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return out
}

// checkFacts: the promised sizes.
func checkFacts(t *testing.T, db *sql.DB) {
	t.Helper()
	sizes := map[string][2]int{
		"customers": {shopdb.Customers, shopdb.Customers}, "categories": {8, 12}, "products": {60, 80},
		"orders": {shopdb.Orders, shopdb.Orders}, "order_items": {700, 900}, "payments": {270, 330},
		"shipments": {220, 290}, "reviews": {150, 250},
	}
	for _, name := range wantTables {
		n := queryInt(t, db, "SELECT COUNT(*) FROM "+name)
		if r := sizes[name]; n < r[0] || n > r[1] {
			t.Errorf("%s has %d rows, want %d..%d", name, n, r[0], r[1])
		}
	}
	// docs/shop.md and doc.go state each table's exact size; keep them true.
	doc, err := os.ReadFile("../docs/shop.md")
	if err != nil {
		t.Fatal(err)
	}
	pkgDoc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	prose := strings.Join(strings.Fields(strings.ReplaceAll(string(pkgDoc), "//", "")), " ")
	for _, name := range wantTables {
		n := queryInt(t, db, "SELECT COUNT(*) FROM "+name)
		if row := fmt.Sprintf("| `%s` | %d |", name, n); !strings.Contains(string(doc), row) {
			t.Errorf("docs/shop.md lacks the row %q", row)
		}
		if !strings.Contains(prose, fmt.Sprintf("%s (%d", name, n)) && !strings.Contains(prose, fmt.Sprintf("%s (exactly %d", name, n)) {
			t.Errorf("doc.go does not give %s's size as %d", name, n)
		}
	}
	if n := queryInt(t, db, "SELECT COUNT(*) FROM categories WHERE parent_id IS NOT NULL"); n == 0 {
		t.Error("no category has a parent")
	}
	if n := queryInt(t, db, "SELECT COUNT(DISTINCT lower(email)) FROM customers"); n != shopdb.Customers {
		t.Errorf("%d distinct e-mails (case-folded) for %d customers", n, shopdb.Customers)
	}
}

// checkHard: each feature doc.go promises exists in the data.
func checkHard(t *testing.T, db *sql.DB) {
	t.Helper()
	atLeast := func(what string, min int, q string) {
		t.Helper()
		if n := queryInt(t, db, q); n < min {
			t.Errorf("%s: %d, want at least %d\n%s", what, n, min, q)
		}
	}
	atLeast("shipments in transit (NULL delivered_at)", 1, "SELECT COUNT(*) FROM shipments WHERE delivered_at IS NULL")
	atLeast("reviews without text (NULL)", 10, "SELECT COUNT(*) FROM reviews WHERE review_text IS NULL")
	atLeast("reviews with empty text ('')", 1, "SELECT COUNT(*) FROM reviews WHERE review_text = ''")
	atLeast("customers without a city", 1, "SELECT COUNT(*) FROM customers WHERE city IS NULL")
	atLeast("refunded_at NULLs", 100, "SELECT COUNT(*) FROM payments WHERE refunded_at IS NULL")
	atLeast("customers who never ordered", 1,
		"SELECT COUNT(*) FROM customers c WHERE NOT EXISTS (SELECT 1 FROM orders o WHERE o.customer_id = c.customer_id)")
	atLeast("orders with more than one payment", 1,
		"SELECT COUNT(*) FROM (SELECT order_id FROM payments GROUP BY order_id HAVING COUNT(*) > 1)")
	atLeast("full names shared by different customers", 2,
		"SELECT COUNT(*) FROM (SELECT first_name, last_name FROM customers GROUP BY 1, 2 HAVING COUNT(DISTINCT customer_id) > 1)")
	atLeast("two different Maria Garcia", 2,
		"SELECT COUNT(DISTINCT country) FROM customers WHERE first_name = 'Maria' AND last_name = 'Garcia'")
	atLeast("a city name in two countries", 1,
		"SELECT COUNT(*) FROM (SELECT city FROM customers GROUP BY city HAVING COUNT(DISTINCT country) > 1)")
	atLeast("products sharing a price", 3,
		"SELECT COUNT(*) FROM (SELECT price FROM products GROUP BY price HAVING COUNT(*) > 1)")
	atLeast("orders sharing a total", 3,
		"SELECT COUNT(*) FROM (SELECT total_amount FROM orders GROUP BY total_amount HAVING COUNT(*) > 1)")
	atLeast("order dates shared by several orders", 10,
		"SELECT COUNT(*) FROM (SELECT order_date FROM orders GROUP BY order_date HAVING COUNT(*) > 1)")
	atLeast("mixed-case e-mails", 1, "SELECT COUNT(*) FROM customers WHERE email <> lower(email)")
	atLeast("lower-case cities", 1, "SELECT COUNT(*) FROM customers WHERE city = lower(city)")
	atLeast("upper-case cities", 1, "SELECT COUNT(*) FROM customers WHERE city = upper(city)")
	atLeast("product names starting in lower case", 2,
		"SELECT COUNT(*) FROM products WHERE substr(name, 1, 1) <> upper(substr(name, 1, 1))")
	atLeast("names with non-ASCII letters", 1, "SELECT COUNT(*) FROM customers WHERE last_name = 'Müller'")
	atLeast("text with an apostrophe", 2,
		"SELECT (SELECT COUNT(*) FROM customers WHERE last_name LIKE '%''%') + (SELECT COUNT(*) FROM products WHERE name LIKE '%''%')")
	atLeast("whole-number prices (SQLite reads them back as integers)", 1,
		"SELECT COUNT(*) FROM products WHERE typeof(price) = 'integer'")
	// quantity * unit_price * (1 - discount) landing exactly on half a cent,
	// computed in integers so SQLite's floats cannot blur it.
	atLeast("item amounts on a half cent", 1, `SELECT COUNT(*) FROM order_items
		WHERE quantity * CAST(round(unit_price * 100) AS INTEGER) * (100 - CAST(round(discount * 100) AS INTEGER)) % 100 = 50`)
	atLeast("item amounts with more than two decimals", 50, `SELECT COUNT(*) FROM order_items
		WHERE quantity * CAST(round(unit_price * 100) AS INTEGER) * (100 - CAST(round(discount * 100) AS INTEGER)) % 100 <> 0`)
	atLeast("items sold at an older price", 10,
		"SELECT COUNT(*) FROM order_items i JOIN products p ON p.product_id = i.product_id WHERE i.unit_price <> p.price")
	atLeast("sold-out products", 1, "SELECT COUNT(*) FROM products WHERE stock = 0")

	span := queryRows(t, db, "SELECT MIN(order_date), MAX(order_date), julianday(MAX(order_date)) - julianday(MIN(order_date)) FROM orders")[0]
	if !strings.HasPrefix(span[0], "2023-01") || !strings.HasPrefix(span[1], "2024-12") || span[2] < "700" {
		t.Errorf("orders span %s..%s (%s days), want about 2023-01-01..2024-12-31", span[0], span[1], span[2])
	}
	if n := queryInt(t, db, "SELECT COUNT(*) FROM orders o JOIN customers c ON c.customer_id = o.customer_id WHERE o.order_date < c.signup_date"); n != 0 {
		t.Errorf("%d orders placed before the customer signed up", n)
	}
}

// checkLifecycle: statuses agree with payments and shipments, amounts with
// items, and times with one another.
func checkLifecycle(t *testing.T, db *sql.DB) {
	t.Helper()
	rows := queryRows(t, db, `SELECT o.order_id, o.status,
		(SELECT COUNT(*) FROM shipments s WHERE s.order_id = o.order_id),
		(SELECT COUNT(*) FROM shipments s WHERE s.order_id = o.order_id AND s.delivered_at IS NOT NULL),
		(SELECT COUNT(*) FROM payments p WHERE p.order_id = o.order_id AND p.status = 'completed'),
		(SELECT COUNT(*) FROM payments p WHERE p.order_id = o.order_id AND p.status = 'refunded')
		FROM orders o ORDER BY o.order_id`)
	// shipments, delivered shipments, completed payments, refunded payments
	rules := map[string]func(s, d, c, r string) bool{
		"pending":   func(s, d, c, r string) bool { return s == "0" && c == "0" && r == "0" },
		"cancelled": func(s, d, c, r string) bool { return s == "0" && c == "0" && r == "0" },
		"paid":      func(s, d, c, r string) bool { return s == "0" && c == "1" && r == "0" },
		"shipped":   func(s, d, c, r string) bool { return s == "1" && d == "0" && c == "1" && r == "0" },
		"delivered": func(s, d, c, r string) bool { return s == "1" && d == "1" && c == "1" && r == "0" },
		"refunded":  func(s, d, c, r string) bool { return c == "0" && r == "1" && s == d },
	}
	seen := map[string]int{}
	for _, r := range rows {
		rule, ok := rules[r[1]]
		if !ok {
			t.Errorf("order %s: unknown status %q", r[0], r[1])
			continue
		}
		seen[r[1]]++
		if !rule(r[2], r[3], r[4], r[5]) {
			t.Errorf("order %s is %s with %s shipment(s), %s delivered, %s completed and %s refunded payment(s)",
				r[0], r[1], r[2], r[3], r[4], r[5])
		}
	}
	for status := range rules {
		if seen[status] == 0 {
			t.Errorf("no order is %s", status)
		}
	}
	if n := queryInt(t, db, "SELECT COUNT(*) FROM orders o WHERE EXISTS (SELECT 1 FROM shipments s WHERE s.order_id = o.order_id AND s.delivered_at IS NOT NULL) AND o.status = 'refunded'"); n == 0 {
		t.Error("no order was returned after delivery")
	}

	zero := func(what, q string) {
		t.Helper()
		if n := queryInt(t, db, q); n != 0 {
			t.Errorf("%s: %d rows\n%s", what, n, q)
		}
	}
	zero("total_amount is not the exact item sum rounded half up", `SELECT COUNT(*) FROM orders o
		WHERE CAST(round(o.total_amount * 100) AS INTEGER) <> (SELECT (SUM(i.quantity * CAST(round(i.unit_price * 100) AS INTEGER)
			* (100 - CAST(round(i.discount * 100) AS INTEGER))) + 50) / 100 FROM order_items i WHERE i.order_id = o.order_id)`)
	zero("orders without items", "SELECT COUNT(*) FROM orders o WHERE NOT EXISTS (SELECT 1 FROM order_items i WHERE i.order_id = o.order_id)")
	zero("payments whose amount is not the order total",
		"SELECT COUNT(*) FROM payments p JOIN orders o ON o.order_id = p.order_id WHERE p.amount <> o.total_amount")
	zero("refunded_at set iff the payment was refunded",
		"SELECT COUNT(*) FROM payments WHERE (refunded_at IS NULL) = (status = 'refunded')")
	zero("refunds before the payment", "SELECT COUNT(*) FROM payments WHERE refunded_at <= created_at")
	zero("payments before the order day",
		"SELECT COUNT(*) FROM payments p JOIN orders o ON o.order_id = p.order_id WHERE date(p.created_at) < o.order_date")
	zero("shipped before paid", `SELECT COUNT(*) FROM shipments s JOIN payments p ON p.order_id = s.order_id
		WHERE p.status <> 'failed' AND s.shipped_at <= p.created_at`)
	zero("delivered before shipped", "SELECT COUNT(*) FROM shipments WHERE delivered_at <= shipped_at")
	zero("events at or after the snapshot", `SELECT (SELECT COUNT(*) FROM payments WHERE created_at >= '2025-01-01' OR refunded_at >= '2025-01-01')
		+ (SELECT COUNT(*) FROM shipments WHERE shipped_at >= '2025-01-01' OR delivered_at >= '2025-01-01')
		+ (SELECT COUNT(*) FROM reviews WHERE created_at >= '2025-01-01')`)
	zero("ratings outside 1..5", "SELECT COUNT(*) FROM reviews WHERE rating NOT BETWEEN 1 AND 5")
	zero("two reviews of one product by one customer",
		"SELECT COUNT(*) FROM (SELECT customer_id, product_id FROM reviews GROUP BY 1, 2 HAVING COUNT(*) > 1)")
	zero("reviews of products the customer never received", `SELECT COUNT(*) FROM reviews r WHERE NOT EXISTS (
		SELECT 1 FROM orders o JOIN order_items i ON i.order_id = o.order_id JOIN shipments s ON s.order_id = o.order_id
		WHERE o.customer_id = r.customer_id AND i.product_id = r.product_id AND s.delivered_at < r.created_at)`)
	zero("unknown payment methods or statuses", `SELECT COUNT(*) FROM payments
		WHERE method NOT IN ('card', 'paypal', 'bank_transfer', 'gift_card') OR status NOT IN ('completed', 'failed', 'refunded')`)
	zero("discounts outside 0..0.5", "SELECT COUNT(*) FROM order_items WHERE discount < 0 OR discount > 0.5 OR quantity < 1")
}
