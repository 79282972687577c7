package catalog_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/catalog"
	"github.com/sqlgym/sqlgym/engine/sqlite"
	"github.com/sqlgym/sqlgym/shopdb"
)

// The shipped shop variants materialise as the shop plus their statements:
// each file holds the same rows as a copy of the shop edited with them, and
// differs from the shop itself.
func TestMaterializeShopVariants(t *testing.T) {
	vs, err := shopdb.Variants()
	if err != nil {
		t.Fatal(err)
	}
	if len(vs.Variants) == 0 {
		t.Fatal("the built-in shop ships no variants (shopdb/variants.json)")
	}
	dir := t.TempDir()
	paths, err := catalog.MaterializeShopVariants(dir)
	if err != nil {
		t.Fatal(err)
	}
	again, err := catalog.MaterializeShopVariants(dir)
	if err != nil || fmt.Sprint(again) != fmt.Sprint(paths) {
		t.Fatalf("second call: %v, %v; want the same files", again, err)
	}
	shop, err := catalog.MaterializeShop(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	counts := func(path string) string {
		eng, err := sqlite.Open(path, sqlite.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer eng.Close()
		rs, err := eng.Query(ctx, "SELECT (SELECT COUNT(*) FROM customers), (SELECT COUNT(*) FROM orders), (SELECT COUNT(*) FROM order_items), "+
			"(SELECT COUNT(*) FROM reviews), (SELECT SUM(total_amount) FROM orders), (SELECT COUNT(*) FROM customers WHERE city IS NULL)", sqlgym.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		return fmt.Sprint(rs.Rows)
	}
	base := counts(shop)
	for i, v := range vs.Variants {
		edited := filepath.Join(t.TempDir(), "edited.sqlite")
		if err := sqlite.Create(ctx, edited, shopdb.Statements()); err != nil {
			t.Fatal(err)
		}
		applied, err := sqlite.Edit(ctx, edited, v.Statements)
		if err != nil {
			t.Fatal(err)
		}
		for j, ok := range applied {
			if !ok {
				t.Errorf("%s: statement %d no longer applies: %s", v.Name, j+1, v.Statements[j])
			}
		}
		got, want := counts(paths[i]), counts(edited)
		if got != want {
			t.Errorf("%s: materialised %s, edited copy %s", v.Name, got, want)
		}
		if got == base {
			t.Errorf("%s holds the shop's own counts %s", v.Name, got)
		}
	}
}
