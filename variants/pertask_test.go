package variants

import (
	"context"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/engine/sqlite"
)

// A NULL in a declared foreign key that may be NULL stays possible though
// a gold reads the column through NOT IN: that gold's task leaves the
// variant out instead (emptiedBy), and the guards do not refuse it.
func TestOptionalReferenceNullsStay(t *testing.T) {
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
	if !(&planner{schema: k.schema, cons: k.cons}).nullable(concert, concert.Column("stadium_id")) {
		t.Errorf("concert.stadium_id (declared, nullable, no NULL in the data): no NULL allowed, want one")
	}
	if slices.ContainsFunc(sqliteGuards(k.schema, k.cons, true, false), func(g string) bool {
		return strings.Contains(g, `ON main."concert"`) && strings.Contains(g, `NEW."stadium_id" IS NULL`)
	}) {
		t.Errorf("a guard refuses a NULL concert.stadium_id")
	}
}

// leftOut leaves a variant out of the tasks whose gold it empties (rows
// on the original, none there) or makes depend on tie order, and of no
// other; a gold unstable on the original is not judged on an unstable
// variant either.
func TestLeftOutIsPerTask(t *testing.T) {
	all := "SELECT name FROM stadium WHERE stadium_id NOT IN (SELECT stadium_id FROM concert)"
	y2014 := "SELECT name FROM stadium WHERE stadium_id NOT IN (SELECT stadium_id FROM concert WHERE year = 2014)"
	none := "SELECT name FROM stadium WHERE name = 'zz'"
	top := "SELECT stadium_id FROM concert GROUP BY stadium_id ORDER BY COUNT(*) LIMIT 1"
	tasks := []sqlgym.Task{{ID: "all", SQL: all}, {ID: "y2014", SQL: y2014}, {ID: "none", SQL: none}, {ID: "top", SQL: top}}
	orig := map[string]goldState{all: {ok: true, rows: 1}, y2014: {ok: true, rows: 1}, none: {ok: true}, top: {}}
	states := []map[string]goldState{
		{all: {ok: true}, y2014: {ok: true, rows: 2}, none: {ok: true}, top: {ok: true, rows: 1}}, // a NULL stadium_id in 2015
		{all: {ok: true, rows: 1}, y2014: {ok: true, rows: 1}, none: {ok: true}, top: {}},         // top ties here
		{all: {ok: true}, y2014: {ok: true}, none: {ok: true}, top: {ok: true, rows: 1}},          // a NULL in 2014
	}
	got := leftOut(tasks, sqlgym.DialectSQLite, orig, states, goldRepeats{})
	want := map[string]map[int]string{
		"all":   {0: leftEmpty, 2: leftEmpty},
		"y2014": {2: leftEmpty},
		"top":   {1: leftUnstable},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("leftOut = %v, want %v (none is empty on the original too)", got, want)
	}
	urls := []string{"sqlite:v1", "sqlite:v2", "sqlite:v3"}
	assigned := slices.Clone(tasks)
	left := assignVariants(assigned, sqlgym.DialectSQLite, "sqlite:orig", urls, []string{"v1", "v2", "v3"}, orig, states, goldRepeats{})
	if len(left) != 4 || !slices.Equal(assigned[0].DBVariants, []string{"sqlite:v2"}) || !slices.Equal(assigned[2].DBVariants, urls) {
		t.Errorf("assigned %+v, left out %v", assigned, left)
	}
	states[1][all] = goldState{ok: true}
	assignVariants(assigned, sqlgym.DialectSQLite, "sqlite:orig", urls, []string{"v1", "v2", "v3"}, orig, states, goldRepeats{})
	if !slices.Equal(assigned[0].DBVariants, []string{"sqlite:orig"}) {
		t.Errorf("a task left without variants gets %v, want the original named alone", assigned[0].DBVariants)
	}
}
