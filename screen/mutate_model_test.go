package screen

import (
	"slices"
	"testing"

	"github.com/sqlgym/sqlgym"
)

// shopLike is a two-table schema in the shape of the built-in shop's.
var shopLike = &sqlgym.Schema{Tables: []sqlgym.Table{
	{Name: "customers", PrimaryKey: []string{"customer_id"}, Columns: []sqlgym.Column{
		{Name: "customer_id", Type: "INTEGER"}, {Name: "first_name", Type: "VARCHAR(50)"},
		{Name: "last_name", Type: "VARCHAR(50)"}, {Name: "signup_date", Type: "DATE"}}},
	{Name: "orders", PrimaryKey: []string{"order_id"}, Columns: []sqlgym.Column{
		{Name: "order_id", Type: "INTEGER"}, {Name: "customer_id", Type: "INTEGER"},
		{Name: "order_date", Type: "DATE"}, {Name: "total_amount", Type: "DECIMAL(10,2)"}},
		ForeignKeys: []sqlgym.ForeignKey{{Columns: []string{"customer_id"}, RefTable: "customers", RefColumns: []string{"customer_id"}}}},
}}

func ofSchema(sql string, k Kind) []string {
	var out []string
	for _, m := range MutateSchema(sql, 0, shopLike) {
		if m.Kind == k {
			out = append(out, m.SQL)
		}
	}
	return out
}

func TestMutateModelKinds(t *testing.T) {
	cases := []struct {
		name string
		kind Kind
		sql  string
		want []string
	}{
		{"a selected column becomes one of the same type", WrongColumn,
			"SELECT c.first_name FROM customers AS c WHERE c.customer_id = 3",
			[]string{"SELECT c.last_name FROM customers AS c WHERE c.customer_id = 3"}},
		{"a bare column resolves through the one table that has it", WrongColumn,
			"SELECT order_date FROM orders JOIN customers ON orders.customer_id = customers.customer_id",
			nil}, // order_date has no other DATE column in orders
		{"a join key becomes another key of its table", WrongJoinKey,
			"SELECT COUNT(*) FROM orders o JOIN customers c ON o.customer_id = c.customer_id",
			[]string{"SELECT COUNT(*) FROM orders o JOIN customers c ON o.order_id = c.customer_id"}},
		{"group by the shown name instead of the id", WrongGrain,
			"SELECT c.last_name, COUNT(*) FROM customers c JOIN orders o ON o.customer_id = c.customer_id GROUP BY c.customer_id",
			[]string{"SELECT c.last_name, COUNT(*) FROM customers c JOIN orders o ON o.customer_id = c.customer_id GROUP BY c.last_name"}},
		{"a group key left out", MissingGroupBy,
			"SELECT a, b, COUNT(*) FROM t GROUP BY a, b HAVING COUNT(*) > 1",
			[]string{"SELECT a, b, COUNT(*) FROM t GROUP BY b HAVING COUNT(*) > 1", "SELECT a, b, COUNT(*) FROM t GROUP BY a HAVING COUNT(*) > 1"}},
		{"numbers and dates one step off, LIMIT and SELECT untouched", OffByOneLiteral,
			"SELECT 5 FROM t WHERE d < '2024-03-01' AND p BETWEEN 1.50 AND 9 GROUP BY g HAVING COUNT(*) >= 2 LIMIT 3",
			[]string{
				"SELECT 5 FROM t WHERE d < '2024-03-02' AND p BETWEEN 1.50 AND 9 GROUP BY g HAVING COUNT(*) >= 2 LIMIT 3",
				"SELECT 5 FROM t WHERE d < '2024-02-29' AND p BETWEEN 1.50 AND 9 GROUP BY g HAVING COUNT(*) >= 2 LIMIT 3",
				"SELECT 5 FROM t WHERE d < '2024-03-01' AND p BETWEEN 1.51 AND 9 GROUP BY g HAVING COUNT(*) >= 2 LIMIT 3",
				"SELECT 5 FROM t WHERE d < '2024-03-01' AND p BETWEEN 1.49 AND 9 GROUP BY g HAVING COUNT(*) >= 2 LIMIT 3",
				"SELECT 5 FROM t WHERE d < '2024-03-01' AND p BETWEEN 1.50 AND 10 GROUP BY g HAVING COUNT(*) >= 2 LIMIT 3",
				"SELECT 5 FROM t WHERE d < '2024-03-01' AND p BETWEEN 1.50 AND 8 GROUP BY g HAVING COUNT(*) >= 2 LIMIT 3",
				"SELECT 5 FROM t WHERE d < '2024-03-01' AND p BETWEEN 1.50 AND 9 GROUP BY g HAVING COUNT(*) >= 3 LIMIT 3",
				"SELECT 5 FROM t WHERE d < '2024-03-01' AND p BETWEEN 1.50 AND 9 GROUP BY g HAVING COUNT(*) >= 1 LIMIT 3",
			}},
		{"sort by another select item or a same-typed column", OrderWrongColumn,
			"SELECT order_id, total_amount FROM orders ORDER BY order_id DESC LIMIT 3",
			[]string{"SELECT order_id, total_amount FROM orders ORDER BY total_amount DESC LIMIT 3",
				"SELECT order_id, total_amount FROM orders ORDER BY customer_id DESC LIMIT 3"}},
		{"an aggregate sort key is replaced by an aggregate only", OrderWrongColumn,
			"SELECT g, COUNT(*), SUM(x) FROM t GROUP BY g ORDER BY COUNT(*) DESC LIMIT 1",
			[]string{"SELECT g, COUNT(*), SUM(x) FROM t GROUP BY g ORDER BY SUM(x) DESC LIMIT 1"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := ofSchema(c.sql, c.kind)
			if !slices.Equal(got, c.want) {
				t.Errorf("%s mutants of\n  %s\ngot:\n  %q\nwant:\n  %q", c.kind, c.sql, got, c.want)
			}
		})
	}
}

