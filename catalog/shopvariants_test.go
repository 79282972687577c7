package catalog_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
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

// Each shop task is judged on the shipped variants its list names, in the
// set's order after the shop; a task the set does not name, and every
// other database, on all of them; without --variants, on the shop alone.
func TestShopTasksGetTheirOwnShippedVariants(t *testing.T) {
	vs, err := shopdb.Variants()
	if err != nil {
		t.Fatal(err)
	}
	if len(vs.Tasks) == 0 {
		t.Fatal("the shipped shop variants carry no per-task lists (regenerate with go generate ./shopdb)")
	}
	cache := t.TempDir()
	cat, err := catalog.New(catalog.Config{CacheDir: cache, ShopVariants: true})
	if err != nil {
		t.Fatal(err)
	}
	defer cat.Close()
	all, err := cat.Variants("shop")
	if err != nil || len(all) != len(vs.Variants)+1 {
		t.Fatalf("shop variants %v, %v", all, err)
	}
	byName := map[string]string{}
	for i, v := range vs.Variants {
		byName[v.Name] = all[i+1]
	}
	fewer, alone := 0, 0
	for id, names := range vs.Tasks {
		got, err := cat.TaskVariants("shop", id)
		if err != nil {
			t.Fatal(err)
		}
		want := []string{all[0]}
		for _, v := range vs.Variants {
			if slices.Contains(names, v.Name) {
				want = append(want, byName[v.Name])
			}
		}
		if !slices.Equal(got, want) {
			t.Fatalf("task %s (list %v): judged on %v, want %v", id, names, got, want)
		}
		if len(got) < len(all) {
			fewer++
		}
		if len(got) == 1 {
			alone++
		}
	}
	if fewer == 0 || alone == 0 {
		t.Errorf("%d of %d tasks on fewer than every variant, %d on the shop alone: the lists narrow nothing", fewer, len(vs.Tasks), alone)
	}
	if got, err := cat.TaskVariants("shop", "not-a-shipped-task"); err != nil || !slices.Equal(got, all) {
		t.Errorf("a task the set does not name: %v, %v; want every variant", got, err)
	}
	plain, err := catalog.New(catalog.Config{CacheDir: cache})
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	for id := range vs.Tasks {
		if got, err := plain.TaskVariants("shop", id); err != nil || len(got) != 1 {
			t.Errorf("without --variants, task %s: %v, %v; want the shop alone", id, got, err)
		}
		break
	}
}
