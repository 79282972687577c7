package baseline

import (
	"reflect"
	"testing"
)

func TestAdaptLiterals(t *testing.T) {
	cases := []struct {
		name       string
		oldQ, sql  string
		newQ, want string
		known      []string
	}{
		{name: "capitalised text",
			oldQ: "How many singers are from France?", sql: "SELECT count(*) FROM singer WHERE country = 'France'",
			newQ: "How many singers are from Spain?", want: "SELECT count(*) FROM singer WHERE country = 'Spain'"},
		{name: "number",
			oldQ: "List products cheaper than 20 dollars.", sql: "SELECT name FROM products WHERE price < 20",
			newQ: "List products cheaper than 35.5 dollars.", want: "SELECT name FROM products WHERE price < 35.5"},
		{name: "text, date and number each by kind and in order",
			oldQ: "Orders of Maria Garcia placed after 2023-05-01 with more than 3 items",
			sql:  "SELECT o.id FROM orders o JOIN customers c USING (customer_id) WHERE c.name = 'Maria Garcia' AND o.order_date > '2023-05-01' AND o.items > 3",
			newQ: "Orders of James Smith placed after 2024-01-31 with more than 5 items",
			want: "SELECT o.id FROM orders o JOIN customers c USING (customer_id) WHERE c.name = 'James Smith' AND o.order_date > '2024-01-31' AND o.items > 5"},
		{name: "two text values keep their order",
			oldQ: "Customers from London in Canada", sql: "SELECT id FROM customers WHERE country = 'Canada' AND city = 'London'",
			newQ: "Customers from Paris in France", want: "SELECT id FROM customers WHERE country = 'France' AND city = 'Paris'"},
		{name: "LIKE wildcards kept around a quoted value",
			oldQ: "Which products have 'phone' in their name?", sql: "SELECT name FROM products WHERE name LIKE '%phone%'",
			newQ: "Which products have \"cream\" in their name?", want: "SELECT name FROM products WHERE name LIKE '%cream%'"},
		{name: "lower-case literal stays lower case",
			oldQ: "How many customers live in London?", sql: "SELECT count(*) FROM customers WHERE lower(city) = 'london'",
			newQ: "How many customers live in Paris?", want: "SELECT count(*) FROM customers WHERE lower(city) = 'paris'"},
		{name: "apostrophe is escaped",
			oldQ: "What did Smith order?", sql: "SELECT * FROM orders WHERE last_name = 'Smith'",
			newQ: "What did O'Brien order?", want: "SELECT * FROM orders WHERE last_name = 'O''Brien'"},
		{name: "limit follows a number word",
			oldQ: "Show the top 3 products by price.", sql: "SELECT name FROM products ORDER BY price DESC LIMIT 3",
			newQ: "Show the five most expensive products.", want: "SELECT name FROM products ORDER BY price DESC LIMIT 5"},
		{name: "literal the question does not name is kept",
			oldQ: "What is the most expensive product?", sql: "SELECT name FROM products ORDER BY price DESC LIMIT 1",
			newQ: "What is the most expensive product under 100?", want: "SELECT name FROM products ORDER BY price DESC LIMIT 1"},
		{name: "repeated literal replaced everywhere",
			oldQ: "Flights to or from Boston", sql: "SELECT * FROM flights WHERE src = 'Boston' OR dst = 'Boston'",
			newQ: "Flights to or from Denver", want: "SELECT * FROM flights WHERE src = 'Denver' OR dst = 'Denver'"},
		{name: "quoted number in a string literal, format string untouched",
			oldQ: "How many orders were placed in 2019?", sql: "SELECT count(*) FROM orders WHERE strftime('%Y', order_date) = '2019'",
			newQ: "How many orders were placed in 2021?", want: "SELECT count(*) FROM orders WHERE strftime('%Y', order_date) = '2021'"},
		{name: "no value in the new question: unchanged",
			oldQ: "How many singers are from France?", sql: "SELECT count(*) FROM singer WHERE country = 'France'",
			newQ: "How many singers are there?", want: "SELECT count(*) FROM singer WHERE country = 'France'"},
		{name: "lower-case status unknown: unchanged",
			oldQ: "How many orders are delivered?", sql: "SELECT count(*) FROM orders WHERE status = 'delivered'",
			newQ: "How many orders are cancelled?", want: "SELECT count(*) FROM orders WHERE status = 'delivered'"},
		{name: "lower-case status known to the database",
			oldQ: "How many orders are delivered?", sql: "SELECT count(*) FROM orders WHERE status = 'delivered'",
			newQ: "How many orders are cancelled?", want: "SELECT count(*) FROM orders WHERE status = 'cancelled'",
			known: []string{"delivered", "cancelled"}},
		{name: "known value takes the database's spelling",
			oldQ: "Customers in Lille", sql: "SELECT * FROM customers WHERE city = 'lille'",
			newQ: "Customers in melbourne", want: "SELECT * FROM customers WHERE city = 'MELBOURNE'",
			known: []string{"MELBOURNE", "lille"}},
		{name: "a shared known value keeps its partner out of the way",
			oldQ: "How many shipments were shipped on 2023-12-26?", sql: "SELECT COUNT(*) FROM shipments WHERE shipped_at >= '2023-12-26'",
			newQ: "How many shipments were shipped on 2024-03-28?", want: "SELECT COUNT(*) FROM shipments WHERE shipped_at >= '2024-03-28'",
			known: []string{"shipped"}},
		{name: "a shared value is passed over wherever it stands",
			oldQ: "Orders from Canada paid by card", sql: "SELECT * FROM orders WHERE method = 'card'",
			newQ: "Orders paid by cash from Canada", want: "SELECT * FROM orders WHERE method = 'cash'",
			known: []string{"card", "cash"}},
		{name: "more new values than slots: in order",
			oldQ: "Orders from Canada", sql: "SELECT * FROM orders WHERE country = 'Canada'",
			newQ: "Orders from Peru paid by cash", want: "SELECT * FROM orders WHERE country = 'Peru'",
			known: []string{"card", "cash"}},
		{name: "the end of a named day moves with it",
			oldQ: "How many reviews were written on 2023-05-27?", sql: "SELECT COUNT(*) FROM reviews WHERE created_at >= '2023-05-27' AND created_at < '2023-05-28'",
			newQ: "How many reviews were written on 2024-12-31?", want: "SELECT COUNT(*) FROM reviews WHERE created_at >= '2024-12-31' AND created_at < '2025-01-01'"},
		{name: "dates of a named year move with it",
			oldQ: "How many customers signed up in 2024 on a Monday?", sql: "SELECT COUNT(*) FROM customers WHERE signup_date >= '2024-01-01' AND signup_date < '2025-01-01' AND strftime('%w', signup_date) IN ('1')",
			newQ: "How many customers signed up in 2022 on a Monday?", want: "SELECT COUNT(*) FROM customers WHERE signup_date >= '2022-01-01' AND signup_date < '2023-01-01' AND strftime('%w', signup_date) IN ('1')"},
		{name: "months and timestamps move by the year",
			oldQ: "Payments in 2023 by month", sql: "SELECT * FROM p WHERE m = '2023-05' OR paid_at < '2023-06-01 12:00:00'",
			newQ: "Payments in 2021 by month", want: "SELECT * FROM p WHERE m = '2021-05' OR paid_at < '2021-06-01 12:00:00'"},
		{name: "question word is not a value",
			oldQ: "Which students live in Ohio?", sql: "SELECT * FROM students WHERE state = 'Ohio'",
			newQ: "Which students live in Texas?", want: "SELECT * FROM students WHERE state = 'Texas'"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, _ := adapt(c.sql, c.oldQ, c.newQ, sortedKnown(c.known))
			if got != c.want {
				t.Errorf("adapt:\n got %s\nwant %s", got, c.want)
			}
		})
	}
}

