package author

import (
	"strings"
	"unicode"
)

// Lexicon turns a schema's names into words. Anything it does not name
// falls back to splitting the identifier (snake_case, camelCase) and naive
// English plurals, so synth can word questions about any database.
type Lexicon struct {
	// Nouns maps a table to its singular and plural noun.
	Nouns map[string][2]string
	// Columns maps "table.column" (or a bare "column") to words.
	Columns map[string]string
	// Labels maps a table to the columns that name one of its rows in a
	// list ("first_name last_name"), and their words.
	Labels map[string]Label
	// Eq maps "table.column" to a phrase that follows the table's plural
	// noun and selects rows by a value: "from %s" makes "customers from
	// France". The value is substituted as written in the data; %q puts it
	// in single quotes.
	Eq map[string]string
	// Events maps "table.column" of a date column to what happened then,
	// as it follows the plural noun ("placed": orders placed in 2024) and
	// as the verb of a question ("were placed": how many orders were
	// placed in 2024).
	Events map[string][2]string
	// Links maps "child.fk_column" to how the rows of the two tables
	// relate: see Link.
	Links map[string]Link
	// NoSum lists "table.column"s whose sum means nothing (rates,
	// ratings, unit prices); columns named like a rate, ratio, percentage,
	// score, rating, age or year are never summed either.
	NoSum map[string]bool
}

// Link words a foreign key.
type Link struct {
	ToParent string // follows the child's plural: orders "placed by" customers
	ToChild  string // follows the parent's plural: customers "placed" orders
	ToChild1 string // the same after a singular: a customer "placed" orders
}

// Label is the column(s) a table's rows are named by in answers.
type Label struct {
	Columns []string
	Words   string // singular: "first and last name"
}

// ShopLexicon words the built-in shop database.
func ShopLexicon() *Lexicon {
	return &Lexicon{
		Nouns: map[string][2]string{
			"customers": {"customer", "customers"}, "categories": {"category", "categories"},
			"products": {"product", "products"}, "orders": {"order", "orders"},
			"order_items": {"order item", "order items"}, "payments": {"payment", "payments"},
			"shipments": {"shipment", "shipments"}, "reviews": {"review", "reviews"},
		},
		Columns: map[string]string{
			"customers.customer_id": "customer id", "customers.email": "e-mail address",
			"customers.signup_date": "sign-up date", "categories.name": "category name",
			"categories.parent_id": "parent category", "products.name": "product name",
			"products.price": "price", "products.stock": "stock level", "orders.order_date": "order date",
			"orders.total_amount": "total amount", "order_items.unit_price": "unit price",
			"payments.created_at": "payment time", "payments.method": "payment method",
			"payments.status": "payment status", "payments.refunded_at": "refund time",
			"shipments.shipped_at": "shipping time", "shipments.delivered_at": "delivery time",
			"shipments.tracking_number": "tracking number", "reviews.review_text": "review text",
			"reviews.created_at": "review time", "orders.status": "order status",
		},
		Labels: map[string]Label{
			"customers":   {[]string{"first_name", "last_name"}, "first and last name"},
			"categories":  {[]string{"name"}, "name"},
			"products":    {[]string{"name"}, "name"},
			"orders":      {[]string{"order_id"}, "order id"},
			"order_items": {[]string{"order_item_id"}, "order item id"},
			"payments":    {[]string{"payment_id"}, "payment id"},
			"shipments":   {[]string{"tracking_number"}, "tracking number"},
			"reviews":     {[]string{"review_id"}, "review id"},
		},
		Eq: map[string]string{
			"customers.country":         "from %S",
			"customers.city":            "whose city is %q",
			"categories.name":           "named %q",
			"products.name":             "named %q",
			"orders.status":             "with status %q",
			"payments.method":           "made with %q",
			"payments.status":           "with status %q",
			"shipments.carrier":         "shipped with %s",
			"reviews.rating":            "with a rating of %s stars",
			"order_items.quantity":      "with a quantity of %s",
			"customers.email":           "with e-mail address %q",
			"shipments.tracking_number": "with tracking number %q",
		},
		Events: map[string][2]string{
			"customers.signup_date": {"who signed up", "signed up"}, "orders.order_date": {"placed", "were placed"},
			"payments.created_at": {"made", "were made"}, "payments.refunded_at": {"refunded", "were refunded"},
			"shipments.shipped_at": {"shipped", "were shipped"}, "shipments.delivered_at": {"delivered", "were delivered"},
			"reviews.created_at": {"written", "were written"},
		},
		Links: map[string]Link{
			"orders.customer_id":     {"placed by", "placed", "placed"},
			"products.category_id":   {"in", "contain", "contains"},
			"order_items.order_id":   {"belonging to", "contain", "contains"},
			"order_items.product_id": {"for", "appear in", "appears in"},
			"payments.order_id":      {"for", "have", "has"},
			"shipments.order_id":     {"for", "have", "has"},
			"reviews.product_id":     {"of", "received", "received"},
			"reviews.customer_id":    {"written by", "wrote", "wrote"},
		},
		NoSum: map[string]bool{"order_items.discount": true, "reviews.rating": true, "order_items.unit_price": true,
			"products.price": true, "products.stock": true},
	}
}

