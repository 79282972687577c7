package mysql

import (
	"context"
	"path/filepath"
	"sort"
	"testing"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/engine/sqlite"
	"github.com/sqlgym/sqlgym/internal/testenv"
	"github.com/sqlgym/sqlgym/shopdb"
	"github.com/sqlgym/sqlgym/verify/compare"
)

// shopDifferences are the shop golds whose MariaDB result differs from
// SQLite's, with the documented rule that explains each.
var shopDifferences = map[string]string{
	// COUNT(DISTINCT first_name): 72 on MariaDB, 74 on SQLite.
	"shop_aggregate_63c58e40": "the default collation utf8mb4_general_ci ignores accents and case: Chloe = Chloé, Lea = Léa",
}

// TestShopGolds loads the shop through Load (the path of `db create
// --engine mysql`) and runs its 1,000 golds on MariaDB and on SQLite. No
// gold may fail on MariaDB; the multiset verdicts that differ from
// SQLite's are logged by cause, and each must be one of MySQL's
// documented rules (docs/sandbox-mysql.md).
func TestShopGolds(t *testing.T) {
	admin := testenv.MySQL(t)
	name := testenv.UniqueName("sqlgym_shop")
	t.Cleanup(func() { testenv.MySQLExec(t, admin, "DROP DATABASE IF EXISTS `"+name+"`") })
	ctx := context.Background()
	if err := Load(ctx, admin, name, false, shopdb.Statements()); err != nil {
		t.Fatal(err)
	}
	if err := Load(ctx, admin, name, false, shopdb.Statements()); err == nil {
		t.Fatal("Load over a database holding tables succeeded without replace")
	}
	// Reading as the administrator is fine here: the golds are trusted.
	my, err := Open(ctx, testenv.MySQLWithDB(t, admin, name), Options{SkipAccountCheck: true})
	if err != nil {
		t.Fatal(err)
	}
	defer my.Close()
	path := filepath.Join(t.TempDir(), "shop.sqlite")
	if err := sqlite.Create(ctx, path, shopdb.Statements()); err != nil {
		t.Fatal(err)
	}
	lite, err := sqlite.Open(path, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer lite.Close()
	tasks, err := shopdb.Tasks()
	if err != nil {
		t.Fatal(err)
	}
	failed, differ := 0, map[string][]string{}
	otherModes := map[compare.Mode][]string{}
	for _, task := range tasks {
		want, err := lite.Query(ctx, task.SQL, sqlgym.Limits{})
		if err != nil {
			t.Fatalf("%s on SQLite: %v", task.ID, err)
		}
		got, err := my.Query(ctx, task.GoldFor(sqlgym.DialectMySQL), sqlgym.Limits{})
		if err != nil {
			failed++
			t.Errorf("%s fails on MariaDB: %v\n%s", task.ID, err, task.GoldFor(sqlgym.DialectMySQL))
			continue
		}
		for _, m := range []compare.Mode{compare.Bird, compare.Strict, compare.F1} {
			if !compare.Compare(m, got, want, compare.Options{}).Match {
				otherModes[m] = append(otherModes[m], task.ID)
			}
		}
		if v := compare.Compare(compare.Multiset, got, want, compare.Options{}); !v.Match {
			differ[v.Why] = append(differ[v.Why], task.ID)
			if shopDifferences[task.ID] == "" {
				t.Errorf("%s: a difference from SQLite no documented MySQL rule explains", task.ID)
			}
			t.Logf("%s differs (%s):\n  %s\n  MariaDB %v\n  SQLite  %v", task.ID, v.Why, task.GoldFor(sqlgym.DialectMySQL), head(got), head(want))
		}
	}
	var whys []string
	total := 0
	for why, ids := range differ {
		whys = append(whys, why)
		total += len(ids)
	}
	sort.Strings(whys)
	for _, why := range whys {
		t.Logf("%d golds differ from SQLite (%s), e.g. %v", len(differ[why]), why, differ[why][:min(3, len(differ[why]))])
	}
	for m, ids := range otherModes {
		t.Logf("mode %s: %d golds differ from SQLite, e.g. %v", m, len(ids), ids[:min(5, len(ids))])
	}
	t.Logf("%d golds: %d fail on MariaDB, %d multiset verdicts differ from SQLite", len(tasks), failed, total)
}

func head(r *sqlgym.ResultSet) [][]sqlgym.Value {
	return r.Rows[:min(3, len(r.Rows))]
}

// TestDescribeShop reads the shop's schema back through the sandbox as a
// SELECT-only account: every table, its row count, keys and foreign keys.
func TestDescribeShop(t *testing.T) {
	dsn, _ := testenv.MySQLReader(t, shopdb.Statements())
	eng, err := Open(context.Background(), dsn, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	s, err := eng.Describe(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Tables) != shopdb.NumTables {
		t.Fatalf("%d tables, want %d", len(s.Tables), shopdb.NumTables)
	}
	orders := s.Table("orders")
	if orders == nil || orders.Rows != shopdb.Orders || len(orders.PrimaryKey) != 1 || len(orders.ForeignKeys) == 0 {
		t.Fatalf("orders described as %+v", orders)
	}
	if fk := orders.ForeignKeys[0]; fk.RefTable != "customers" || len(fk.Columns) != 1 {
		t.Errorf("orders' foreign key %+v, want one column to customers", fk)
	}
}
