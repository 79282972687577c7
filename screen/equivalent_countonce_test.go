package screen

import (
	"slices"
	"testing"
)

// TestCountOnceProved: COUNT(DISTINCT a.aid) over author, a junction
// table keyed by its pair, and domain grouped by the domain's UNIQUE name
// (defog academic's shape) is COUNT(a.aid) on every database keeping
// those keys; with a name that may repeat, a junction without a key, or
// a LEFT JOIN it is not proved, and data with a namesake domain or a
// repeated pair does tell the two apart.
func TestCountOnceProved(t *testing.T) {
	const gold = `SELECT d.name, COUNT(DISTINCT a.aid) AS n FROM author AS a JOIN domain_author AS da ON a.aid = da.aid ` +
		`JOIN domain AS d ON da.did = d.did GROUP BY d.name`
	_, s := proofDB(t,
		`CREATE TABLE author (aid INTEGER PRIMARY KEY, name TEXT)`,
		`CREATE TABLE domain (did INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE)`,
		`CREATE TABLE domain_author (aid INTEGER NOT NULL, did INTEGER NOT NULL, PRIMARY KEY (aid, did))`)
	m := realMutant(t, gold, CountDistinct, s, "COUNT(DISTINCT a.aid)", "COUNT(a.aid)")
	if ok, why := Equivalent(gold, m, s); !ok {
		t.Errorf("not proved with the pair key and the UNIQUE name: %s", why)
	}
	// The other way round, and with the junction's columns fixed by a
	// WHERE literal instead of a group key.
	byLiteral := `SELECT COUNT(a.aid) FROM author AS a, domain_author AS da WHERE a.aid = da.aid AND da.did = 3`
	m = realMutant(t, byLiteral, CountDistinct, s, "COUNT(a.aid)", "COUNT(DISTINCT a.aid)")
	if ok, why := Equivalent(byLiteral, m, s); !ok {
		t.Errorf("not proved through a literal: %s", why)
	}

	// The name may repeat: two domains called ML hold the same author.
	eng, loose := proofDB(t,
		`CREATE TABLE author (aid INTEGER PRIMARY KEY, name TEXT)`,
		`CREATE TABLE domain (did INTEGER PRIMARY KEY, name TEXT NOT NULL)`,
		`CREATE TABLE domain_author (aid INTEGER NOT NULL, did INTEGER NOT NULL, PRIMARY KEY (aid, did))`,
		`INSERT INTO author VALUES (1, 'Ann')`, `INSERT INTO domain VALUES (1, 'ML'), (2, 'ML')`,
		`INSERT INTO domain_author VALUES (1, 1), (1, 2)`)
	m = realMutant(t, gold, CountDistinct, loose, "COUNT(DISTINCT a.aid)", "COUNT(a.aid)")
	if ok, why := Equivalent(gold, m, loose); ok {
		t.Errorf("proved with a name that may repeat: %s", why)
	}
	if a, b := rowsOf(t, eng, gold), rowsOf(t, eng, m.SQL); slices.Equal(a, b) {
		t.Errorf("a namesake domain does not tell them apart: %v", a)
	}

	// The junction has no key: a repeated pair counts the author twice.
	eng, nokey := proofDB(t,
		`CREATE TABLE author (aid INTEGER PRIMARY KEY, name TEXT)`,
		`CREATE TABLE domain (did INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE)`,
		`CREATE TABLE domain_author (aid INTEGER NOT NULL, did INTEGER NOT NULL)`,
		`INSERT INTO author VALUES (1, 'Ann')`, `INSERT INTO domain VALUES (1, 'ML')`,
		`INSERT INTO domain_author VALUES (1, 1), (1, 1)`)
	m = realMutant(t, gold, CountDistinct, nokey, "COUNT(DISTINCT a.aid)", "COUNT(a.aid)")
	if ok, why := Equivalent(gold, m, nokey); ok {
		t.Errorf("proved without the junction's key: %s", why)
	}
	if a, b := rowsOf(t, eng, gold), rowsOf(t, eng, m.SQL); slices.Equal(a, b) {
		t.Errorf("a repeated pair does not tell them apart: %v", a)
	}

	// A LEFT JOIN, an OR in the WHERE and a window prove nothing.
	for _, g := range []string{
		`SELECT d.name, COUNT(DISTINCT a.aid) AS n FROM author AS a LEFT JOIN domain_author AS da ON a.aid = da.aid ` +
			`LEFT JOIN domain AS d ON da.did = d.did GROUP BY d.name`,
		`SELECT COUNT(DISTINCT a.aid) FROM author AS a, domain_author AS da WHERE a.aid = da.aid OR da.did = 3`,
	} {
		m = realMutant(t, g, CountDistinct, s, "COUNT(DISTINCT a.aid)", "COUNT(a.aid)")
		if ok, why := Equivalent(g, m, s); ok {
			t.Errorf("proved %s: %s", g, why)
		}
	}
}
