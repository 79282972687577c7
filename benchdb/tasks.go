package benchdb

import (
	"fmt"
	"strings"
)

// Kind says what an answer is to its task.
type Kind string

const (
	KindGold      Kind = "gold"      // the gold itself
	KindRespelled Kind = "respelled" // the gold laid out otherwise and ending in ';', inside a reply
	KindRewrite   Kind = "rewrite"   // a different query with the gold's result
	KindWrong     Kind = "wrong"     // runs, but its result is not the gold's
	KindError     Kind = "error"     // does not run
)

// Answer is one answer a policy might give to a task.
type Answer struct {
	Kind Kind   `json:"kind"`
	SQL  string `json:"sql"`
	// Why says what is wrong with a wrong or broken answer.
	Why string `json:"why,omitempty"`
}

// Task is a BIRD-shaped question on the generated database with its
// answers; Answers[0] is the gold.
type Task struct {
	ID       string   `json:"id"`
	Question string   `json:"question"`
	Gold     string   `json:"gold"`
	Answers  []Answer `json:"answers"`
}

// template is a question with placeholders ({P}, {Y}, ...) and the
// parameter sets it is asked with.
type template struct {
	question string
	gold     string
	rewrites []string
	wrongs   [][2]string // why, sql
	broken   [][2]string // why, sql
	params   []map[string]string
}

// MaxTasks is how many tasks Tasks returns: 16 templates asked with two
// parameter sets each, enough for a 512-answer GRPO batch (32 x 16).
const MaxTasks = 32

// Tasks returns the MaxTasks tasks: first every template with its first
// parameters, then with its second, so that any prefix covers as many
// shapes as it can (the first 8 are 8 different shapes).
func Tasks() []Task {
	var out []Task
	for set := 0; set < 2; set++ {
		for i, t := range templates {
			p := t.params[set]
			fill := func(s string) string {
				args := []string{}
				for k, v := range p {
					args = append(args, "{"+k+"}", v)
				}
				return strings.NewReplacer(args...).Replace(s)
			}
			task := Task{ID: fmt.Sprintf("bench_%02d%c", i+1, 'a'+set), Question: fill(t.question), Gold: fill(t.gold)}
			task.Answers = append(task.Answers, Answer{Kind: KindGold, SQL: task.Gold})
			task.Answers = append(task.Answers, Answer{Kind: KindRespelled, SQL: respell(task.Gold)})
			for _, r := range t.rewrites {
				task.Answers = append(task.Answers, Answer{Kind: KindRewrite, SQL: fill(r)})
			}
			for _, w := range t.wrongs {
				task.Answers = append(task.Answers, Answer{Kind: KindWrong, Why: w[0], SQL: fill(w[1])})
			}
			for _, b := range t.broken {
				task.Answers = append(task.Answers, Answer{Kind: KindError, Why: b[0], SQL: fill(b[1])})
			}
			out = append(out, task)
		}
	}
	return out
}

// respell lays a query out the way models often write one: a clause per
// line, a closing semicolon. Extraction drops the semicolon of a reply's
// SQL and the verifier's key (sqltext.Key) the layout, so to the verifier
// it is the gold.
func respell(q string) string {
	r := strings.NewReplacer(" FROM ", "\nFROM ", " JOIN ", "\n  JOIN ", " WHERE ", "\nWHERE ", " AND ", "\n  AND ",
		" GROUP BY ", "\nGROUP BY ", " HAVING ", "\nHAVING ", " ORDER BY ", "\nORDER BY ", " LIMIT ", "\nLIMIT ")
	return r.Replace(q) + ";"
}

func ps(kv ...string) map[string]string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return m
}

