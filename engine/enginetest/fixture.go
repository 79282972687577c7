package enginetest

import (
	"fmt"
	"strings"
)

// Fixture sizes the suites rely on.
const (
	// NumsRows is the row count of table nums, big enough for cap tests.
	NumsRows = 5000
	// PeopleRows is the row count of table people.
	PeopleRows = 6
)

// Fixture returns portable DDL+INSERT statements (valid in SQLite,
// PostgreSQL and DuckDB) for the small database the suites query:
//
//   - people: ints, DOUBLE PRECISION, NUMERIC(10,2), VARCHAR with mixed case,
//     unicode, quotes and a semicolon, NULLs, DATE and TIMESTAMP;
//   - orders: a child of people for joins;
//   - nums: NumsRows rows for cap, explosion and concurrency tests;
//   - empty_t: no rows.
//
// Only ANSI types and multi-row VALUES are used, so the same text loads in
// all three engines. Fractional seconds are avoided: engines print them
// differently.
func Fixture() []string {
	stmts := []string{
		`CREATE TABLE people (
  id INTEGER PRIMARY KEY,
  name VARCHAR(60) NOT NULL,
  city VARCHAR(60),
  age INTEGER,
  height DOUBLE PRECISION,
  balance NUMERIC(10,2),
  born DATE,
  joined TIMESTAMP
)`,
		`INSERT INTO people (id, name, city, age, height, balance, born, joined) VALUES
  (1, 'Alice', 'Paris', 34, 1.75, 1200.50, '1990-05-17', '2021-03-04 05:06:07'),
  (2, 'bob', 'paris', 28, 1.8, 99.99, '1996-01-02', '2022-11-30 23:59:59'),
  (3, 'Zoë Ångström', 'Zürich', NULL, NULL, 100.00, NULL, NULL),
  (4, 'ALICE', NULL, 41, 1.625, -3.10, '1983-12-31', '2020-02-29 12:00:00'),
  (5, '李雷', '北京', 19, 1.5, 0.05, '2005-07-08', '2023-07-08 09:10:11'),
  (6, 'O''Brien; DROP', 'Dublin', 55, 2.0, NULL, '1969-08-09', '2019-01-01 00:00:00')`,
		`CREATE TABLE orders (
  id INTEGER PRIMARY KEY,
  person_id INTEGER NOT NULL,
  item VARCHAR(40) NOT NULL,
  qty INTEGER NOT NULL,
  amount NUMERIC(10,2),
  placed DATE
)`,
		`INSERT INTO orders (id, person_id, item, qty, amount, placed) VALUES
  (1, 1, 'Book', 2, 25.00, '2024-01-05'),
  (2, 1, 'Pen', 10, 3.75, '2024-01-06'),
  (3, 2, 'Book', 1, 12.50, '2024-02-10'),
  (4, 4, 'Lamp', 1, 40.10, '2024-02-29'),
  (5, 5, 'Tea', 3, 9.99, NULL),
  (6, 6, 'Pen', 5, 3.75, '2024-03-01')`,
		`CREATE TABLE empty_t (a INTEGER, b VARCHAR(10))`,
		`CREATE TABLE nums (
  n INTEGER PRIMARY KEY,
  grp INTEGER NOT NULL,
  label VARCHAR(20) NOT NULL,
  x DOUBLE PRECISION NOT NULL
)`,
	}
	const batch = 1000
	for lo := 1; lo <= NumsRows; lo += batch {
		var b strings.Builder
		b.WriteString("INSERT INTO nums (n, grp, label, x) VALUES ")
		for n := lo; n < lo+batch && n <= NumsRows; n++ {
			if n > lo {
				b.WriteString(", ")
			}
			// x is n/4: exact in binary, so every engine prints the same float.
			fmt.Fprintf(&b, "(%d, %d, 'row-%d', %d.%s)", n, n%10, n, n/4, [...]string{"0", "25", "5", "75"}[n%4])
		}
		stmts = append(stmts, b.String())
	}
	return stmts
}
