package variants

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/constraints"
	"github.com/sqlgym/sqlgym/engine/sqlite"
	"github.com/sqlgym/sqlgym/screen"
)

// musicDB writes two tables linked by a name, no key declared nor implied
// (a name is not named or typed like a key): every album's artist exists,
// every artist has an album and produced each of its albums, and the
// artists have 1, 7, 8 and 9 albums, so no group sits at a HAVING
// threshold of 5 (nor is one copy or three away from it). An artist's name is at
// most 8 characters (a CHECK), so no copy of an artist under a new name
// (a namesake) is taken.
func musicDB(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "music.sqlite")
	stmts := []string{
		`CREATE TABLE artist (name TEXT CHECK (length(name) <= 8), country TEXT)`,
		`CREATE TABLE album (title TEXT, artist_name TEXT, producer TEXT, sales INTEGER)`,
	}
	for i, n := range []int{1, 7, 8, 9} {
		name := fmt.Sprintf("Artist %c", 'A'+i)
		stmts = append(stmts, fmt.Sprintf("INSERT INTO artist VALUES ('%s', '%s')", name, []string{"France", "Peru"}[i%2]))
		for j := range n {
			stmts = append(stmts, fmt.Sprintf("INSERT INTO album VALUES ('%s %d', '%s', '%s', %d)", name, j, name, name, 150+37*j+11*i))
		}
	}
	if err := sqlite.Create(context.Background(), path, stmts); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestJoinEditsKillWhatOneTableCannot runs the generator on golds whose
// surviving mutants only an edit of two tables' matched rows kills: an
// orphan album (INNER against LEFT JOIN from the child side), an artist
// whose every album is gone (LEFT against INNER JOIN from the parent
// side), an artist's albums pushed to a HAVING threshold over a join, and
// an artist's albums moved to another artist, which tells NOT IN over the
// producer from NOT IN over the artist. The
// edits of one table's rows kill none of them: without joinEdits the test
// fails.
func TestJoinEditsKillWhatOneTableCannot(t *testing.T) {
	path := musicDB(t)
	tasks := []sqlgym.Task{
		{ID: "orphan", DB: "music", SQL: "SELECT al.title, a.country FROM album AS al JOIN artist AS a ON al.artist_name = a.name"},
		{ID: "childless", DB: "music", SQL: "SELECT a.name, COUNT(al.title) FROM artist AS a LEFT JOIN album AS al ON a.name = al.artist_name GROUP BY a.name"},
		{ID: "having", DB: "music", SQL: "SELECT a.name FROM artist AS a JOIN album AS al ON a.name = al.artist_name GROUP BY a.name HAVING COUNT(*) > 5"},
		{ID: "notin", DB: "music", SQL: "SELECT name FROM artist WHERE name NOT IN (SELECT artist_name FROM album)"},
	}
	want := map[string]string{ // task -> the mutant (kind: text) the original cannot tell
		"orphan":    "join_type:LEFT JOIN",
		"childless": "join_type:JOIN album",
		"having":    "flip_comparison:>= 5",
		"notin":     "wrong_column:SELECT producer FROM album",
	}
	generateAndCheckKills(t, "music", path, tasks, want, 1)
}

// TestLinksResolveAliasesAndSubqueries reads the equalities a gold
// matches two tables' rows by.
func TestLinksResolveAliasesAndSubqueries(t *testing.T) {
	s := &sqlgym.Schema{Tables: []sqlgym.Table{
		{Name: "artist", Columns: []sqlgym.Column{{Name: "name", Type: "TEXT"}, {Name: "country", Type: "TEXT"}}},
		{Name: "album", Columns: []sqlgym.Column{{Name: "title", Type: "TEXT"}, {Name: "artist_name", Type: "TEXT"}, {Name: "sales", Type: "INTEGER"}}},
	}}
	cases := map[string][]link{
		"SELECT a.name FROM artist AS a JOIN album al ON a.name = al.artist_name":                  {{a: "artist", ac: "name", b: "album", bc: "artist_name"}},
		"SELECT name FROM artist, album WHERE artist_name = name AND sales > 3":                    {{a: "album", ac: "artist_name", b: "artist", bc: "name"}},
		"SELECT name FROM artist WHERE name NOT IN (SELECT DISTINCT album.artist_name FROM album)": {{a: "artist", ac: "name", b: "album", bc: "artist_name"}},
		"SELECT name FROM artist WHERE country = 'Peru'":                                           nil,
		"SELECT a.name FROM artist AS a JOIN album al ON a.name = lower(al.artist_name)":           nil,
	}
	for sql, want := range cases {
		got := goldLinks(sql, s)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: links %v, want %v", sql, got, want)
		}
	}
}

