package screen

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/engine/sqlite"
	"github.com/sqlgym/sqlgym/shopdb"
)

// proofDB builds a real SQLite file from stmts and returns its engine and
// the schema the engine describes, as the variant generator reads it.
func proofDB(t *testing.T, stmts ...string) (*sqlite.Engine, *sqlgym.Schema) {
	t.Helper()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), fmt.Sprintf("db%d.sqlite", len(stmts)))
	if err := sqlite.Create(ctx, path, stmts); err != nil {
		t.Fatal(err)
	}
	eng, err := sqlite.Open(path, sqlite.Options{PoolSize: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	s, err := eng.Describe(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return eng, s
}

// shopWith is the shop's schema (its real DDL) holding only the rows given.
func shopWith(t *testing.T, rows ...string) (*sqlite.Engine, *sqlgym.Schema) {
	return proofDB(t, append(shopdb.Statements()[:shopdb.NumTables:shopdb.NumTables], rows...)...)
}

// realMutant is the mutant of gold made by replacing old with new once,
// after checking the screen really makes it.
func realMutant(t *testing.T, gold string, k Kind, s *sqlgym.Schema, old, new string) Mutant {
	t.Helper()
	want := strings.Replace(gold, old, new, 1)
	for _, m := range MutateSchema(gold, 0, s) {
		if m.Kind == k && m.SQL == want {
			return m
		}
	}
	t.Fatalf("the screen makes no %s mutant %s", k, want)
	return Mutant{}
}

// rowsOf runs sql and returns its rows as sorted text: a multiset.
func rowsOf(t *testing.T, eng *sqlite.Engine, sql string) []string {
	t.Helper()
	rs, err := eng.Query(context.Background(), sql, sqlgym.Limits{})
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	var out []string
	for _, r := range rs.Rows {
		out = append(out, fmt.Sprint(r))
	}
	slices.Sort(out)
	return out
}

type proofCase struct {
	name     string
	gold     string
	kind     Kind
	old, new string // the mutant: gold with old replaced by new
	want     bool
	// separated: when want is false, the data the case's database holds
	// must tell gold and mutant apart (the refusal is no mere caution);
	// when want is true they must agree on it.
	separated bool
}

func (c proofCase) check(t *testing.T, eng *sqlite.Engine, s *sqlgym.Schema) {
	t.Helper()
	m := realMutant(t, c.gold, c.kind, s, c.old, c.new)
	got, why := Equivalent(c.gold, m, s)
	if got != c.want {
		t.Errorf("%s: Equivalent = %v (%s), want %v\n gold   %s\n mutant %s", c.name, got, why, c.want, c.gold, m.SQL)
	}
	if got && why == "" {
		t.Errorf("%s: proved with no reason", c.name)
	}
	g, mu := rowsOf(t, eng, c.gold), rowsOf(t, eng, m.SQL)
	if same := slices.Equal(g, mu); got && !same {
		t.Errorf("%s: proved equivalent, but the data tells them apart: gold %v, mutant %v", c.name, g, mu)
	} else if c.separated && same {
		t.Errorf("%s: the data was meant to tell gold and mutant apart, both gave %v", c.name, g)
	}
}

// Customers on and next to the bounds the cases use, stored every way a
// DATE column lets SQLite store them: 2022-01-01 is a Saturday, 2023-01-01
// a Sunday, 2024-01-01 a Monday.
var boundaryCustomers = `INSERT INTO customers VALUES
 (1, 'Ann', 'Lee', 'a@x', 'Lyon', 'France', '2022-01-01'),
 (2, 'Ann', 'Lee', 'b@x', NULL, 'France', '2022-01-03'),
 (3, 'Bo', 'Kim', 'c@x', 'Oslo', 'Norway', '2023-01-01'),
 (4, 'Cy', 'Ng', 'd@x', 'Lyon', 'France', '2023-01-02'),
 (5, 'Di', 'Oh', 'e@x', 'Rome', 'Italy', '2024-01-01'),
 (6, 'Ed', 'Li', 'f@x', 'Rome', 'Italy', '2022-01-01 00:00:00'),
 (7, 'Fa', 'Wu', 'g@x', 'Rome', 'Italy', 2024),
 (8, 'Gu', 'Xu', 'h@x', 'Rome', 'Italy', '2024')`

func TestBoundFlipEquivalent(t *testing.T) {
	eng, s := shopWith(t, boundaryCustomers,
		"INSERT INTO orders VALUES (1, 1, '2022-01-03', 'paid', 10), (2, 5, '2024-01-02', 'paid', 20)",
		"INSERT INTO shipments VALUES (1, 1, 'UPS', 'T1', '2022-12-30', NULL), (2, 1, 'UPS', 'T2', '2022-12-30', '2023-01-01'), (3, 2, 'UPS', 'T3', '2023-01-01', '2023-01-02')")
	weekday := "SELECT COUNT(*) FROM customers WHERE signup_date >= '2022-01-01' AND signup_date < '2023-01-01' AND strftime('%w', signup_date) IN ('1')"
	cases := []proofCase{
		{"the lower bound is a Saturday, the weekday asked Monday", weekday, FlipComparison, ">=", ">", true, false},
		{"the upper bound is a Sunday", weekday, FlipComparison, "<", "<=", true, false},
		{"the bound is the weekday asked",
			"SELECT COUNT(*) FROM customers WHERE signup_date >= '2024-01-01' AND signup_date < '2025-01-01' AND strftime('%w', signup_date) IN ('1')",
			FlipComparison, ">=", ">", false, true},
		{"a weekday list holding the bound's day",
			"SELECT COUNT(*) FROM customers WHERE signup_date >= '2023-01-01' AND signup_date < '2024-01-01' AND strftime('%w', signup_date) IN ('0', '6')",
			FlipComparison, ">=", ">", false, true},
		// NULL equals no bound: a nullable column changes nothing.
		{"a nullable column",
			"SELECT COUNT(*) FROM shipments WHERE delivered_at >= '2023-01-01' AND delivered_at < '2024-01-01' AND strftime('%w', delivered_at) IN ('1')",
			FlipComparison, ">=", ">", true, false},
		{"the literal on the left",
			"SELECT customer_id FROM customers WHERE '2022-01-01' <= signup_date AND strftime('%w', signup_date) = '1'",
			FlipComparison, "<=", "<", true, false},
		{"a qualified column under an alias",
			"SELECT c.customer_id FROM customers AS c WHERE c.signup_date > '2023-01-01' AND strftime('%w', c.signup_date) = '1'",
			FlipComparison, ">", ">=", true, false},
		{"an OR makes the weekday no longer needed",
			"SELECT customer_id FROM customers WHERE signup_date >= '2022-01-01' AND signup_date < '2023-01-01' OR strftime('%w', signup_date) IN ('1')",
			FlipComparison, ">=", ">", false, true},
		{"the other condition reads another column",
			"SELECT customer_id FROM customers WHERE signup_date >= '2022-01-01' AND signup_date < '2023-01-01' AND city = 'Lyon'",
			FlipComparison, ">=", ">", false, true},
		{"the other condition reads another table's column",
			"SELECT customers.customer_id FROM customers JOIN orders ON orders.customer_id = customers.customer_id WHERE customers.signup_date >= '2022-01-01' AND strftime('%w', orders.order_date) = '1'",
			FlipComparison, ">=", ">", false, true},
		{"the other condition is a subquery",
			"SELECT customer_id FROM customers WHERE signup_date >= '2022-01-01' AND signup_date IN (SELECT signup_date FROM customers WHERE customer_id = 1)",
			FlipComparison, ">=", ">", false, true},
		{"the other condition reads the clock",
			"SELECT customer_id FROM customers WHERE signup_date >= '2022-01-01' AND signup_date > date('now', '-1 day')",
			FlipComparison, ">=", ">", false, false},
		{"the other condition spells the clock",
			"SELECT customer_id FROM customers WHERE signup_date >= '2022-01-01' AND signup_date > date('n' || 'ow', '-1 day')",
			FlipComparison, ">=", ">", false, false},
		{"the other condition reads today",
			"SELECT customer_id FROM customers WHERE signup_date >= '2022-01-01' AND signup_date > date()",
			FlipComparison, ">=", ">", false, false},
		{"no other condition",
			"SELECT customer_id FROM customers WHERE signup_date >= '2022-01-01'",
			FlipComparison, ">=", ">", false, true},
		// DATE is NUMERIC affinity: '2024' compares as the integer 2024,
		// the one value the flip tells apart, and typeof is 'integer' there.
		{"a numeric column against a number-like text: the boundary is an integer",
			"SELECT customer_id FROM customers WHERE signup_date >= '2024' AND typeof(signup_date) = 'text'",
			FlipComparison, ">=", ">", true, false},
		{"a numeric column against a number-like text: a condition true on the integer",
			"SELECT customer_id FROM customers WHERE signup_date >= '2024' AND signup_date = 2024",
			FlipComparison, ">=", ">", false, true},
	}
	for _, c := range cases {
		c.check(t, eng, s)
	}
	pg := *s
	pg.Dialect = sqlgym.DialectPostgres
	m := realMutant(t, weekday, FlipComparison, &pg, ">=", ">")
	if ok, why := Equivalent(weekday, m, &pg); ok {
		t.Errorf("a PostgreSQL schema compares otherwise, yet proved: %s", why)
	}
}

func TestBoundFlipAffinity(t *testing.T) {
	eng, s := proofDB(t,
		"CREATE TABLE codes (id INTEGER PRIMARY KEY, code TEXT NOT NULL)",
		"INSERT INTO codes VALUES (1, '10'), (2, '10.0'), (3, 10), (4, '9'), (5, '100'), (6, ' 10')",
		"CREATE TABLE m (id INTEGER PRIMARY KEY, x)",
		"INSERT INTO m VALUES (1, 5), (2, 5.0), (3, '5'), (4, 6)",
		"CREATE TABLE words (id INTEGER PRIMARY KEY, word TEXT COLLATE NOCASE NOT NULL)",
		"INSERT INTO words VALUES (1, 'b'), (2, 'B'), (3, 'c')",
		"CREATE TABLE r (id INTEGER PRIMARY KEY, v REAL NOT NULL)",
		"INSERT INTO r VALUES (1, 0.0), (2, -0.0), (3, 1.5)",
		"CREATE TABLE loose (id INTEGER PRIMARY KEY, y ANY) STRICT",
		"INSERT INTO loose VALUES (1, 5), (2, 5.0), (3, '5'), (4, 6)",
		"CREATE TABLE padded (id INTEGER PRIMARY KEY, word TEXT COLLATE RTRIM NOT NULL)",
		"INSERT INTO padded VALUES (1, 'b'), (2, 'b '), (3, 'c')",
		"CREATE TABLE plain (id INTEGER PRIMARY KEY, word TEXT NOT NULL)",
		"INSERT INTO plain VALUES (1, 'b'), (2, 'B'), (3, 'b '), (4, 'c')",
		"CREATE TABLE solo (v TEXT NOT NULL)",
		"INSERT INTO solo VALUES ('5'), ('6')",
	)
	cases := []proofCase{
		// A TEXT column turns the number 10 into the text '10' before
		// comparing: the boundary row is the text '10', on which
		// code <> '10' is false. (A literal pasted for the column would
		// compare 10 with '10' as different types and miss it.)
		{"a TEXT column against a number", "SELECT id FROM codes WHERE code >= 10 AND code <> '10'",
			FlipComparison, ">=", ">", true, false},
		// A column with no affinity holds 5 and 5.0 apart.
		{"an untyped column against a number", "SELECT id FROM m WHERE x >= 5 AND typeof(x) <> 'integer'",
			FlipComparison, ">=", ">", false, true},
		// Under NOCASE 'B' equals 'b', and substr compares without the
		// column's collation; under RTRIM 'b ' equals 'b'.
		{"a NOCASE column", "SELECT id FROM words WHERE word >= 'b' AND substr(word, 1, 1) <> 'b'",
			FlipComparison, ">=", ">", false, true},
		{"an RTRIM column", "SELECT id FROM padded WHERE word >= 'b' AND length(word) <> 1",
			FlipComparison, ">=", ">", false, true},
		{"letters under BINARY", "SELECT id FROM plain WHERE word >= 'b' AND substr(word, 1, 1) <> 'b'",
			FlipComparison, ">=", ">", true, false},
		{"a REAL zero", "SELECT id FROM r WHERE v >= 0 AND v <> 0",
			FlipComparison, ">=", ">", false, false},
		{"a REAL zero written as text", "SELECT id FROM r WHERE v >= '0' AND v <> 0",
			FlipComparison, ">=", ">", false, false},
		{"a number against a STRICT table's ANY column", "SELECT id FROM loose WHERE y >= 5 AND typeof(y) <> 'integer'",
			FlipComparison, ">=", ">", false, true},
		// On the one-row table the proof builds, "v NOT IN solo" would be
		// false; on the real one it reads every row.
		{"a condition reading a table by IN", "SELECT v FROM solo WHERE v >= '5' AND v NOT IN solo",
			FlipComparison, ">=", ">", false, false},
		{"a number against a TEXT column, the boundary not refuted", "SELECT id FROM codes WHERE code >= 10 AND code <> '9'",
			FlipComparison, ">=", ">", false, true},
	}
	for _, c := range cases {
		c.check(t, eng, s)
	}
}

func TestGroupKeyDetermined(t *testing.T) {
	eng, s := shopWith(t, boundaryCustomers,
		"INSERT INTO categories VALUES (1, 'Home', NULL)",
		"INSERT INTO products VALUES (1, 1, 'Lamp', 10, 3)",
		"INSERT INTO reviews VALUES (1, 1, 1, 5, NULL, '2024-01-01'), (2, 1, 2, 4, NULL, '2024-01-02'), (3, 1, 3, 4, NULL, '2024-01-02'), (4, 1, 3, 2, NULL, '2024-01-03')",
		"CREATE TABLE tags (code TEXT PRIMARY KEY, name TEXT)",
		"INSERT INTO tags VALUES (NULL, 'a'), (NULL, 'b'), ('x', 'c')",
	)
	gold := "SELECT customers.customer_id, customers.first_name, customers.last_name FROM customers JOIN reviews ON reviews.customer_id = customers.customer_id GROUP BY customers.customer_id, customers.first_name, customers.last_name HAVING COUNT(*) > 0"
	cases := []proofCase{
		{"a name under a kept primary key", gold, MissingGroupBy, "customers.first_name, customers.last_name HAVING", "customers.last_name HAVING", true, false},
		{"the last key under a kept primary key", gold, MissingGroupBy, ", customers.last_name HAVING", " HAVING", true, false},
		// Ann Lee twice: grouping by name merges two customers.
		{"the primary key itself", gold, MissingGroupBy, "customers.customer_id, customers.first_name, customers.last_name HAVING",
			"customers.first_name, customers.last_name HAVING", false, true},
		// A TEXT PRIMARY KEY in SQLite can hold NULL twice.
		{"a primary key that may be NULL", "SELECT code, name, COUNT(*) FROM tags GROUP BY code, name",
			MissingGroupBy, "BY code, name", "BY code", false, true},
		{"a key that is also a select alias",
			"SELECT first_name AS customer_id, COUNT(*) FROM customers GROUP BY customer_id, first_name",
			MissingGroupBy, "customer_id, first_name", "customer_id", false, false},
	}
	for _, c := range cases {
		c.check(t, eng, s)
	}
}

func TestDerivedForeignKeyJoin(t *testing.T) {
	eng, s := shopWith(t,
		"INSERT INTO categories VALUES (1, 'Home', NULL), (2, 'Lamps', 1)",
		"INSERT INTO products VALUES (1, 1, 'Rug', 10, 3), (2, 2, 'Lamp', 20, 0), (3, 2, 'Bulb', 5, 9)",
	)
	cases := []proofCase{
		{"a subquery passing a NOT NULL foreign key through",
			"SELECT categories.name, ranked.name, ranked.price FROM (SELECT category_id, name, price, RANK() OVER (PARTITION BY category_id ORDER BY price ASC) AS rnk FROM products WHERE price IS NOT NULL) AS ranked JOIN categories ON ranked.category_id = categories.category_id WHERE ranked.rnk = 1",
			JoinType, "JOIN categories", "LEFT JOIN categories", true, false},
		{"renamed on the way",
			"SELECT c.name, p.cat FROM (SELECT products.category_id AS cat FROM products) p JOIN categories c ON p.cat = c.category_id",
			JoinType, "JOIN categories", "LEFT JOIN categories", true, false},
		// Home has no parent: the inner join drops it.
		{"a nullable column passed through",
			"SELECT sub.name FROM (SELECT category_id, name, parent_id FROM categories) AS sub JOIN categories ON sub.parent_id = categories.category_id",
			JoinType, "JOIN categories", "LEFT JOIN categories", false, true},
		// The RIGHT JOIN adds a category with no product: its
		// ranked.category_id is NULL when categories is joined again.
		{"a RIGHT JOIN before the join",
			"SELECT c2.name FROM (SELECT category_id FROM products) AS ranked RIGHT JOIN categories AS c1 ON c1.category_id = ranked.category_id AND c1.parent_id IS NULL JOIN categories AS c2 ON ranked.category_id = c2.category_id",
			JoinType, "JOIN categories AS c2", "LEFT JOIN categories AS c2", false, true},
		// On no products the aggregate still returns a row, its
		// category_id NULL.
		{"an aggregate subquery",
			"SELECT sub.top FROM (SELECT category_id, MAX(price) AS top FROM products WHERE stock > 100) AS sub JOIN categories ON sub.category_id = categories.category_id",
			JoinType, "JOIN categories", "LEFT JOIN categories", false, true},
	}
	for _, c := range cases {
		c.check(t, eng, s)
	}
}

// TestHavingConjunctDropsGroupsOfOne: INNER against LEFT JOIN grouped by
// the FROM table's key, with a HAVING whose AND chain holds COUNT(*) >= n
// (n >= 2) beside other conditions (benchdb's bench_03a): a product with
// no review is a group of one row, which that conjunct drops. An OR at the
// top, or a threshold a group of one meets, lets it through.
func TestHavingConjunctDropsGroupsOfOne(t *testing.T) {
	eng, s := shopWith(t, boundaryCustomers,
		"INSERT INTO categories VALUES (1, 'Home', NULL)",
		"INSERT INTO products VALUES (1, 1, 'Lamp', 10, 3), (2, 1, 'Rug', 20, 1), (3, 1, 'Bulb', 5, 9)",
		"INSERT INTO reviews VALUES (1, 1, 1, 5, NULL, '2024-01-01'), (2, 1, 2, 4, NULL, '2024-01-02'), (3, 2, 3, 1, NULL, '2024-01-02')",
	)
	const join = "FROM products AS p JOIN reviews AS r ON r.product_id = p.product_id GROUP BY p.product_id, p.name"
	cases := []proofCase{
		{"COUNT(*) >= 2 AND an average", "SELECT p.product_id, p.name, AVG(r.rating) " + join + " HAVING COUNT(*) >= 2 AND AVG(r.rating) >= 4",
			JoinType, "JOIN reviews", "LEFT JOIN reviews", true, false},
		{"an average AND COUNT(*) > 1", "SELECT p.product_id, AVG(r.rating) " + join + " HAVING AVG(r.rating) >= 1 AND COUNT(*) > 1",
			JoinType, "JOIN reviews", "LEFT JOIN reviews", true, false},
		// The Bulb, with no review, has MAX(rating) NULL, so it passes the
		// OR's IS NULL arm under the LEFT JOIN.
		{"an OR at the top", "SELECT p.product_id " + join + " HAVING COUNT(*) >= 2 OR MAX(r.rating) IS NULL",
			JoinType, "JOIN reviews", "LEFT JOIN reviews", false, true},
		{"COUNT(*) >= 1 AND an average", "SELECT p.product_id " + join + " HAVING COUNT(*) >= 1 AND AVG(IFNULL(r.rating, 5)) >= 4",
			JoinType, "JOIN reviews", "LEFT JOIN reviews", false, true},
	}
	for _, c := range cases {
		c.check(t, eng, s)
	}
}

// TestUnreadItemChanged: a mutant that changes only a select item of a
// subquery no one reads the item of is equivalent (an EXISTS; a derived
// table whose outer query never names the item); one whose item the outer
// query reads, or whose subquery is DISTINCT, is not.
func TestUnreadItemChanged(t *testing.T) {
	eng, s := shopWith(t, boundaryCustomers,
		"INSERT INTO orders VALUES (1, 1, '2024-01-01', 'paid', 10), (2, 1, '2024-01-02', 'paid', 30), (3, 3, '2024-01-03', 'shipped', 30)",
	)
	cases := []proofCase{
		{"an EXISTS subquery's item",
			"SELECT c.first_name FROM customers AS c WHERE EXISTS (SELECT o.order_id FROM orders AS o WHERE o.customer_id = c.customer_id)",
			WrongColumn, "SELECT o.order_id FROM", "SELECT o.customer_id FROM", true, false},
		{"a derived table's item nothing reads",
			"SELECT d.cid FROM (SELECT o.customer_id AS cid, o.order_id AS oid FROM orders AS o WHERE o.status = 'paid') AS d",
			WrongColumn, "o.order_id AS oid", "o.customer_id AS oid", true, false},
		// The outer query reads cid: order 3's customer differs.
		{"a derived table's item the outer query reads",
			"SELECT d.cid FROM (SELECT o.customer_id AS cid, o.order_id AS oid FROM orders AS o) AS d",
			WrongColumn, "o.customer_id AS cid", "o.order_id AS cid", false, true},
		// DISTINCT compares whole rows: two paid orders of customer 1.
		{"a DISTINCT derived table",
			"SELECT COUNT(*) FROM (SELECT DISTINCT o.customer_id AS cid, o.order_id AS oid FROM orders AS o WHERE o.status = 'paid') AS d",
			WrongColumn, "o.order_id AS oid", "o.customer_id AS oid", false, true},
	}
	for _, c := range cases {
		c.check(t, eng, s)
	}
}