// templates are the task shapes. {Y1} is the year after {Y}, {Y0} the
// year before; {R1} is {R} + 1; {b} is {B} in lower case.
var templates = []template{
	{
		question: "Which five countries had the most delivered orders in {Y}, and how many each?",
		gold:     "SELECT c.country, COUNT(*) AS orders FROM orders AS o JOIN customers AS c ON c.customer_id = o.customer_id WHERE o.status = 'delivered' AND strftime('%Y', o.order_date) = '{Y}' GROUP BY c.country ORDER BY orders DESC, c.country LIMIT 5",
		rewrites: []string{"SELECT T2.country, COUNT(T1.order_id) FROM orders AS T1 INNER JOIN customers AS T2 ON T1.customer_id = T2.customer_id WHERE T1.status = 'delivered' AND T1.order_date LIKE '{Y}-%' GROUP BY T2.country ORDER BY COUNT(T1.order_id) DESC, T2.country LIMIT 5"},
		wrongs: [][2]string{
			{"missing filter: every status", "SELECT c.country, COUNT(*) AS orders FROM orders AS o JOIN customers AS c ON c.customer_id = o.customer_id WHERE strftime('%Y', o.order_date) = '{Y}' GROUP BY c.country ORDER BY orders DESC, c.country LIMIT 5"},
			{"off by one: the year before", "SELECT c.country, COUNT(*) AS orders FROM orders AS o JOIN customers AS c ON c.customer_id = o.customer_id WHERE o.status = 'delivered' AND strftime('%Y', o.order_date) = '{Y0}' GROUP BY c.country ORDER BY orders DESC, c.country LIMIT 5"},
			{"wrong join key", "SELECT c.country, COUNT(*) AS orders FROM orders AS o JOIN customers AS c ON c.customer_id = o.order_id WHERE o.status = 'delivered' AND strftime('%Y', o.order_date) = '{Y}' GROUP BY c.country ORDER BY orders DESC, c.country LIMIT 5"},
		},
		broken: [][2]string{{"no such column", "SELECT c.country, COUNT(*) FROM orders AS o JOIN customers AS c ON c.id = o.customer_id WHERE o.status = 'delivered' AND strftime('%Y', o.order_date) = '{Y}' GROUP BY c.country ORDER BY 2 DESC LIMIT 5"}},
		params: []map[string]string{ps("Y", "2023", "Y0", "2022"), ps("Y", "2024", "Y0", "2023")},
	},
	{
		question: "What percentage of the orders placed through the {P} channel were cancelled?",
		gold:     "SELECT CAST(SUM(CASE WHEN status = 'cancelled' THEN 1 ELSE 0 END) AS REAL) * 100 / COUNT(*) FROM orders WHERE channel = '{P}'",
		rewrites: []string{"SELECT 100.0 * COUNT(CASE WHEN status = 'cancelled' THEN 1 END) / COUNT(order_id) FROM orders WHERE channel = '{P}'"},
		wrongs: [][2]string{
			{"integer division", "SELECT SUM(CASE WHEN status = 'cancelled' THEN 1 ELSE 0 END) * 100 / COUNT(*) FROM orders WHERE channel = '{P}'"},
			{"missing filter: every channel", "SELECT CAST(SUM(CASE WHEN status = 'cancelled' THEN 1 ELSE 0 END) AS REAL) * 100 / COUNT(*) FROM orders"},
			{"wrong literal: the status in capitals", "SELECT CAST(SUM(CASE WHEN status = 'Cancelled' THEN 1 ELSE 0 END) AS REAL) * 100 / COUNT(*) FROM orders WHERE channel = '{P}'"},
		},
		params: []map[string]string{ps("P", "app"), ps("P", "web")},
	},
	{
		question: "Which products in the {P} category have at least 5 reviews and an average rating of 4 or more?",
		gold:     "SELECT p.product_id, p.name, AVG(r.rating) FROM products AS p JOIN reviews AS r ON r.product_id = p.product_id WHERE p.category = '{P}' GROUP BY p.product_id, p.name HAVING COUNT(*) >= 5 AND AVG(r.rating) >= 4",
		rewrites: []string{"SELECT product_id, name, avg_rating FROM (SELECT p.product_id, p.name, AVG(r.rating) AS avg_rating, COUNT(r.review_id) AS n FROM products p INNER JOIN reviews r ON p.product_id = r.product_id WHERE p.category = '{P}' GROUP BY p.product_id) WHERE n >= 5 AND avg_rating >= 4"},
		wrongs: [][2]string{
			{"off by one: more than 5 reviews", "SELECT p.product_id, p.name, AVG(r.rating) FROM products AS p JOIN reviews AS r ON r.product_id = p.product_id WHERE p.category = '{P}' GROUP BY p.product_id, p.name HAVING COUNT(*) > 5 AND AVG(r.rating) >= 4"},
			{"missing filter: every category", "SELECT p.product_id, p.name, AVG(r.rating) FROM products AS p JOIN reviews AS r ON r.product_id = p.product_id GROUP BY p.product_id, p.name HAVING COUNT(*) >= 5 AND AVG(r.rating) >= 4"},
			{"wrong aggregate: the sum of ratings", "SELECT p.product_id, p.name, SUM(r.rating) FROM products AS p JOIN reviews AS r ON r.product_id = p.product_id WHERE p.category = '{P}' GROUP BY p.product_id, p.name HAVING COUNT(*) >= 5 AND AVG(r.rating) >= 4"},
		},
		params: []map[string]string{ps("P", "Electronics"), ps("P", "Home & Kitchen")},
	},
	{
		question: "What was the revenue, after discounts, from {P} products bought by customers in {C} in {Y}, cancelled orders excluded?",
		gold:     "SELECT ROUND(SUM(oi.quantity * oi.unit_price * (1 - IFNULL(oi.discount, 0))), 2) FROM order_items AS oi JOIN orders AS o ON o.order_id = oi.order_id JOIN customers AS c ON c.customer_id = o.customer_id JOIN products AS p ON p.product_id = oi.product_id WHERE p.category = '{P}' AND c.country = '{C}' AND strftime('%Y', o.order_date) = '{Y}' AND o.status <> 'cancelled'",
		rewrites: []string{"SELECT ROUND(SUM(T1.quantity * T1.unit_price * (1 - COALESCE(T1.discount, 0))), 2) FROM order_items T1 WHERE T1.product_id IN (SELECT product_id FROM products WHERE category = '{P}') AND T1.order_id IN (SELECT T2.order_id FROM orders T2 JOIN customers T3 ON T2.customer_id = T3.customer_id WHERE T3.country = '{C}' AND T2.order_date LIKE '{Y}%' AND T2.status != 'cancelled')"},
		wrongs: [][2]string{
			{"NULL discount not treated as none: only discounted items count", "SELECT ROUND(SUM(oi.quantity * oi.unit_price * (1 - oi.discount)), 2) FROM order_items AS oi JOIN orders AS o ON o.order_id = oi.order_id JOIN customers AS c ON c.customer_id = o.customer_id JOIN products AS p ON p.product_id = oi.product_id WHERE p.category = '{P}' AND c.country = '{C}' AND strftime('%Y', o.order_date) = '{Y}' AND o.status <> 'cancelled'"},
			{"wrong join key", "SELECT ROUND(SUM(oi.quantity * oi.unit_price * (1 - IFNULL(oi.discount, 0))), 2) FROM order_items AS oi JOIN orders AS o ON o.order_id = oi.order_id JOIN customers AS c ON c.customer_id = o.order_id JOIN products AS p ON p.product_id = oi.product_id WHERE p.category = '{P}' AND c.country = '{C}' AND strftime('%Y', o.order_date) = '{Y}' AND o.status <> 'cancelled'"},
			{"missing filter: cancelled orders included", "SELECT ROUND(SUM(oi.quantity * oi.unit_price * (1 - IFNULL(oi.discount, 0))), 2) FROM order_items AS oi JOIN orders AS o ON o.order_id = oi.order_id JOIN customers AS c ON c.customer_id = o.customer_id JOIN products AS p ON p.product_id = oi.product_id WHERE p.category = '{P}' AND c.country = '{C}' AND strftime('%Y', o.order_date) = '{Y}'"},
		},
		params: []map[string]string{ps("P", "Books", "C", "Germany", "Y", "2023"), ps("P", "Electronics", "C", "United States", "Y", "2024")},
	},
	{
		question: "Who are the three customers from {C} who spent the most (completed payments), and how much did each spend?",
		gold:     "SELECT c.customer_id, c.first_name, c.last_name, SUM(p.amount) AS spent FROM customers AS c JOIN orders AS o ON o.customer_id = c.customer_id JOIN payments AS p ON p.order_id = o.order_id WHERE p.status = 'completed' AND c.country = '{C}' GROUP BY c.customer_id ORDER BY spent DESC, c.customer_id LIMIT 3",
		rewrites: []string{"WITH spend AS (SELECT o.customer_id, SUM(p.amount) AS total FROM orders o JOIN payments p ON p.order_id = o.order_id WHERE p.status = 'completed' GROUP BY o.customer_id) SELECT c.customer_id, c.first_name, c.last_name, s.total FROM spend s JOIN customers c ON c.customer_id = s.customer_id WHERE c.country = '{C}' ORDER BY s.total DESC, c.customer_id LIMIT 3"},
		wrongs: [][2]string{
			{"missing filter: failed and refunded payments count", "SELECT c.customer_id, c.first_name, c.last_name, SUM(p.amount) AS spent FROM customers AS c JOIN orders AS o ON o.customer_id = c.customer_id JOIN payments AS p ON p.order_id = o.order_id WHERE c.country = '{C}' GROUP BY c.customer_id ORDER BY spent DESC, c.customer_id LIMIT 3"},
			{"wrong aggregate: the largest single payment", "SELECT c.customer_id, c.first_name, c.last_name, MAX(p.amount) AS spent FROM customers AS c JOIN orders AS o ON o.customer_id = c.customer_id JOIN payments AS p ON p.order_id = o.order_id WHERE p.status = 'completed' AND c.country = '{C}' GROUP BY c.customer_id ORDER BY spent DESC, c.customer_id LIMIT 3"},
			{"wrong order: the three who spent the least", "SELECT c.customer_id, c.first_name, c.last_name, SUM(p.amount) AS spent FROM customers AS c JOIN orders AS o ON o.customer_id = c.customer_id JOIN payments AS p ON p.order_id = o.order_id WHERE p.status = 'completed' AND c.country = '{C}' GROUP BY c.customer_id ORDER BY spent, c.customer_id LIMIT 3"},
		},
		params: []map[string]string{ps("C", "Canada"), ps("C", "France")},
	},
	{
		question: "How many customers have an e-mail address at {D}?",
		gold:     "SELECT COUNT(*) FROM customers WHERE email LIKE '%@{D}'",
		rewrites: []string{
			"SELECT COUNT(customer_id) FROM customers WHERE lower(email) LIKE '%@{D}'",
			"SELECT COUNT(*) FROM customers WHERE lower(substr(email, instr(email, '@') + 1)) = '{D}'",
		},
		wrongs: [][2]string{
			{"case-sensitive: misses addresses typed with capitals", "SELECT COUNT(*) FROM customers WHERE substr(email, instr(email, '@') + 1) = '{D}'"},
			{"wrong aggregate: distinct surnames", "SELECT COUNT(DISTINCT last_name) FROM customers WHERE email LIKE '%@{D}'"},
		},
		broken: [][2]string{{"no such table", "SELECT COUNT(*) FROM customer WHERE email LIKE '%@{D}'"}},
		params: []map[string]string{ps("D", "gmail.com"), ps("D", "yahoo.com")},
	},
	{
		question: "How many orders were placed through the web channel in each month of {Y}?",
		gold:     "SELECT strftime('%m', order_date) AS month, COUNT(*) FROM orders WHERE strftime('%Y', order_date) = '{Y}' AND channel = 'web' GROUP BY month ORDER BY month",
		rewrites: []string{"SELECT substr(order_date, 6, 2), COUNT(order_id) FROM orders WHERE order_date >= '{Y}-01-01' AND order_date < '{Y1}-01-01' AND channel = 'web' GROUP BY substr(order_date, 6, 2)"},
		wrongs: [][2]string{
			{"BETWEEN on timestamps: misses 31 December after midnight", "SELECT strftime('%m', order_date) AS month, COUNT(*) FROM orders WHERE order_date BETWEEN '{Y}-01-01' AND '{Y}-12-31' AND channel = 'web' GROUP BY month ORDER BY month"},
			{"missing filter: every channel", "SELECT strftime('%m', order_date) AS month, COUNT(*) FROM orders WHERE strftime('%Y', order_date) = '{Y}' GROUP BY month ORDER BY month"},
			{"the year as a number: strftime returns text, so nothing matches", "SELECT strftime('%m', order_date) AS month, COUNT(*) FROM orders WHERE strftime('%Y', order_date) = {Y} AND channel = 'web' GROUP BY month ORDER BY month"},
		},
		params: []map[string]string{ps("Y", "2022", "Y1", "2023"), ps("Y", "2024", "Y1", "2025")},
	},
	{
		question: "For each segment, how many of the customers who signed up in {Y} gave no city, out of how many?",
		gold:     "SELECT segment, SUM(CASE WHEN city IS NULL THEN 1 ELSE 0 END) AS no_city, COUNT(*) AS customers FROM customers WHERE signup_date LIKE '{Y}-%' GROUP BY segment",
		rewrites: []string{"SELECT segment, COUNT(*) - COUNT(city), COUNT(*) FROM customers WHERE strftime('%Y', signup_date) = '{Y}' GROUP BY segment"},
		wrongs: [][2]string{
			{"wrong aggregate: counts the cities given", "SELECT segment, COUNT(city), COUNT(*) FROM customers WHERE signup_date LIKE '{Y}-%' GROUP BY segment"},
			{"= NULL is never true", "SELECT segment, SUM(CASE WHEN city = NULL THEN 1 ELSE 0 END), COUNT(*) FROM customers WHERE signup_date LIKE '{Y}-%' GROUP BY segment"},
		},
		params: []map[string]string{ps("Y", "2021"), ps("Y", "2023")},
	},
	{
		question: "How many customers from {C} never placed an order?",
		gold:     "SELECT COUNT(*) FROM customers WHERE country = '{C}' AND customer_id NOT IN (SELECT customer_id FROM orders)",
		rewrites: []string{
			"SELECT COUNT(c.customer_id) FROM customers c LEFT JOIN orders o ON o.customer_id = c.customer_id WHERE c.country = '{C}' AND o.order_id IS NULL",
			"SELECT COUNT(*) FROM customers AS c WHERE c.country = '{C}' AND NOT EXISTS (SELECT 1 FROM orders AS o WHERE o.customer_id = c.customer_id)",
		},
		wrongs: [][2]string{
			{"wrong key: compares customer ids with order ids", "SELECT COUNT(*) FROM customers WHERE country = '{C}' AND customer_id NOT IN (SELECT order_id FROM orders)"},
			{"missing filter: every country", "SELECT COUNT(*) FROM customers WHERE customer_id NOT IN (SELECT customer_id FROM orders)"},
		},
		params: []map[string]string{ps("C", "Japan"), ps("C", "Brazil")},
	},
	{
		question: "What is the average rating of the reviews written in {Y} about {B} products?",
		gold:     "SELECT AVG(r.rating) FROM reviews AS r JOIN products AS p ON p.product_id = r.product_id WHERE p.brand = '{B}' AND strftime('%Y', r.created_at) = '{Y}'",
		rewrites: []string{"SELECT CAST(SUM(rating) AS REAL) / COUNT(*) FROM reviews WHERE product_id IN (SELECT product_id FROM products WHERE brand = '{B}') AND created_at LIKE '{Y}%'"},
		wrongs: [][2]string{
			{"wrong join key", "SELECT AVG(r.rating) FROM reviews AS r JOIN products AS p ON p.product_id = r.customer_id WHERE p.brand = '{B}' AND strftime('%Y', r.created_at) = '{Y}'"},
			{"wrong aggregate: the sum", "SELECT SUM(r.rating) FROM reviews AS r JOIN products AS p ON p.product_id = r.product_id WHERE p.brand = '{B}' AND strftime('%Y', r.created_at) = '{Y}'"},
			{"wrong literal: the brand in lower case", "SELECT AVG(r.rating) FROM reviews AS r JOIN products AS p ON p.product_id = r.product_id WHERE p.brand = '{b}' AND strftime('%Y', r.created_at) = '{Y}'"},
		},
		params: []map[string]string{ps("B", "Acme", "b", "acme", "Y", "2023"), ps("B", "Globex", "b", "globex", "Y", "2024")},
	},
	{
		question: "Among the completed payments of {Y}, what fraction was paid by {M}?",
		gold:     "SELECT CAST(SUM(CASE WHEN method = '{M}' THEN 1 ELSE 0 END) AS REAL) / COUNT(*) FROM payments WHERE status = 'completed' AND strftime('%Y', paid_at) = '{Y}'",
		rewrites: []string{"SELECT AVG(method = '{M}') FROM payments WHERE status = 'completed' AND paid_at LIKE '{Y}-%'"},
		wrongs: [][2]string{
			{"integer division", "SELECT SUM(CASE WHEN method = '{M}' THEN 1 ELSE 0 END) / COUNT(*) FROM payments WHERE status = 'completed' AND strftime('%Y', paid_at) = '{Y}'"},
			{"a percentage, not a fraction", "SELECT CAST(SUM(CASE WHEN method = '{M}' THEN 1 ELSE 0 END) AS REAL) * 100 / COUNT(*) FROM payments WHERE status = 'completed' AND strftime('%Y', paid_at) = '{Y}'"},
		},
		params: []map[string]string{ps("M", "paypal", "Y", "2023"), ps("M", "card", "Y", "2022")},
	},
	{
		question: "How many products in the {P} category cost more than the category's average price?",
		gold:     "SELECT COUNT(*) FROM products WHERE category = '{P}' AND price > (SELECT AVG(price) FROM products WHERE category = '{P}')",
		rewrites: []string{"SELECT COUNT(*) FROM products AS p, (SELECT AVG(price) AS a FROM products WHERE category = '{P}') AS t WHERE p.category = '{P}' AND p.price > t.a"},
		wrongs: [][2]string{
			{"missing filter: the average of every product", "SELECT COUNT(*) FROM products WHERE category = '{P}' AND price > (SELECT AVG(price) FROM products)"},
			{"wrong aggregate: the maximum", "SELECT COUNT(*) FROM products WHERE category = '{P}' AND price > (SELECT MAX(price) FROM products WHERE category = '{P}')"},
		},
		params: []map[string]string{ps("P", "Clothing"), ps("P", "Sports")},
	},
	{
		question: "How many different customers bought at least one {B} product in {Y}?",
		gold:     "SELECT COUNT(DISTINCT o.customer_id) FROM orders AS o JOIN order_items AS oi ON oi.order_id = o.order_id JOIN products AS p ON p.product_id = oi.product_id WHERE p.brand = '{B}' AND o.order_date LIKE '{Y}%'",
		rewrites: []string{"SELECT COUNT(*) FROM customers WHERE customer_id IN (SELECT o.customer_id FROM orders o JOIN order_items oi ON o.order_id = oi.order_id WHERE oi.product_id IN (SELECT product_id FROM products WHERE brand = '{B}') AND strftime('%Y', o.order_date) = '{Y}')"},
		wrongs: [][2]string{
			{"counts purchases, not customers", "SELECT COUNT(o.customer_id) FROM orders AS o JOIN order_items AS oi ON oi.order_id = o.order_id JOIN products AS p ON p.product_id = oi.product_id WHERE p.brand = '{B}' AND o.order_date LIKE '{Y}%'"},
			{"wrong join key", "SELECT COUNT(DISTINCT o.customer_id) FROM orders AS o JOIN order_items AS oi ON oi.order_id = o.order_id JOIN products AS p ON p.product_id = oi.order_id WHERE p.brand = '{B}' AND o.order_date LIKE '{Y}%'"},
		},
		broken: [][2]string{{"syntax error", "SELECT COUNT(DISTINCT o.customer_id) FROM orders AS o JOIN order_items AS oi ON oi.order_id = o.order_id JOIN products AS p ON p.product_id = oi.product_id WHERE p.brand = '{B}' AND AND o.order_date LIKE '{Y}%'"}},
		params: []map[string]string{ps("B", "Northwind", "Y", "2022"), ps("B", "Contoso", "Y", "2024")},
	},
	{
		question: "What are the ten best-selling {P} products by units sold, and how many units each?",
		gold:     "SELECT p.product_id, p.name, SUM(oi.quantity) AS units FROM products AS p JOIN order_items AS oi ON oi.product_id = p.product_id WHERE p.category = '{P}' GROUP BY p.product_id ORDER BY units DESC, p.product_id LIMIT 10",
		rewrites: []string{"SELECT oi.product_id, (SELECT name FROM products WHERE product_id = oi.product_id), SUM(oi.quantity) FROM order_items oi WHERE oi.product_id IN (SELECT product_id FROM products WHERE category = '{P}') GROUP BY oi.product_id ORDER BY SUM(oi.quantity) DESC, oi.product_id LIMIT 10"},
		wrongs: [][2]string{
			{"off by one: eleven products", "SELECT p.product_id, p.name, SUM(oi.quantity) AS units FROM products AS p JOIN order_items AS oi ON oi.product_id = p.product_id WHERE p.category = '{P}' GROUP BY p.product_id ORDER BY units DESC, p.product_id LIMIT 11"},
			{"wrong aggregate: order lines, not units", "SELECT p.product_id, p.name, COUNT(oi.quantity) AS units FROM products AS p JOIN order_items AS oi ON oi.product_id = p.product_id WHERE p.category = '{P}' GROUP BY p.product_id ORDER BY units DESC, p.product_id LIMIT 10"},
		},
		params: []map[string]string{ps("P", "Toys"), ps("P", "Beauty")},
	},
	{
		question: "For each known channel, what share of the orders placed in {Y} were returned?",
		gold:     "SELECT channel, CAST(SUM(CASE WHEN status = 'returned' THEN 1 ELSE 0 END) AS REAL) / COUNT(*) AS return_rate FROM orders WHERE channel IS NOT NULL AND strftime('%Y', order_date) = '{Y}' GROUP BY channel",
		rewrites: []string{"SELECT channel, AVG(CASE status WHEN 'returned' THEN 1.0 ELSE 0 END) FROM orders WHERE channel IN ('web', 'app', 'store') AND order_date LIKE '{Y}%' GROUP BY channel"},
		wrongs: [][2]string{
			{"missing filter: a row for the unknown channel", "SELECT channel, CAST(SUM(CASE WHEN status = 'returned' THEN 1 ELSE 0 END) AS REAL) / COUNT(*) AS return_rate FROM orders WHERE strftime('%Y', order_date) = '{Y}' GROUP BY channel"},
			{"wrong literal: refunded is a payment status", "SELECT channel, CAST(SUM(CASE WHEN status = 'refunded' THEN 1 ELSE 0 END) AS REAL) / COUNT(*) AS return_rate FROM orders WHERE channel IS NOT NULL AND strftime('%Y', order_date) = '{Y}' GROUP BY channel"},
		},
		params: []map[string]string{ps("Y", "2023"), ps("Y", "2022")},
	},
	{
		question: "How many {R}-star reviews have no text?",
		gold:     "SELECT COUNT(*) FROM reviews WHERE rating = {R} AND review_text IS NULL",
		rewrites: []string{"SELECT COUNT(*) - COUNT(review_text) FROM reviews WHERE rating = {R}"},
		wrongs: [][2]string{
			{"the empty string is not NULL", "SELECT COUNT(*) FROM reviews WHERE rating = {R} AND review_text = ''"},
			{"off by one: the next rating", "SELECT COUNT(*) FROM reviews WHERE rating = {R1} AND review_text IS NULL"},
		},
		params: []map[string]string{ps("R", "1", "R1", "2"), ps("R", "5", "R1", "6")},
	},
}
