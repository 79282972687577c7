package variants

import (
	"context"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/engine/sqlite"
)

// A task whose gold reads a foreign key that a variant leaves NULL, where
// the original holds none, keeps that variant beside its killers, though
// the variant kills none of its mutants: it is what tells the gold's
// EXCEPT from an answer's NOT IN over the column (Spider's "stadiums
// without a concert in 2014"). A task that does not read the column, and
// one the variant is not fair to, do not get it.
func TestTasksKeepVariantsWithANullKeyTheyRead(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	base := []string{
		`CREATE TABLE stadium (stadium_id INTEGER PRIMARY KEY, name TEXT)`,
		`CREATE TABLE concert (concert_id INTEGER PRIMARY KEY, stadium_id INTEGER REFERENCES stadium(stadium_id), year INTEGER)`,
		`INSERT INTO stadium VALUES (1, 'a'), (2, 'b'), (3, 'c')`,
		`INSERT INTO concert VALUES (1, 1, 2014), (2, 2, 2014), (3, 2, 2015)`,
	}
	write := func(name string, extra ...string) string {
		p := filepath.Join(dir, name+".sqlite")
		if err := sqlite.Create(ctx, p, append(slices.Clone(base), extra...)); err != nil {
			t.Fatal(err)
		}
		return p
	}
	orig := write("toy")
	v1 := "sqlite:" + write("toy_v1", `INSERT INTO concert VALUES (4, NULL, 2014)`)
	v2 := "sqlite:" + write("toy_v2", `INSERT INTO stadium VALUES (4, 'd')`)
	k := keysOf(t, toyCatalog(t, orig), "toy")

	nulls, err := nullKeys(ctx, "sqlite:"+orig, []string{v1, v2}, k.cons.ForeignKeys)
	if err != nil {
		t.Fatal(err)
	}
	if want := [][]nullKey{{{"concert", "stadium_id"}}, nil}; !reflect.DeepEqual(nulls, want) {
		t.Fatalf("nullKeys = %v, want %v", nulls, want)
	}

	except := "SELECT name FROM stadium EXCEPT SELECT T2.name FROM concert AS T1 JOIN stadium AS T2 ON T1.stadium_id = T2.stadium_id WHERE T1.year = 2014"
	tasks := []sqlgym.Task{
		{ID: "y2014", DB: "toy", SQL: except, DBVariants: []string{v1, v2}},
		{ID: "names", DB: "toy", SQL: "SELECT name FROM stadium ORDER BY name", DBVariants: []string{v1, v2}},
		{ID: "unfair", DB: "toy", SQL: except, DBVariants: []string{v2}},
	}
	vars := []Kept{{Name: "toy_v1"}, {Name: "toy_v2"}}
	urls := []string{"toy", v1, v2}
	killedBy := map[string]string{"names\x00m1": "toy_v2"}

	got := slices.Clone(tasks)
	taskVariants(got, sqlgym.DialectSQLite, "toy", vars, urls, killedBy, nulls, false)
	want := [][]string{{v1}, {v2}, {"toy"}}
	for i, w := range want {
		if !slices.Equal(got[i].DBVariants, w) {
			t.Errorf("task %s lists %v, want %v", got[i].ID, got[i].DBVariants, w)
		}
	}

	// The NULL is what tells the NOT IN answer from the gold: on the
	// variant the answer is empty and the gold is not.
	eng, err := openCandidate(ctx, v1)
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	answer := "SELECT name FROM stadium WHERE stadium_id NOT IN (SELECT stadium_id FROM concert WHERE year = 2014)"
	for q, rows := range map[string]int{except: 1, answer: 0} {
		rs, err := eng.Query(ctx, q, sqlgym.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		if len(rs.Rows) != rows {
			t.Errorf("%s: %d rows on the variant, want %d", q, len(rs.Rows), rows)
		}
	}
}
