package benchdb_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/benchdb"
	"github.com/sqlgym/sqlgym/engine/sqlite"
)

// generate writes a small database into a temporary folder.
func generate(t testing.TB, cfg benchdb.Config) benchdb.Stats {
	t.Helper()
	st, err := benchdb.Generate(context.Background(), filepath.Join(t.TempDir(), "bench.sqlite"), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func TestGenerateIsDeterministic(t *testing.T) {
	cfg := benchdb.Config{Seed: 7, Size: 1 << 20}
	a, b := generate(t, cfg), generate(t, cfg)
	da, err := sqlgym.FileDigest(a.Path)
	if err != nil {
		t.Fatal(err)
	}
	db, err := sqlgym.FileDigest(b.Path)
	if err != nil {
		t.Fatal(err)
	}
	if da != db {
		t.Fatalf("same seed, different files: %s vs %s", da, db)
	}
	c := generate(t, benchdb.Config{Seed: 8, Size: 1 << 20})
	dc, err := sqlgym.FileDigest(c.Path)
	if err != nil {
		t.Fatal(err)
	}
	if dc == da {
		t.Fatal("seeds 7 and 8 gave the same file")
	}
}

func TestGenerateSize(t *testing.T) {
	for _, size := range []int64{1 << 20, 4 << 20} {
		st := generate(t, benchdb.Config{Seed: 1, Size: size})
		t.Logf("target %d, got %d bytes in %s, rows %v", size, st.Bytes, st.Took, st.Rows)
		if r := float64(st.Bytes) / float64(size); r < 0.85 || r > 1.15 {
			t.Errorf("target %d bytes, file %d (%.2fx)", size, st.Bytes, r)
		}
		for _, table := range benchdb.Tables {
			if st.Rows[table] == 0 {
				t.Errorf("%s is empty", table)
			}
		}
	}
}

func TestGenerateRefusesBadSizes(t *testing.T) {
	for _, size := range []int64{1, benchdb.MaxSize + 1} {
		if _, err := benchdb.Generate(context.Background(), filepath.Join(t.TempDir(), "x.sqlite"), benchdb.Config{Size: size}); err == nil {
			t.Errorf("size %d accepted", size)
		}
	}
}

// The data holds what the tasks' wrong answers rely on to be wrong.
func TestGenerateHoldsTheTraps(t *testing.T) {
	st := generate(t, benchdb.Config{Seed: 1, Size: 1 << 20})
	eng, err := sqlite.Open(st.Path, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	for _, c := range []struct{ what, sql string }{
		{"customers without a city", "SELECT count(*) FROM customers WHERE city IS NULL"},
		{"e-mails with capitals", "SELECT count(*) FROM customers WHERE email <> lower(email)"},
		{"namesakes", "SELECT count(*) FROM (SELECT first_name, last_name FROM customers GROUP BY 1, 2 HAVING count(*) > 1)"},
		{"product names in several categories", "SELECT count(*) FROM (SELECT name FROM products GROUP BY name HAVING count(DISTINCT category) > 1)"},
		{"items without a discount", "SELECT count(*) FROM order_items WHERE discount IS NULL"},
		{"failed payments", "SELECT count(*) FROM payments WHERE status = 'failed' AND paid_at IS NULL"},
		{"customers who never ordered", "SELECT count(*) FROM customers WHERE customer_id NOT IN (SELECT customer_id FROM orders)"},
		{"orders on New Year's Eve after midnight", "SELECT count(*) FROM orders WHERE order_date > '2023-12-31' AND order_date < '2024-01-01'"},
		{"reviews without text", "SELECT count(*) FROM reviews WHERE review_text IS NULL"},
		{"orders with unknown channel", "SELECT count(*) FROM orders WHERE channel IS NULL"},
	} {
		rs, err := eng.Query(context.Background(), c.sql, sqlgym.Limits{})
		if err != nil {
			t.Fatalf("%s: %v", c.what, err)
		}
		if rs.Rows[0][0].Int == 0 {
			t.Errorf("no %s", c.what)
		}
	}
}