func TestAdaptReportsReplacements(t *testing.T) {
	_, repl := adapt("SELECT * FROM t WHERE a = 'France' AND b > 3", "From France with more than 3", "From Peru with more than 7", nil)
	want := []Replacement{{From: "'France'", To: "'Peru'"}, {From: "3", To: "7"}}
	if !reflect.DeepEqual(repl, want) {
		t.Fatalf("replacements %+v, want %+v", repl, want)
	}
}

func TestQuestionValues(t *testing.T) {
	got := questionValues(`List the orders of "Chef's Knife" by Maria Garcia since 2024-01-01 over 1,250.50 for the top ten, in New York.`, nil)
	want := []struct {
		text string
		kind kind
	}{
		{"Chef's Knife", kindText}, {"Maria Garcia", kindText}, {"2024-01-01", kindText},
		{"1250.50", kindNumber}, {"10", kindNumber}, {"New York", kindText},
	}
	if len(got) != len(want) {
		t.Fatalf("values %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i].text != want[i].text || got[i].kind != want[i].kind {
			t.Errorf("value %d = %q (%v), want %q (%v)", i, got[i].text, got[i].kind, want[i].text, want[i].kind)
		}
	}
	// An apostrophe inside a word opens no quoted phrase.
	for _, v := range questionValues("What is the customer's name and the product's price?", nil) {
		t.Errorf("found value %q in a question that names none", v.text)
	}
}

func TestTablesUsed(t *testing.T) {
	cases := map[string][]string{
		`SELECT a.x FROM albums AS a JOIN "Track" t ON t.id = a.id WHERE a.id IN (SELECT id FROM main.genres)`: {"albums", "Track", "genres"},
		`SELECT * FROM a, b AS bb, c WHERE a.x = b.x`:                                                          {"a", "b", "c"},
		`SELECT count(*) FROM singer`:                                                                          {"singer"},
		`SELECT 1`:                                                                                             nil,
		`SELECT name FROM products LEFT JOIN reviews USING (product_id) ORDER BY name`:                         {"products", "reviews"},
	}
	for sql, want := range cases {
		if got := tablesUsed(sql); !reflect.DeepEqual(got, want) {
			t.Errorf("tablesUsed(%s) = %q, want %q", sql, got, want)
		}
	}
}
