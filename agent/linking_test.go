package agent

import (
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/link"
	"github.com/sqlgym/sqlgym/verify"
)

// A linked opening prompt shows some tables; the tools still know all.
func TestLinkedOpeningKeepsEveryTableForTheTools(t *testing.T) {
	task := sqlgym.Task{ID: "r", DB: "shop", Question: "How many reviews are there?", SQL: "SELECT count(*) FROM reviews"}
	env := newEnv(t, Config{}, verify.Config{}, task)
	env.SetSchema(link.NewSource(link.ModeLinked, link.Options{}, 3))
	ep := start(t, env, task)
	var opening string
	for _, m := range ep.Opening() {
		opening += m.Content
	}
	if n := strings.Count(opening, "CREATE TABLE"); n == 0 || n >= 8 || !strings.Contains(opening, "CREATE TABLE reviews") {
		t.Fatalf("linked opening shows %d tables:\n%s", n, opening)
	}
	if got := len(ep.Schema().Tables); got != 8 {
		t.Fatalf("the tools see %d tables, want all 8", got)
	}
	if list := listTables(ep.Schema()); !strings.Contains(list, "payments") {
		t.Fatalf("list_tables lacks a table the prompt left out: %s", list)
	}
}
