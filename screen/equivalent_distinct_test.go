package screen

import (
	"testing"
)

// TestDistinctRowsProved: DISTINCT added to a grouped SELECT that leaves
// its group key out is proved equivalent when the select list holds a
// NOT NULL UNIQUE column of the table whose key it groups by, and not
// when that column may repeat; the unproved one is told apart by data.
func TestDistinctRowsProved(t *testing.T) {
	eng, s := proofDB(t,
		`CREATE TABLE singer (singer_id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, country TEXT NOT NULL)`,
		`CREATE TABLE song (song_id INTEGER PRIMARY KEY, singer_id INTEGER NOT NULL REFERENCES singer (singer_id), title TEXT)`,
		`INSERT INTO singer VALUES (1, 'Ann', 'FR'), (2, 'Bob', 'FR')`,
		`INSERT INTO song VALUES (1, 1, 'a'), (2, 2, 'b')`)
	gold := `SELECT T1.name, COUNT(*) FROM singer AS T1 JOIN song AS T2 ON T1.singer_id = T2.singer_id GROUP BY T1.singer_id`
	m := realMutant(t, gold, AddDistinct, s, "SELECT", "SELECT DISTINCT")
	if ok, why := Equivalent(gold, m, s); !ok {
		t.Errorf("DISTINCT over rows told apart by a UNIQUE name not proved: %s", why)
	}
	byCountry := `SELECT T1.country, COUNT(*) FROM singer AS T1 JOIN song AS T2 ON T1.singer_id = T2.singer_id GROUP BY T1.singer_id`
	m = realMutant(t, byCountry, AddDistinct, s, "SELECT", "SELECT DISTINCT")
	if ok, why := Equivalent(byCountry, m, s); ok {
		t.Errorf("DISTINCT over a country that repeats proved: %s", why)
	}
	// And the data agrees: the country rows repeat, the name rows do not.
	if a, b := rowsOf(t, eng, byCountry), rowsOf(t, eng, m.SQL); len(a) == len(b) {
		t.Errorf("the unproved mutant is not told apart here: %v against %v", a, b)
	}
}

// TestDistinctRowsProvedThroughJoin: grouping by the child's column that
// an inner join equates with the parent's key groups by the parent's key
// too; a LEFT JOIN proves nothing.
func TestDistinctRowsProvedThroughJoin(t *testing.T) {
	_, s := proofDB(t,
		`CREATE TABLE stadium (stadium_id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE)`,
		`CREATE TABLE concert (concert_id INTEGER PRIMARY KEY, stadium_id INTEGER NOT NULL REFERENCES stadium (stadium_id))`)
	gold := `SELECT T2.name, count(*) FROM concert AS T1 JOIN stadium AS T2 ON T1.stadium_id = T2.stadium_id GROUP BY T1.stadium_id`
	m := realMutant(t, gold, AddDistinct, s, "SELECT", "SELECT DISTINCT")
	if ok, why := Equivalent(gold, m, s); !ok {
		t.Errorf("not proved through the join: %s", why)
	}
	left := `SELECT T2.name, count(*) FROM concert AS T1 LEFT JOIN stadium AS T2 ON T1.stadium_id = T2.stadium_id GROUP BY T1.stadium_id`
	m = realMutant(t, left, AddDistinct, s, "SELECT", "SELECT DISTINCT")
	if ok, why := Equivalent(left, m, s); ok {
		t.Errorf("proved through a LEFT JOIN: %s", why)
	}
}
