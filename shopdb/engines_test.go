package shopdb_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
	"time"

	_ "github.com/duckdb/duckdb-go/v2"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/sqlgym/sqlgym/internal/testenv"
	"github.com/sqlgym/sqlgym/shopdb"
)

// sqliteChecksums is the reference every other engine must match.
func sqliteChecksums(t *testing.T) []shopdb.TableChecksum {
	t.Helper()
	db, _ := openSQLite(t)
	sums, err := shopdb.TableChecksums(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	return sums
}

func sameData(t *testing.T, engine string, got, want []shopdb.TableChecksum) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d table checksums, SQLite %d", engine, len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("%s holds different data than SQLite: %+v, SQLite %+v", engine, got[i], want[i])
		}
	}
}

func TestChecksumsCoverEveryRow(t *testing.T) {
	sums := sqliteChecksums(t)
	if len(sums) != shopdb.NumTables {
		t.Fatalf("%d checksums, want %d", len(sums), shopdb.NumTables)
	}
	seen := map[string]bool{}
	for _, s := range sums {
		if s.Rows == 0 || len(s.SHA256) != 64 || seen[s.SHA256] {
			t.Errorf("checksum %+v: empty, malformed or repeated", s)
		}
		seen[s.SHA256] = true
		if s.Table == "orders" && s.Rows != shopdb.Orders {
			t.Errorf("orders checksum counts %d rows", s.Rows)
		}
	}
	// One changed value must change its table's checksum and no other.
	db, _ := openSQLite(t)
	if _, err := db.Exec("UPDATE products SET price = price + 0.01 WHERE product_id = 7"); err != nil {
		t.Fatal(err)
	}
	after, err := shopdb.TableChecksums(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	for i := range sums {
		if changed := after[i] != sums[i]; changed != (sums[i].Table == "products") {
			t.Errorf("%s: changed=%v after editing one product price", sums[i].Table, changed)
		}
	}
}

func TestDuckDB(t *testing.T) {
	want := sqliteChecksums(t)
	db, err := sql.Open("duckdb", filepath.Join(t.TempDir(), "shop.duckdb"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	start := time.Now()
	if err := shopdb.Load(ctx, db); err != nil {
		t.Fatal(err)
	}
	t.Logf("loaded into DuckDB in %v", time.Since(start))
	// DuckDB enforces the foreign keys while inserting: a row that pointed
	// nowhere would have failed the load. Check that it does enforce them.
	if _, err := db.ExecContext(ctx, "INSERT INTO orders VALUES (9999, 9999, '2024-01-01', 'pending', 1.00)"); err == nil {
		t.Error("DuckDB accepted an order for a customer that does not exist")
	}
	got, err := shopdb.TableChecksums(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	sameData(t, "DuckDB", got, want)
}

func TestPostgres(t *testing.T) {
	dsn := testenv.Postgres(t)
	want := sqliteChecksums(t)
	ctx := context.Background()

	admin, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Close() }) // runs after the schema is dropped
	schema := testenv.UniqueName("shopdb")
	if _, err := admin.ExecContext(ctx, "CREATE SCHEMA "+schema); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if _, err := admin.ExecContext(context.Background(), "DROP SCHEMA "+schema+" CASCADE"); err != nil {
			t.Errorf("drop schema %s: %v", schema, err)
		}
	})

	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	cfg.RuntimeParams["search_path"] = schema
	db := stdlib.OpenDB(*cfg)
	defer db.Close()

	start := time.Now()
	if err := shopdb.Load(ctx, db); err != nil {
		t.Fatal(err)
	}
	t.Logf("loaded into PostgreSQL in %v", time.Since(start))
	var n int
	if err := db.QueryRowContext(ctx, `SELECT COUNT(*) FROM information_schema.table_constraints
		WHERE table_schema = $1 AND constraint_type = 'FOREIGN KEY'`, schema).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 9 {
		t.Errorf("PostgreSQL has %d foreign keys in %s, want 9", n, schema)
	}
	got, err := shopdb.TableChecksums(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	sameData(t, "PostgreSQL", got, want)
}
