package shopdb_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/sqlgym/sqlgym/internal/testenv"
	"github.com/sqlgym/sqlgym/shopdb"
)

// The benchmarks time Load alone, into a fresh database each round:
// go test -run '^$' -bench Load ./shopdb

func BenchmarkLoadSQLite(b *testing.B) {
	benchLoad(b, func(i int) *sql.DB {
		path := filepath.Join(b.TempDir(), "shop"+strconv.Itoa(i)+".sqlite")
		db, err := sql.Open("sqlite3", "file:"+path+"?_pragma=foreign_keys(1)")
		if err != nil {
			b.Fatal(err)
		}
		return db
	})
}

func BenchmarkLoadDuckDB(b *testing.B) {
	benchLoad(b, func(i int) *sql.DB {
		db, err := sql.Open("duckdb", filepath.Join(b.TempDir(), "shop"+strconv.Itoa(i)+".duckdb"))
		if err != nil {
			b.Fatal(err)
		}
		return db
	})
}

func BenchmarkLoadPostgres(b *testing.B) {
	dsn := testenv.Postgres(b)
	admin, err := sql.Open("pgx", dsn)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { admin.Close() }) // after the schemas are dropped
	benchLoad(b, func(int) *sql.DB {
		schema := testenv.UniqueName("shopbench")
		if _, err := admin.Exec("CREATE SCHEMA " + schema); err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() {
			if _, err := admin.Exec("DROP SCHEMA " + schema + " CASCADE"); err != nil {
				b.Errorf("drop schema %s: %v", schema, err)
			}
		})
		cfg, err := pgx.ParseConfig(dsn)
		if err != nil {
			b.Fatal(err)
		}
		cfg.RuntimeParams["search_path"] = schema
		return stdlib.OpenDB(*cfg)
	})
}

func benchLoad(b *testing.B, open func(i int) *sql.DB) {
	ctx := context.Background()
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		db := open(i)
		if err := db.PingContext(ctx); err != nil { // connect outside the timing
			b.Fatal(err)
		}
		b.StartTimer()
		if err := shopdb.Load(ctx, db); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		db.Close()
		b.StartTimer()
	}
}