// TestJoinEditsKeepOneToOneColumns: a column whose data never repeats a
// value gets no edit that would make two rows share one (no row moved to
// another's value, no group grown), while rows may still be deleted.
func TestJoinEditsKeepOneToOneColumns(t *testing.T) {
	s := &sqlgym.Schema{Tables: []sqlgym.Table{
		{Name: "people", Rows: 5, Columns: []sqlgym.Column{{Name: "people_id", Type: "INTEGER"}, {Name: "name", Type: "TEXT"}}},
		{Name: "poker_player", Rows: 5, Columns: []sqlgym.Column{{Name: "people_id", Type: "INTEGER"}, {Name: "earnings", Type: "REAL"}}},
	}}
	gold := "SELECT p.name FROM people AS p JOIN poker_player AS pp ON p.people_id = pp.people_id GROUP BY p.name HAVING COUNT(*) > 1"
	comps, ths := compsOf([]string{gold}, s)
	for _, repeated := range []bool{false, true} {
		cons := &constraints.Set{Columns: map[string]constraints.Facts{
			"people.people_id":       {Distinct: 5},
			"poker_player.people_id": {Distinct: 5, Duplicates: repeated},
		}}
		p := &planner{schema: s, rng: rand.New(rand.NewPCG(1, 1)), comps: comps, ths: append(ths, screen.Threshold{N: 1}), cons: cons}
		fams := p.joinEdits(gold)
		var sharing []string
		for _, f := range fams[1:2] {
			for _, g := range f {
				sharing = append(sharing, g.what)
			}
		}
		for _, g := range fams[3] {
			sharing = append(sharing, g.what)
		}
		if len(fams[0]) == 0 {
			t.Errorf("repeated=%v: no deletion planned", repeated)
		}
		switch {
		case !repeated && len(sharing) > 0:
			t.Errorf("one-to-one columns got edits that share a value: %v", sharing)
		case repeated && !slices.ContainsFunc(sharing, func(w string) bool { return strings.HasPrefix(w, "rematch poker_player") }):
			t.Errorf("a column that repeats in the data got no move: %v", sharing)
		}
	}
}

// TestJoinEditsEmptyTheJoin: INNER against LEFT JOIN under ORDER BY
// bonus DESC LIMIT 1 differs only when fewer rows match than the LIMIT
// (an employee without evaluation sorts last): deleting one employee's
// evaluations does not tell them apart, deleting every matched
// evaluation does (the gold returns nothing, the LEFT JOIN an employee).
// Without the "unmatch every" edit the test fails.
func TestJoinEditsEmptyTheJoin(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hire.sqlite")
	stmts := []string{
		`CREATE TABLE employee (employee_id INTEGER PRIMARY KEY, name TEXT NOT NULL)`,
		`CREATE TABLE evaluation (employee_id INTEGER NOT NULL REFERENCES employee (employee_id), year_awarded TEXT NOT NULL, bonus REAL NOT NULL)`,
		`INSERT INTO employee VALUES (1, 'Ann'), (2, 'Bob'), (3, 'Cid'), (4, 'Dee'), (5, 'Eve')`,
		`INSERT INTO evaluation VALUES (1, '2011', 3000), (2, '2012', 3200), (1, '2013', 2900), (3, '2014', 3100)`,
	}
	if err := sqlite.Create(context.Background(), path, stmts); err != nil {
		t.Fatal(err)
	}
	tasks := []sqlgym.Task{{ID: "top", DB: "hire",
		SQL: "SELECT t1.name FROM employee AS t1 JOIN evaluation AS t2 ON t1.employee_id = t2.employee_id ORDER BY t2.bonus DESC LIMIT 1"}}
	generateAndCheckKills(t, "hire", path, tasks, map[string]string{"top": "join_type:LEFT JOIN"}, 1)
}

// TestJoinEditsDetachTheLargestGroup: grouped by a nullable declared
// foreign key and ordered by COUNT(*) DESC LIMIT 1, INNER and LEFT JOIN
// to the parent differ only when the NULL group is the largest: the
// concerts of the busiest stadium set to NULL (a concert of unknown
// stadium, which the declared key allows) tell them apart. No NULL elsewhere in
// the data, and no other edit makes a NULL group that large: without the
// "detach" edit the test fails.
func TestJoinEditsDetachTheLargestGroup(t *testing.T) {
	path := filepath.Join(t.TempDir(), "concerts.sqlite")
	stmts := []string{
		`CREATE TABLE stadium (stadium_id INTEGER PRIMARY KEY, name TEXT NOT NULL)`,
		`CREATE TABLE concert (concert_id INTEGER PRIMARY KEY, stadium_id INTEGER REFERENCES stadium (stadium_id), year TEXT NOT NULL)`,
		`INSERT INTO stadium VALUES (1, 'Hampden'), (2, 'Ibrox'), (3, 'Parkhead')`,
		`INSERT INTO concert VALUES (1, 1, '2014'), (2, 1, '2014'), (3, 1, '2015'), (4, 1, '2015'), (5, 2, '2014'), (6, 2, '2015'), (7, 3, '2014')`,
	}
	if err := sqlite.Create(context.Background(), path, stmts); err != nil {
		t.Fatal(err)
	}
	tasks := []sqlgym.Task{{ID: "busiest", DB: "concerts",
		SQL: "SELECT T2.name FROM concert AS T1 JOIN stadium AS T2 ON T1.stadium_id = T2.stadium_id GROUP BY T1.stadium_id ORDER BY count(*) DESC LIMIT 1"}}
	generateAndCheckKills(t, "concerts", path, tasks, map[string]string{"busiest": "join_type:LEFT JOIN"}, 1)
}
