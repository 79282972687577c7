package evaltest

import (
	"fmt"

	"github.com/sqlgym/sqlgym"
)

// ShopTasks are four questions on the built-in shop database whose
// scripted replies (ShopReplies) get 4, 2, 1 and 0 of 4 samples right.
func ShopTasks() []sqlgym.Task {
	return []sqlgym.Task{
		{ID: "t1", DB: "shop", Question: "How many orders are there?", SQL: "SELECT count(*) FROM orders"},
		{ID: "t2", DB: "shop", Question: "How many customers live in each country?", SQL: "SELECT country, count(*) FROM customers GROUP BY country"},
		{ID: "t3", DB: "shop", Question: "What is the largest order total?", SQL: "SELECT max(total_amount) FROM orders"},
		{ID: "t4", DB: "shop", Question: "How many reviews have no text?", SQL: "SELECT count(*) FROM reviews WHERE review_text IS NULL"},
	}
}

// ShopReplies scripts samples 0..3 of each ShopTasks question: right
// answers in a ```sql fence, wrong queries, queries that fail, replies
// without a query and replies cut at the token limit.
func ShopReplies() map[string][]Reply {
	return map[string][]Reply{
		"How many orders are there?": {
			Gold("SELECT count(*) FROM orders"),
			Gold("select COUNT(*) from orders"),
			Gold("SELECT count(order_id) FROM orders"),
			Gold("SELECT count(*) FROM orders;"),
		},
		"How many customers live in each country?": {
			Gold("SELECT country, count(*) FROM customers GROUP BY country"),
			Gold("SELECT country, COUNT(customer_id) FROM customers GROUP BY 1"),
			Gold("SELECT country FROM customers"),
			{Content: "I do not know which table holds countries."},
		},
		"What is the largest order total?": {
			Gold("SELECT max(total_amount) FROM orders"),
			{Content: "<think>The largest total is the maximum of total_amount, so", Finish: "length"},
			Gold("SELECT min(total_amount) FROM orders"),
			Gold("SELECT max(total) FROM orderz"),
		},
		"How many reviews have no text?": {
			Gold("SELECT count(*) FROM reviews"),
			{Content: "Every review has text."},
			{Content: "```sql\nSELECT count(*) FROM reviews WHERE review_text", Finish: "length"},
			Gold("SELECT count(*) FROM reviewz WHERE text IS NULL"),
		},
	}
}

// ManyShopTasks makes n tasks on the shop database, each a variant of one
// ShopTasks question with its own wording, and replies that cycle through
// that question's script, for runs long enough to interrupt.
func ManyShopTasks(n int) ([]sqlgym.Task, map[string][]Reply) {
	base := ShopTasks()
	scripts := ShopReplies()
	var tasks []sqlgym.Task
	replies := map[string][]Reply{}
	for i := range n {
		b := base[i%len(base)]
		t := b
		t.ID = fmt.Sprintf("m%03d", i)
		t.Question = fmt.Sprintf("%s (variant %d)", b.Question, i)
		tasks = append(tasks, t)
		replies[t.Question] = scripts[b.Question]
	}
	return tasks, replies
}