// words splits an identifier into lower-case words: order_date -> "order
// date", songReleaseYear -> "song release year", HTTPCode -> "http code".
func words(ident string) string {
	var out []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			out = append(out, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	rs := []rune(ident)
	for i, r := range rs {
		switch {
		case r == '_' || r == '-' || r == ' ' || r == '.':
			flush()
		case unicode.IsUpper(r) && len(cur) > 0 &&
			(unicode.IsLower(cur[len(cur)-1]) || i+1 < len(rs) && unicode.IsLower(rs[i+1])):
			flush()
			cur = append(cur, r)
		default:
			cur = append(cur, r)
		}
	}
	flush()
	return strings.Join(out, " ")
}

// plural makes the last word of a phrase plural, naively but well enough
// for schema nouns.
func plural(phrase string) string {
	i := strings.LastIndexByte(phrase, ' ')
	head, w := phrase[:i+1], phrase[i+1:]
	switch {
	case w == "":
		return phrase
	case irregular[w] != "":
		return head + irregular[w]
	case strings.HasSuffix(w, "s") || strings.HasSuffix(w, "x") || strings.HasSuffix(w, "ch") || strings.HasSuffix(w, "sh"):
		if strings.HasSuffix(w, "ss") || !strings.HasSuffix(w, "s") {
			return head + w + "es"
		}
		return phrase // already plural, most likely
	case strings.HasSuffix(w, "y") && len(w) > 1 && !strings.ContainsRune("aeiou", rune(w[len(w)-2])):
		return head + w[:len(w)-1] + "ies"
	}
	return head + w + "s"
}

var irregular = map[string]string{"status": "statuses", "address": "addresses", "person": "people", "child": "children", "man": "men", "woman": "women", "id": "ids", "info": "info", "data": "data", "staff": "staff"}

// singular undoes plural for a table name: "order items" -> "order item".
func singular(phrase string) string {
	i := strings.LastIndexByte(phrase, ' ')
	head, w := phrase[:i+1], phrase[i+1:]
	for s, p := range irregular {
		if w == p && s != p {
			return head + s
		}
	}
	switch {
	case strings.HasSuffix(w, "ies") && len(w) > 3:
		return head + w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "sses"), strings.HasSuffix(w, "xes"), strings.HasSuffix(w, "ches"), strings.HasSuffix(w, "shes"):
		return head + w[:len(w)-2]
	case strings.HasSuffix(w, "ss"), strings.HasSuffix(w, "us"), strings.HasSuffix(w, "is"):
		return phrase
	case strings.HasSuffix(w, "s") && len(w) > 1:
		return head + w[:len(w)-1]
	}
	return phrase
}

// article is "a" or "an" for a word.
func article(w string) string {
	for _, p := range []string{"uni", "use", "usu", "eu", "one"} {
		if strings.HasPrefix(w, p) {
			return "a"
		}
	}
	if w != "" && strings.ContainsRune("aeiou", rune(w[0])) {
		return "an"
	}
	return "a"
}

// theName puts "the" before names that take it: "the United States".
func theName(name string) string {
	for _, p := range []string{"United ", "Netherlands", "Philippines", "Czech Republic", "Dominican Republic", "Bahamas"} {
		if strings.HasPrefix(name, p) {
			return "the " + name
		}
	}
	return name
}

// summable reports whether the sum of a column can mean something.
func (lex *Lexicon) summable(c *column) bool {
	if lex.NoSum[c.ref()] {
		return false
	}
	n := strings.ToLower(c.name)
	for _, w := range []string{"rate", "ratio", "percent", "pct", "score", "rating", "age", "year", "discount", "price", "lat", "lon"} {
		if strings.Contains(n, w) {
			return false
		}
	}
	return true
}
