package postgres

import (
	"context"
	"testing"

	"github.com/sqlgym/sqlgym/shopdb"
)

func TestDescribeShop(t *testing.T) {
	s := newSandbox(t, shopdb.Statements())
	eng := s.open(t, Options{})
	sc, err := eng.Describe(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(sc.Tables) != 8 {
		t.Fatalf("%d tables", len(sc.Tables))
	}
	o := sc.Table("orders")
	if o == nil || o.Rows != 300 || len(o.PrimaryKey) != 1 || o.PrimaryKey[0] != "order_id" || len(o.Columns) != 5 {
		t.Fatalf("orders: %+v", o)
	}
	if len(o.ForeignKeys) != 1 || o.ForeignKeys[0].RefTable != "customers" || o.ForeignKeys[0].Columns[0] != "customer_id" || o.ForeignKeys[0].RefColumns[0] != "customer_id" {
		t.Fatalf("orders foreign keys: %+v", o.ForeignKeys)
	}
	if o.Columns[4].Type != "numeric(10,2)" || !o.Columns[4].NotNull {
		t.Fatalf("total_amount: %+v", o.Columns[4])
	}
}