func TestSchemaKindsNeedSchema(t *testing.T) {
	sql := "SELECT c.first_name FROM customers AS c JOIN orders o ON o.customer_id = c.customer_id GROUP BY c.customer_id"
	for _, m := range Mutate(sql, 0) {
		switch m.Kind {
		case WrongColumn, WrongJoinKey, WrongGrain:
			t.Errorf("without a schema, got a %s mutant: %s", m.Kind, m.SQL)
		}
	}
	if len(ofSchema(sql, WrongJoinKey)) == 0 {
		t.Errorf("with the schema, no wrong_join_key mutant of %s", sql)
	}
}

func TestOrderWrongColumnEffect(t *testing.T) {
	for _, m := range MutateSchema("SELECT order_id, total_amount FROM orders ORDER BY order_id", 0, shopLike) {
		if m.Kind == OrderWrongColumn && m.Effect != EffectOrder {
			t.Errorf("an unlimited top-level sort only orders rows: %s has effect %d", m.SQL, m.Effect)
		}
	}
}

func TestTieCheck(t *testing.T) {
	cases := []struct {
		sql, want string
		at        int
	}{
		{"SELECT name FROM t ORDER BY price DESC LIMIT 3",
			"SELECT sg_tie0 FROM (SELECT name , price AS sg_tie0 FROM t ORDER BY price DESC LIMIT 4) AS sg_ties", 3},
		{"SELECT g, COUNT(*) AS n FROM t GROUP BY g ORDER BY n DESC, 1 LIMIT 1",
			"SELECT sg_tie0, sg_tie1 FROM (SELECT g, COUNT(*) AS n , COUNT(*) AS sg_tie0, g AS sg_tie1 FROM t GROUP BY g ORDER BY n DESC, 1 LIMIT 2) AS sg_ties", 1},
	}
	for _, c := range cases {
		got, at, ok := TieCheck(c.sql)
		if !ok || got != c.want || at != c.at {
			t.Errorf("TieCheck(%s)\n got %q %d %v\nwant %q %d", c.sql, got, at, ok, c.want, c.at)
		}
	}
	for _, sql := range []string{"SELECT a FROM t ORDER BY a", "SELECT DISTINCT a FROM t ORDER BY a LIMIT 2", "SELECT a FROM t UNION SELECT b FROM u ORDER BY 1 LIMIT 1"} {
		if _, _, ok := TieCheck(sql); ok {
			t.Errorf("TieCheck(%s) wrote a check", sql)
		}
	}
}

func TestEquivalent(t *testing.T) {
	find := func(gold string, k Kind) Mutant {
		for _, m := range MutateSchema(gold, 0, shopLike) {
			if m.Kind == k {
				return m
			}
		}
		t.Fatalf("no %s mutant of %s", k, gold)
		return Mutant{}
	}
	cases := []struct {
		gold string
		kind Kind
		want bool
	}{
		{"SELECT DISTINCT last_name FROM customers ORDER BY signup_date LIMIT 1", DropDistinct, true},
		{"SELECT DISTINCT last_name FROM customers ORDER BY signup_date LIMIT 2", DropDistinct, false},
		{"SELECT COUNT(customer_id) FROM customers WHERE signup_date > '2024-01-01'", CountDistinct, true},
		{"SELECT COUNT(first_name) FROM customers", CountDistinct, false},
		{"SELECT COUNT(c.customer_id) FROM customers c JOIN orders o ON o.customer_id = c.customer_id", CountDistinct, false},
		// orders.customer_id is a NOT NULL foreign key in this schema
		// only when declared so: shopLike leaves it nullable.
		{"SELECT o.order_id FROM orders o JOIN customers c ON o.customer_id = c.customer_id", JoinType, false},
		{"SELECT c.customer_id FROM customers c JOIN orders o ON o.customer_id = c.customer_id GROUP BY c.customer_id HAVING COUNT(*) > 2", JoinType, true},
		{"SELECT c.customer_id FROM customers c JOIN orders o ON o.customer_id = c.customer_id GROUP BY c.customer_id HAVING COUNT(*) >= 1", JoinType, false},
		{"SELECT c.last_name FROM customers c JOIN orders o ON o.customer_id = c.customer_id GROUP BY c.last_name HAVING COUNT(*) > 2", JoinType, false},
	}
	for _, c := range cases {
		got, why := Equivalent(c.gold, find(c.gold, c.kind), shopLike)
		if got != c.want {
			t.Errorf("Equivalent(%s, %s) = %v (%s), want %v", c.gold, c.kind, got, why, c.want)
		}
	}
	notNull := *shopLike
	notNull.Tables = append([]sqlgym.Table(nil), shopLike.Tables...)
	orders := notNull.Tables[1]
	orders.Columns = append([]sqlgym.Column(nil), orders.Columns...)
	orders.Columns[1].NotNull = true
	notNull.Tables[1] = orders
	gold := "SELECT o.order_id FROM orders o JOIN customers c ON o.customer_id = c.customer_id"
	if ok, why := Equivalent(gold, find(gold, JoinType), &notNull); !ok {
		t.Errorf("a NOT NULL foreign key to the joined key: not proved equivalent (%s)", why)
	}
}
