package variants

import (
	"slices"
	"testing"

	"github.com/sqlgym/sqlgym"
)

// A build gets the guards on the tables its statements write and on their
// children (foreign-key actions write those); a statement not read as a
// write, or a file with triggers of its own, gets every guard.
func TestGuardFilterKeepsTheWrittenTablesGuards(t *testing.T) {
	for stmt, want := range map[string]string{
		`WITH RECURSIVE sg_n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM sg_n WHERE i < 2) INSERT INTO "Stadium" ("x") SELECT i FROM sg_n`: "stadium",
		`UPDATE "singer" SET "age" = 3 WHERE rowid = (SELECT rowid FROM "concert" LIMIT 1)`:                                                "singer",
		`DELETE FROM "order_items" WHERE rowid IN (1,2)`:                                                                                   "order_items",
		`INSERT OR IGNORE INTO main."we""ird" VALUES (1)`:                                                                                  `we"ird`,
		`UPDATE OR REPLACE [t] SET a = 1`:                                                                                                  "t",
		`SELECT 1`:                                                                                                                         "",
		`INSERT INTO (SELECT 1)`:                                                                                                           "",
	} {
		if got := writtenTable(stmt); got != want {
			t.Errorf("writtenTable(%q) = %q, want %q", stmt, got, want)
		}
	}
	schema := &sqlgym.Schema{Tables: []sqlgym.Table{
		{Name: "customers"},
		{Name: "orders", ForeignKeys: []sqlgym.ForeignKey{{Columns: []string{"customer_id"}, RefTable: "customers", RefColumns: []string{"customer_id"}}}},
		{Name: "items", ForeignKeys: []sqlgym.ForeignKey{{Columns: []string{"order_id"}, RefTable: "orders", RefColumns: []string{"order_id"}}}},
		{Name: "notes"},
	}}
	guard := func(table string) string {
		return "CREATE TEMP TRIGGER sg_guard_1 AFTER INSERT ON main." + quoteIdent(table) + " WHEN NEW.x IS NULL BEGIN SELECT RAISE(ABORT, 'x'); END"
	}
	all := []string{guard("customers"), guard("orders"), guard("items"), guard("notes")}
	f := newGuardFilter(all, schema, false)
	if got := f.forStmts([]string{`DELETE FROM "customers" WHERE rowid = 1`}); !slices.Equal(got, all[:3]) {
		t.Errorf("a deletion from customers: %d guards %v, want those of customers, orders and items", len(got), got)
	}
	if got := f.forStmts([]string{`UPDATE "notes" SET x = 1`}); !slices.Equal(got, all[3:]) {
		t.Errorf("an update of notes: %v, want its guard alone", got)
	}
	if got := f.forStmts([]string{`UPDATE "notes" SET x = 1`, `SELECT 1`}); !slices.Equal(got, all) {
		t.Errorf("with a statement not read: %d guards, want all", len(got))
	}
	if got := newGuardFilter(all, schema, true).forStmts([]string{`UPDATE "notes" SET x = 1`}); !slices.Equal(got, all) {
		t.Errorf("a file with triggers of its own: %d guards, want all", len(got))
	}
}
