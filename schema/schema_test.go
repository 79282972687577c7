package schema_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/engine/sqlite"
	"github.com/sqlgym/sqlgym/internal/testenv"
	"github.com/sqlgym/sqlgym/schema"
	"github.com/sqlgym/sqlgym/shopdb"
)

func TestShopSchemaOnSQLite(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "shop.sqlite")
	if err := sqlite.Create(ctx, path, shopdb.Statements()); err != nil {
		t.Fatal(err)
	}
	eng, err := sqlite.Open(path, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	s, err := schema.Load(ctx, eng, 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Tables) != 8 {
		t.Fatalf("%d tables, want 8", len(s.Tables))
	}
	orders := s.Table("orders")
	if orders == nil || orders.Rows != 300 || len(orders.PrimaryKey) != 1 || orders.PrimaryKey[0] != "order_id" {
		t.Fatalf("orders: %+v", orders)
	}
	fkToCustomers := false
	for _, fk := range orders.ForeignKeys {
		if fk.RefTable == "customers" && len(fk.RefColumns) == 1 && fk.RefColumns[0] != "" {
			fkToCustomers = true
		}
	}
	if !fkToCustomers {
		t.Fatalf("orders has no foreign key to customers: %+v", orders.ForeignKeys)
	}
	for _, c := range orders.Columns {
		if len(c.Samples) == 0 {
			t.Errorf("orders.%s has no sample values", c.Name)
		}
	}
	ddl := schema.Render(s, schema.Options{})
	for _, want := range []string{"CREATE TABLE orders (", "PRIMARY KEY (order_id)", "REFERENCES customers", "-- e.g. "} {
		if !strings.Contains(ddl, want) {
			t.Errorf("rendered schema lacks %q", want)
		}
	}
	only := schema.Render(s, schema.Options{Tables: []string{"orders"}})
	if strings.Contains(only, "CREATE TABLE customers") || !strings.Contains(only, "CREATE TABLE orders") {
		t.Fatalf("table filter ignored:\n%s", only)
	}
}

func TestSpiderSchemaWithImplicitForeignKey(t *testing.T) {
	data := testenv.SharedData(t)
	path := testenv.CopyFile(t, filepath.Join(data, "spider_dev", "database", "concert_singer", "concert_singer.sqlite"))
	eng, err := sqlite.Open(path, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	s, err := schema.Load(context.Background(), eng, 2)
	if err != nil {
		t.Fatal(err)
	}
	if s.Table("singer") == nil || s.Table("singer").Rows != 6 {
		t.Fatalf("singer: %+v", s.Table("singer"))
	}
	for _, tb := range s.Tables {
		for _, fk := range tb.ForeignKeys {
			for _, rc := range fk.RefColumns {
				if rc == "" {
					t.Errorf("%s: foreign key to %s with an unresolved column", tb.Name, fk.RefTable)
				}
			}
		}
	}
}
