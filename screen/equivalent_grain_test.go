package screen

import "testing"

// TestGrainKeyDetermined: a GROUP BY key replaced by another column of a
// table whose NOT NULL primary key stays among the keys changes no group
// (benchdb's bench_03a groups by p.product_id, p.name); replacing the
// primary key itself does, and proves nothing.
func TestGrainKeyDetermined(t *testing.T) {
	eng, s := shopWith(t, boundaryCustomers,
		"INSERT INTO categories VALUES (1, 'Home', NULL)",
		"INSERT INTO products VALUES (1, 1, 'Lamp', 10, 3)",
		"INSERT INTO reviews VALUES (1, 1, 1, 5, NULL, '2024-01-01'), (2, 1, 2, 4, NULL, '2024-01-02'), (3, 1, 3, 4, NULL, '2024-01-02'), (4, 1, 3, 2, NULL, '2024-01-03')",
		"CREATE TABLE tags (code TEXT PRIMARY KEY, name TEXT, label TEXT)",
		"INSERT INTO tags VALUES (NULL, 'a', 'x'), (NULL, 'b', 'x'), ('x', 'c', 'y')",
	)
	gold := "SELECT customers.customer_id, customers.first_name, COUNT(*) FROM customers JOIN reviews ON reviews.customer_id = customers.customer_id GROUP BY customers.customer_id, customers.first_name"
	cases := []proofCase{
		{"a name replaced under a kept primary key", gold, WrongGrain,
			"BY customers.customer_id, customers.first_name", "BY customers.customer_id, customers.city", true, false},
		{"a name replaced by another, the key first", gold, WrongGrain,
			"BY customers.customer_id, customers.first_name", "BY customers.customer_id, customers.last_name", true, false},
		// Customers 1 and 2 are both Ann Lee: grouping by the name
		// alone merges them.
		{"the primary key replaced",
			"SELECT customers.first_name, customers.last_name, COUNT(*) FROM customers JOIN reviews ON reviews.customer_id = customers.customer_id GROUP BY customers.customer_id, customers.last_name",
			WrongGrain, "BY customers.customer_id, customers.last_name", "BY customers.first_name, customers.last_name", false, true},
		// A TEXT PRIMARY KEY in SQLite can hold NULL twice.
		{"a primary key that may be NULL", "SELECT code, COUNT(*) FROM tags GROUP BY code, name",
			WrongGrain, "BY code, name", "BY code, label", false, true},
	}
	for _, c := range cases {
		c.check(t, eng, s)
	}
}

// TestOrderAliasSame: sorting by an output alias is sorting by the
// expression it names (benchdb's bench_07a); another item is not.
func TestOrderAliasSame(t *testing.T) {
	eng, s := shopWith(t, boundaryCustomers)
	gold := "SELECT strftime('%m', signup_date) AS month, country, COUNT(*) AS n FROM customers WHERE country <> 'Norway' GROUP BY month, country ORDER BY month LIMIT 2"
	cases := []proofCase{
		{"the alias's own expression", gold, OrderWrongColumn, "ORDER BY month", "ORDER BY strftime('%m', signup_date)", true, false},
		{"another item", gold, OrderWrongColumn, "ORDER BY month", "ORDER BY country", false, false},
	}
	for _, c := range cases {
		c.check(t, eng, s)
	}
}
