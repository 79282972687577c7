package gen

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// batch is how many rows one INSERT carries: small enough for every
// engine's statement limits, large enough to load fast.
const batch = 200

// writeRows writes every table's rows in foreign-key order.
func (s *shop) writeRows(b *bytes.Buffer) {
	var rows [][]string
	for _, c := range s.customers {
		city := null
		if c.hasCity {
			city = text(c.city)
		}
		rows = append(rows, []string{num(c.id), text(c.first), text(c.last), text(c.email), city,
			text(c.country.name), date(c.signup)})
	}
	insert(b, "customers", []string{"customer_id", "first_name", "last_name", "email", "city", "country", "signup_date"}, rows)

	// One statement per level of the tree: DuckDB checks a row's parent
	// against the table as it was before the statement.
	for _, top := range []bool{true, false} {
		rows = nil
		for _, c := range categories {
			if (c.parent == 0) != top {
				continue
			}
			parent := null
			if c.parent != 0 {
				parent = num(c.parent)
			}
			rows = append(rows, []string{num(c.id), text(c.name), parent})
		}
		insert(b, "categories", []string{"category_id", "name", "parent_id"}, rows)
	}

	rows = nil
	for _, p := range s.products {
		rows = append(rows, []string{num(p.id), num(p.category), text(p.name), cents(p.price), num(p.stock)})
	}
	insert(b, "products", []string{"product_id", "category_id", "name", "price", "stock"}, rows)

	rows = nil
	for _, o := range s.orders {
		rows = append(rows, []string{num(o.id), num(o.customer.id), date(o.date), text(o.status), cents(o.total)})
	}
	insert(b, "orders", []string{"order_id", "customer_id", "order_date", "status", "total_amount"}, rows)

	rows = nil
	for _, it := range s.items {
		rows = append(rows, []string{num(it.id), num(it.order.id), num(it.product.id), num(it.quantity),
			cents(it.price), fmt.Sprintf("%d.%02d", it.discount/100, it.discount%100)})
	}
	insert(b, "order_items", []string{"order_item_id", "order_id", "product_id", "quantity", "unit_price", "discount"}, rows)

	rows = nil
	for _, p := range s.payments {
		rows = append(rows, []string{num(p.id), num(p.order.id), stamp(p.at), cents(p.amount), text(p.method),
			text(p.status), stampOrNull(p.refunded)})
	}
	insert(b, "payments", []string{"payment_id", "order_id", "created_at", "amount", "method", "status", "refunded_at"}, rows)

	rows = nil
	for _, sh := range s.shipments {
		rows = append(rows, []string{num(sh.id), num(sh.order.id), text(sh.carrier), text(sh.tracking),
			stamp(sh.shipped), stampOrNull(sh.delivered)})
	}
	insert(b, "shipments", []string{"shipment_id", "order_id", "carrier", "tracking_number", "shipped_at", "delivered_at"}, rows)

	rows = nil
	for _, rv := range s.reviews {
		t := null
		if rv.hasText {
			t = text(rv.text)
		}
		rows = append(rows, []string{num(rv.id), num(rv.product.id), num(rv.customer.id), num(rv.rating), t, stamp(rv.at)})
	}
	insert(b, "reviews", []string{"review_id", "product_id", "customer_id", "rating", "review_text", "created_at"}, rows)
}

// insert writes rows as INSERT statements of at most batch rows, one row
// per line.
func insert(b *bytes.Buffer, table string, cols []string, rows [][]string) {
	for start := 0; start < len(rows); start += batch {
		end := min(start+batch, len(rows))
		fmt.Fprintf(b, "INSERT INTO %s (%s) VALUES\n", table, strings.Join(cols, ", "))
		for i, row := range rows[start:end] {
			if len(row) != len(cols) {
				panic(fmt.Sprintf("gen: %s row has %d values for %d columns", table, len(row), len(cols)))
			}
			b.WriteString("(" + strings.Join(row, ", ") + ")")
			if start+i == end-1 {
				b.WriteString(";\n\n")
			} else {
				b.WriteString(",\n")
			}
		}
	}
}

const null = "NULL"

func num(i int) string { return strconv.Itoa(i) }

// cents writes an amount as a decimal literal with exactly two places.
func cents(c int) string {
	if c < 0 {
		panic("gen: negative amount")
	}
	return fmt.Sprintf("%d.%02d", c/100, c%100)
}

// text quotes a string literal. Rows are one per line, so a value must
// not hold a line break.
func text(s string) string {
	if strings.ContainsAny(s, "\r\n") {
		panic(fmt.Sprintf("gen: line break in %q", s))
	}
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}

func date(t time.Time) string  { return "'" + t.Format(time.DateOnly) + "'" }
func stamp(t time.Time) string { return "'" + t.Format(time.DateTime) + "'" }

func stampOrNull(t time.Time) string {
	if t.IsZero() {
		return null
	}
	return stamp(t)
}
