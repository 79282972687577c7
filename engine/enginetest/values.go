package enginetest

import (
	"testing"

	"github.com/sqlgym/sqlgym"
)

// The value kinds each engine must return, as the conformance suite checks
// them. Engines never parse text into richer types nor widen types the
// database did not report: a scorer that reproduces BIRD or Spider needs
// exactly what the engine holds.
//
//	expression / column type     sqlite                      postgres            duckdb
//	INTEGER, count(*), length()  int                         int                 int
//	DOUBLE PRECISION             float                       float               float
//	NUMERIC(10,2) 1200.50        float 1200.5                decimal "1200.50"   decimal "1200.50"
//	NUMERIC(10,2) 100.00         int 100 (NUMERIC affinity)  decimal "100.00"    decimal "100.00"
//	literal 2.5                  float                       decimal "2.5"       decimal "2.5"
//	VARCHAR, literal 'x'         text                        text                text
//	DATE column                  text "1990-05-17"           date                date
//	TIMESTAMP column             text "2021-03-04 05:06:07"  timestamp           timestamp
//	CAST('2024-02-29' AS DATE)   int 2024 (NUMERIC affinity) date                date
//	1 = 1                        int 1                       bool                bool
//	7 / 2                        int 3                       int 3               float 3.5
//	NULL of any type             null                        null                null
//
// MySQL and MariaDB return what PostgreSQL does, except: 1 = 1 is int 1
// (there is no boolean type), 7 / 2 is decimal "3.5000" (division is
// exact, with div_precision_increment more digits), length() counts bytes
// ("李雷" is 6), and the default _ci collations make 'alice' equal 'Alice'.
//
// SQLite has only five storage classes (INTEGER, REAL, TEXT, BLOB, NULL);
// declared types only steer affinity, so its column is the raw value.

// per holds one expected value per dialect.
type per struct{ sqlite, postgres, duckdb, mysql sqlgym.Value }

func all(v sqlgym.Value) per { return per{v, v, v, v} }

// but is v everywhere except on MySQL and MariaDB, which return m.
func but(v, m sqlgym.Value) per { return per{v, v, v, m} }

// pick returns the row of values for dialect d.
func pick(t testing.TB, d sqlgym.Dialect, row []per) []sqlgym.Value {
	t.Helper()
	out := make([]sqlgym.Value, len(row))
	for i, p := range row {
		switch d {
		case sqlgym.DialectSQLite:
			out[i] = p.sqlite
		case sqlgym.DialectPostgres:
			out[i] = p.postgres
		case sqlgym.DialectDuckDB:
			out[i] = p.duckdb
		case sqlgym.DialectMySQL:
			out[i] = p.mysql
		default:
			t.Fatalf("enginetest: no expectations for dialect %q", d)
		}
	}
	return out
}

type valueCase struct {
	name string
	sql  string
	// mysql replaces sql on MySQL and MariaDB where the portable text
	// does not parse there (MariaDB has no CAST AS DOUBLE PRECISION).
	mysql string
	cols  []string
	rows  [][]per
}

