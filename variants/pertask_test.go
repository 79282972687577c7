package variants

import (
	"context"
	"path/filepath"
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

// emptiedBy leaves a variant out of the tasks whose gold it empties (rows
// on the original, none there) and of no other.
func TestEmptiedByIsPerTask(t *testing.T) {
	all := "SELECT name FROM stadium WHERE stadium_id NOT IN (SELECT stadium_id FROM concert)"
	y2014 := "SELECT name FROM stadium WHERE stadium_id NOT IN (SELECT stadium_id FROM concert WHERE year = 2014)"
	none := "SELECT name FROM stadium WHERE name = 'zz'"
	tasks := []sqlgym.Task{{ID: "all", SQL: all}, {ID: "y2014", SQL: y2014}, {ID: "none", SQL: none}}
	orig := map[string]goldState{all: {ok: true, rows: 1}, y2014: {ok: true, rows: 1}, none: {ok: true}}
	states := []map[string]goldState{
		{all: {ok: true}, y2014: {ok: true, rows: 2}, none: {ok: true}},          // a NULL stadium_id in 2015
		{all: {ok: true, rows: 1}, y2014: {ok: true, rows: 1}, none: {ok: true}}, // empties nothing
		{all: {ok: true}, y2014: {ok: true}, none: {ok: true}},                   // a NULL in 2014
	}
	got := emptiedBy(tasks, sqlgym.DialectSQLite, orig, states)
	if !slices.Equal(got["all"], []int{0, 2}) || !slices.Equal(got["y2014"], []int{2}) || len(got["none"]) != 0 {
		t.Errorf("emptiedBy = %v, want all [0 2], y2014 [2], none (empty on the original too) nothing", got)
	}
}
