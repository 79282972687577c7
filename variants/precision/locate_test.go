package precision

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/engine"
	"github.com/sqlgym/sqlgym/engine/sqlite"
)

// TestLocateFindsTheVariantThatFlipped builds two real SQLite variants of
// a singer table: on v1 the ages hold no NULL, on v2 the youngest singer's
// age is NULL. MIN(age) and the gold's ORDER BY age LIMIT 1 agree on v1
// and part on v2.
func TestLocateFindsTheVariantThatFlipped(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	mk := func(name string, rows ...string) string {
		p := filepath.Join(dir, name+".sqlite")
		stmts := []string{"CREATE TABLE singer (id INTEGER PRIMARY KEY, name TEXT, age INTEGER)"}
		for _, r := range rows {
			stmts = append(stmts, "INSERT INTO singer VALUES "+r)
		}
		if err := sqlite.Create(ctx, p, stmts); err != nil {
			t.Fatal(err)
		}
		return "sqlite:" + p
	}
	v1 := mk("db_v1", "(1, 'Joe', 52)", "(2, 'Tribal', 25)")
	v2 := mk("db_v2", "(1, 'Joe', NULL)", "(2, 'Tribal', 25)")
	task := sqlgym.Task{ID: "t1", DB: "db", Question: "Who is the youngest singer?",
		SQL: "SELECT name FROM singer ORDER BY age LIMIT 1", DBVariants: []string{v1, v2}}
	flip := func(sql string) Flip { return Flip{TaskID: "t1", System: "s", SQL: sql, SQLSHA256: SQLHash(sql)} }
	flips := []Flip{
		flip("SELECT name FROM singer WHERE age = (SELECT MIN(age) FROM singer)"),
		flip("SELECT nme FROM singer"),
		flip("SELECT name FROM singer ORDER BY age LIMIT 1"),
	}
	open := func(ctx context.Context, url string) (sqlgym.Engine, error) {
		return engine.Open(ctx, url, engine.Options{})
	}
	got, err := Locate(ctx, flips, map[string]sqlgym.Task{"t1": task}, open)
	if err != nil {
		t.Fatal(err)
	}
	if l := got[0]; l.Variant != "db_v2" || l.Why == "" || len(l.GoldRows) != 1 || l.GoldRows[0][0] != "Joe" || l.AnswerRows[0][0] != "Tribal" {
		t.Errorf("MIN(age) answer: %+v, want it told apart on db_v2 (gold Joe, answer Tribal)", l)
	}
	if l := got[1]; l.Variant != "db_v1" || !strings.Contains(l.Error, "nme") {
		t.Errorf("failing answer: %+v, want its error on the first variant", l)
	}
	if l := got[2]; l.Variant != "" || l.Question != task.Question {
		t.Errorf("the gold's own text: %+v, want no variant", l)
	}
	if _, err := Locate(ctx, []Flip{{TaskID: "t9"}}, map[string]sqlgym.Task{"t1": task}, open); err == nil {
		t.Error("a flip of an unknown task was accepted")
	}
}
