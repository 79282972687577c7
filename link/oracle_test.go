package link

import (
	"slices"
	"testing"

	"github.com/sqlgym/sqlgym"
)

var concert = &sqlgym.Schema{Tables: []sqlgym.Table{
	{Name: "singer", Columns: []sqlgym.Column{{Name: "singer_id"}, {Name: "name"}, {Name: "country"}, {Name: "age"}}},
	{Name: "concert", Columns: []sqlgym.Column{{Name: "concert_id"}, {Name: "concert_name"}, {Name: "stadium_id"}, {Name: "year"}}},
	{Name: "singer_in_concert", Columns: []sqlgym.Column{{Name: "concert_id"}, {Name: "singer_id"}}},
	{Name: "stadium", Columns: []sqlgym.Column{{Name: "stadium_id"}, {Name: "name"}, {Name: "capacity"}}},
}}

func TestParseAliasesJoinsAndSubqueries(t *testing.T) {
	for _, c := range []struct {
		sql            string
		tables, column []string
	}{
		{`SELECT T2.name FROM singer_in_concert AS T1 JOIN singer AS T2 ON T1.singer_id = T2.singer_id WHERE T1.concert_id = 3`,
			[]string{"singer", "singer_in_concert"},
			[]string{"singer.name", "singer.singer_id", "singer_in_concert.concert_id", "singer_in_concert.singer_id"}},
		{`SELECT name FROM stadium WHERE stadium_id NOT IN (SELECT stadium_id FROM concert WHERE year = 2014)`,
			[]string{"concert", "stadium"},
			[]string{"concert.stadium_id", "concert.year", "stadium.name", "stadium.stadium_id"}},
		{`SELECT count(*) FROM singer, concert c WHERE c.year > 2000 AND singer.age > 30`,
			[]string{"singer", "concert"}, []string{"concert.year", "singer.age"}},
		{`WITH big AS (SELECT * FROM stadium WHERE capacity > 5000) SELECT name FROM big -- FROM concert`,
			[]string{"stadium"}, []string{"stadium.capacity", "stadium.name"}},
		{`SELECT "Name" FROM "singer" WHERE country = 'concert'`,
			[]string{"singer"}, []string{"singer.country", "singer.name"}},
	} {
		u := Parse(c.sql, concert)
		if !sameSet(u.Tables, c.tables) {
			t.Errorf("%s\ntables %v, want %v", c.sql, u.Tables, c.tables)
		}
		if !sameSet(u.Columns, c.column) {
			t.Errorf("%s\ncolumns %v, want %v", c.sql, u.Columns, c.column)
		}
	}
}

func TestOracleKeepsExactlyTheGoldsTables(t *testing.T) {
	db := NewDatabase(concert)
	sel := db.Oracle(`SELECT T2.name FROM singer_in_concert AS T1 JOIN singer AS T2 ON T1.singer_id = T2.singer_id`)
	if got := sel.TableNames(); !slices.Equal(got, []string{"singer", "singer_in_concert"}) || sel.Mode != ModeOracle {
		t.Fatalf("oracle kept %v (%s)", got, sel.Mode)
	}
}

func TestRenameTablesLeavesAliasesColumnsAndLiterals(t *testing.T) {
	got := RenameTables(`SELECT T1.name, singer.age FROM singer AS T1 JOIN concert ON concert.year = 1 WHERE T1.name = 'singer'`,
		concert, func(n string) string { return MergedName("cs", n) })
	want := `SELECT T1.name, cs__singer.age FROM cs__singer AS T1 JOIN cs__concert ON cs__concert.year = 1 WHERE T1.name = 'singer'`
	if got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}

func TestMeasureRecall(t *testing.T) {
	sel := &Selection{TotalTables: 4, FullChars: 400, Chars: 100, Tables: []Table{{Name: "singer", Columns: []Column{{Name: "name"}}}}}
	sc, ok := Measure(sel, Used{Tables: []string{"singer", "concert"}, Columns: []string{"singer.name", "singer.age", "concert.year"}})
	if !ok || sc.AllTables || sc.TableRecall != 0.5 || sc.ColumnRecall != 2.0/3 || sc.MarkedRecall != 1.0/3 || sc.TablesShare != 0.25 || sc.CharsShare != 0.25 || sc.Precision != 1 {
		t.Fatalf("%+v", sc)
	}
	if _, ok := Measure(sel, Used{}); ok {
		t.Error("a gold naming no table was measured")
	}
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}
