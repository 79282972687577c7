package variants

import (
	"context"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/engine/sqlite"
)

func TestAntiJoined(t *testing.T) {
	got := antiJoined([]string{
		`SELECT name FROM stadium WHERE stadium_id NOT IN (SELECT stadium_id FROM concert)`,
		`SELECT name FROM shop WHERE shop_id not in (select distinct T.Shop_ID from hiring AS T)`,
		`SELECT name FROM stadium EXCEPT SELECT T2.name FROM concert AS T1 JOIN stadium AS T2 ON T1.stadium_id = T2.stadium_id`,
		`SELECT name FROM people WHERE people_id IN (SELECT people_id FROM poker_player)`,
		`SELECT a FROM t WHERE b NOT IN (1, 2)`,
	})
	want := []string{"shop_id", "stadium_id"}
	if keys := slices.Sorted(maps.Keys(got)); !slices.Equal(keys, want) {
		t.Errorf("antiJoined = %v, want %v (NOT IN subqueries only, qualified or not)", keys, want)
	}
}

// TestOptionalReferenceNulls: a declared foreign key that may be NULL
// takes a NULL in a variant although its data holds none, unless a gold
// reads it through NOT IN; the guards then refuse a NULL there too.
func TestOptionalReferenceNulls(t *testing.T) {
	path := filepath.Join(t.TempDir(), "toy.sqlite")
	stmts := []string{
		`CREATE TABLE stadium (stadium_id INTEGER PRIMARY KEY, name TEXT)`,
		`CREATE TABLE concert (concert_id INTEGER PRIMARY KEY, stadium_id INTEGER REFERENCES stadium(stadium_id), year INTEGER)`,
		`INSERT INTO stadium VALUES (1, 'a'), (2, 'b'), (3, 'c')`,
		`INSERT INTO concert VALUES (1, 1, 2014), (2, 2, 2014), (3, 2, 2015)`,
	}
	if err := sqlite.Create(context.Background(), path, stmts); err != nil {
		t.Fatal(err)
	}
	k := keysOf(t, toyCatalog(t, path), "toy")
	concert := k.schema.Table("concert")
	col := concert.Column("stadium_id")
	free := &planner{schema: k.schema, cons: k.cons}
	if !free.nullable(concert, col) {
		t.Errorf("concert.stadium_id (declared, nullable, no NULL in the data): no NULL allowed, want one")
	}
	anti := antiJoined([]string{`SELECT name FROM stadium WHERE stadium_id NOT IN (SELECT stadium_id FROM concert)`})
	held := &planner{schema: k.schema, cons: k.cons, anti: anti}
	if held.nullable(concert, col) {
		t.Errorf("concert.stadium_id read by a gold's NOT IN: a NULL allowed")
	}
	nullGuard := func(gs []string) bool {
		return slices.ContainsFunc(gs, func(g string) bool {
			return strings.Contains(g, `ON main."concert"`) && strings.Contains(g, `NEW."stadium_id" IS NULL`)
		})
	}
	if nullGuard(sqliteGuards(k.schema, k.cons, nil, true, false)) {
		t.Errorf("a guard refuses a NULL concert.stadium_id though no gold reads it through NOT IN")
	}
	if !nullGuard(sqliteGuards(k.schema, k.cons, anti, true, false)) {
		t.Errorf("no guard refuses a NULL concert.stadium_id that a gold reads through NOT IN")
	}
}