var valueCases = []valueCase{
	{
		name: "people_full_row",
		sql:  `SELECT id, name, city, age, height, balance, born, joined FROM people WHERE id = 1`,
		cols: []string{"id", "name", "city", "age", "height", "balance", "born", "joined"},
		rows: [][]per{{
			all(sqlgym.Int(1)), all(sqlgym.Text("Alice")), all(sqlgym.Text("Paris")), all(sqlgym.Int(34)), all(sqlgym.Float(1.75)),
			{sqlgym.Float(1200.5), sqlgym.Decimal("1200.50"), sqlgym.Decimal("1200.50"), sqlgym.Decimal("1200.50")},
			{sqlgym.Text("1990-05-17"), sqlgym.Date("1990-05-17"), sqlgym.Date("1990-05-17"), sqlgym.Date("1990-05-17")},
			{sqlgym.Text("2021-03-04 05:06:07"), sqlgym.Timestamp("2021-03-04 05:06:07"), sqlgym.Timestamp("2021-03-04 05:06:07"), sqlgym.Timestamp("2021-03-04 05:06:07")},
		}},
	},
	{
		name: "nulls_unicode_whole_numeric",
		sql:  `SELECT id, name, city, age, height, balance, born, joined FROM people WHERE id = 3`,
		cols: []string{"id", "name", "city", "age", "height", "balance", "born", "joined"},
		rows: [][]per{{
			all(sqlgym.Int(3)), all(sqlgym.Text("Zoë Ångström")), all(sqlgym.Text("Zürich")), all(sqlgym.Null()), all(sqlgym.Null()),
			{sqlgym.Int(100), sqlgym.Decimal("100.00"), sqlgym.Decimal("100.00"), sqlgym.Decimal("100.00")},
			all(sqlgym.Null()), all(sqlgym.Null()),
		}},
	},
	{
		name: "negative_numeric_and_ordering",
		sql:  `SELECT id, balance FROM people WHERE id IN (4, 5, 6) ORDER BY id`,
		cols: []string{"id", "balance"},
		rows: [][]per{
			{all(sqlgym.Int(4)), {sqlgym.Float(-3.1), sqlgym.Decimal("-3.10"), sqlgym.Decimal("-3.10"), sqlgym.Decimal("-3.10")}},
			{all(sqlgym.Int(5)), {sqlgym.Float(0.05), sqlgym.Decimal("0.05"), sqlgym.Decimal("0.05"), sqlgym.Decimal("0.05")}},
			{all(sqlgym.Int(6)), all(sqlgym.Null())},
		},
	},
	{
		name:  "literals",
		sql:   `SELECT 1 AS one, 2.5 AS two_half, CAST(7 AS DOUBLE PRECISION) / 2 AS half, 'héllo' AS s, NULL AS nada, 1 = 1 AS yes`,
		mysql: `SELECT 1 AS one, 2.5 AS two_half, CAST(7 AS DOUBLE) / 2 AS half, 'héllo' AS s, NULL AS nada, 1 = 1 AS yes`,
		cols:  []string{"one", "two_half", "half", "s", "nada", "yes"},
		rows: [][]per{{
			all(sqlgym.Int(1)), {sqlgym.Float(2.5), sqlgym.Decimal("2.5"), sqlgym.Decimal("2.5"), sqlgym.Decimal("2.5")}, all(sqlgym.Float(3.5)),
			all(sqlgym.Text("héllo")), all(sqlgym.Null()), {sqlgym.Int(1), sqlgym.Bool(true), sqlgym.Bool(true), sqlgym.Int(1)},
		}},
	},
	{
		name: "integer_division",
		sql:  `SELECT 7 / 2 AS q`,
		cols: []string{"q"},
		rows: [][]per{{{sqlgym.Int(3), sqlgym.Int(3), sqlgym.Float(3.5), sqlgym.Decimal("3.5000")}}},
	},
	{
		name: "cast_text_to_date",
		sql:  `SELECT CAST('2024-02-29' AS DATE) AS d`,
		cols: []string{"d"},
		rows: [][]per{{{sqlgym.Int(2024), sqlgym.Date("2024-02-29"), sqlgym.Date("2024-02-29"), sqlgym.Date("2024-02-29")}}},
	},
	{
		name: "aggregates",
		sql:  `SELECT count(*) AS n, count(age) AS n_age, max(age) AS oldest FROM people`,
		cols: []string{"n", "n_age", "oldest"},
		rows: [][]per{{all(sqlgym.Int(PeopleRows)), all(sqlgym.Int(5)), all(sqlgym.Int(55))}},
	},
	{
		name: "unicode_length",
		sql:  `SELECT name, length(name) AS len FROM people WHERE id IN (3, 5) ORDER BY id`,
		cols: []string{"name", "len"},
		rows: [][]per{
			{all(sqlgym.Text("Zoë Ångström")), but(sqlgym.Int(12), sqlgym.Int(15))},
			{all(sqlgym.Text("李雷")), but(sqlgym.Int(2), sqlgym.Int(6))},
		},
	},
	{
		name: "case_sensitive_equality",
		sql:  `SELECT (SELECT count(*) FROM people WHERE name = 'alice') AS exact, (SELECT count(*) FROM people WHERE lower(name) = 'alice') AS folded`,
		cols: []string{"exact", "folded"},
		rows: [][]per{{but(sqlgym.Int(0), sqlgym.Int(2)), all(sqlgym.Int(2))}},
	},
	{
		name: "quotes_and_semicolons_in_strings",
		sql:  `SELECT name, 'a;b' AS semi, 'x -- not a comment' AS dashes FROM people WHERE name = 'O''Brien; DROP'`,
		cols: []string{"name", "semi", "dashes"},
		rows: [][]per{{all(sqlgym.Text("O'Brien; DROP")), all(sqlgym.Text("a;b")), all(sqlgym.Text("x -- not a comment"))}},
	},
	{
		name: "join_on_date_literal",
		sql:  `SELECT p.name, o.item, o.qty FROM people p JOIN orders o ON o.person_id = p.id WHERE o.placed = '2024-02-29'`,
		cols: []string{"name", "item", "qty"},
		rows: [][]per{{all(sqlgym.Text("ALICE")), all(sqlgym.Text("Lamp")), all(sqlgym.Int(1))}},
	},
	{
		name:  "doubles_from_big_table",
		sql:   `SELECT n, x, CAST(n AS DOUBLE PRECISION) / 4 AS q FROM nums WHERE n IN (7, 10) ORDER BY n`,
		mysql: `SELECT n, x, CAST(n AS DOUBLE) / 4 AS q FROM nums WHERE n IN (7, 10) ORDER BY n`,
		cols:  []string{"n", "x", "q"},
		rows: [][]per{
			{all(sqlgym.Int(7)), all(sqlgym.Float(1.75)), all(sqlgym.Float(1.75))},
			{all(sqlgym.Int(10)), all(sqlgym.Float(2.5)), all(sqlgym.Float(2.5))},
		},
	},
	{
		name: "big_table_counts",
		sql:  `SELECT count(*) AS n, max(n) AS hi, count(DISTINCT grp) AS groups FROM nums`,
		cols: []string{"n", "hi", "groups"},
		rows: [][]per{{all(sqlgym.Int(NumsRows)), all(sqlgym.Int(NumsRows)), all(sqlgym.Int(10))}},
	},
	{
		name: "quoted_alias_keeps_case",
		sql:  `SELECT id AS "Person Id", name, lower(city) AS city_lc FROM people WHERE id = 2`,
		cols: []string{"Person Id", "name", "city_lc"},
		rows: [][]per{{all(sqlgym.Int(2)), all(sqlgym.Text("bob")), all(sqlgym.Text("paris"))}},
	},
}

// sqlFor is the case's statement on dialect d.
func (c valueCase) sqlFor(d sqlgym.Dialect) string {
	if d == sqlgym.DialectMySQL && c.mysql != "" {
		return c.mysql
	}
	return c.sql
}
