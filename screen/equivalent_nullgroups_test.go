package screen

import (
	"slices"
	"testing"
)

// TestNullRowsDropped: Spider's battle JOIN ship JOIN death GROUP BY
// battle.id HAVING SUM(death.killed) > 10 against LEFT JOIN death is
// proved (the added rows are NULLs SUM skips, and a group of only them
// fails the HAVING); without the HAVING, with COUNT(*) or with a
// HAVING that a NULL group passes it is not, and the data tells those
// apart.
func TestNullRowsDropped(t *testing.T) {
	eng, s := proofDB(t,
		`CREATE TABLE battle (id INTEGER PRIMARY KEY, name TEXT)`,
		`CREATE TABLE ship (id INTEGER PRIMARY KEY, lost_in_battle INTEGER REFERENCES battle (id))`,
		`CREATE TABLE death (caused_by_ship_id INTEGER REFERENCES ship (id), id INTEGER PRIMARY KEY, killed INTEGER)`,
		`INSERT INTO battle VALUES (1, 'a'), (2, 'b')`,
		`INSERT INTO ship VALUES (1, 1), (2, 1), (3, 2)`,
		`INSERT INTO death VALUES (1, 1, 20)`)
	const gold = `SELECT T1.id, T1.name FROM battle AS T1 JOIN ship AS T2 ON T1.id = T2.lost_in_battle ` +
		`JOIN death AS T3 ON T2.id = T3.caused_by_ship_id GROUP BY T1.id HAVING sum(T3.killed) > 10`
	m := realMutant(t, gold, JoinType, s, "JOIN death", "LEFT JOIN death")
	if ok, why := Equivalent(gold, m, s); !ok {
		t.Errorf("not proved: %s", why)
	}
	// The other way round: the gold's LEFT JOIN made inner.
	left := `SELECT T1.id, T1.name FROM battle AS T1 JOIN ship AS T2 ON T1.id = T2.lost_in_battle ` +
		`LEFT JOIN death AS T3 ON T2.id = T3.caused_by_ship_id GROUP BY T1.id HAVING count(T3.killed) > 0 AND T1.id > 0`
	m = realMutant(t, left, JoinType, s, "LEFT JOIN death", "JOIN death")
	if ok, why := Equivalent(left, m, s); !ok {
		t.Errorf("not proved from the LEFT side with COUNT(c) > 0: %s", why)
	}
	for _, g := range []string{
		// no HAVING: battle 2 (a ship, no death) appears under LEFT
		`SELECT T1.id, sum(T3.killed) FROM battle AS T1 JOIN ship AS T2 ON T1.id = T2.lost_in_battle ` +
			`JOIN death AS T3 ON T2.id = T3.caused_by_ship_id GROUP BY T1.id`,
		// COUNT(*) counts the added rows
		`SELECT T1.id, count(*) FROM battle AS T1 JOIN ship AS T2 ON T1.id = T2.lost_in_battle ` +
			`JOIN death AS T3 ON T2.id = T3.caused_by_ship_id GROUP BY T1.id HAVING sum(T3.killed) > 10`,
		// COUNT(c) >= 0 keeps a group of only NULLs
		`SELECT T1.id FROM battle AS T1 JOIN ship AS T2 ON T1.id = T2.lost_in_battle ` +
			`JOIN death AS T3 ON T2.id = T3.caused_by_ship_id GROUP BY T1.id HAVING count(T3.killed) >= 0`,
	} {
		m := realMutant(t, g, JoinType, s, "JOIN death", "LEFT JOIN death")
		if ok, why := Equivalent(g, m, s); ok {
			t.Errorf("proved %s: %s", g, why)
		}
		if a, b := rowsOf(t, eng, g), rowsOf(t, eng, m.SQL); slices.Equal(a, b) {
			t.Errorf("the data does not tell %s apart: %v", g, a)
		}
	}
	// A WHERE or a later join naming R proves nothing.
	for _, g := range []string{
		`SELECT T1.id FROM battle AS T1 JOIN ship AS T2 ON T1.id = T2.lost_in_battle ` +
			`JOIN death AS T3 ON T2.id = T3.caused_by_ship_id WHERE T3.id IS NULL OR T1.id = 1 GROUP BY T1.id HAVING sum(T3.killed) > 10`,
		`SELECT T1.id FROM battle AS T1 JOIN death AS T3 ON T1.id = T3.caused_by_ship_id ` +
			`LEFT JOIN ship AS T2 ON T2.id = T3.id GROUP BY T1.id HAVING sum(T3.killed) > 10`,
	} {
		m := realMutant(t, g, JoinType, s, "JOIN death", "LEFT JOIN death")
		if ok, why := Equivalent(g, m, s); ok {
			t.Errorf("proved %s: %s", g, why)
		}
	}
}

// TestNullRowsDroppedOneRow: without GROUP BY, an aggregate of R's column
// over INNER and LEFT JOIN is the same one row; a bare column, COUNT(*)
// or no aggregate at all is not, and the data tells those apart.
func TestNullRowsDroppedOneRow(t *testing.T) {
	eng, s := proofDB(t,
		`CREATE TABLE car_names (makeid INTEGER PRIMARY KEY, model TEXT)`,
		`CREATE TABLE cars_data (id INTEGER PRIMARY KEY, edispl REAL)`,
		`INSERT INTO car_names VALUES (1, 'volvo'), (2, 'volvo'), (3, 'fiat')`,
		`INSERT INTO cars_data VALUES (1, 2.5)`)
	const gold = `SELECT avg(T2.edispl) FROM car_names AS T1 JOIN cars_data AS T2 ON T1.makeid = T2.id WHERE T1.model = 'volvo'`
	m := realMutant(t, gold, JoinType, s, "JOIN cars_data", "LEFT JOIN cars_data")
	if ok, why := Equivalent(gold, m, s); !ok {
		t.Errorf("not proved: %s", why)
	}
	for _, g := range []string{
		`SELECT count(*) FROM car_names AS T1 JOIN cars_data AS T2 ON T1.makeid = T2.id WHERE T1.model = 'volvo'`,
		`SELECT T1.makeid FROM car_names AS T1 JOIN cars_data AS T2 ON T1.makeid = T2.id WHERE T1.model = 'volvo'`,
	} {
		m := realMutant(t, g, JoinType, s, "JOIN cars_data", "LEFT JOIN cars_data")
		if ok, why := Equivalent(g, m, s); ok {
			t.Errorf("proved %s: %s", g, why)
		}
		if a, b := rowsOf(t, eng, g), rowsOf(t, eng, m.SQL); slices.Equal(a, b) {
			t.Errorf("the data does not tell %s apart: %v", g, a)
		}
	}
}
