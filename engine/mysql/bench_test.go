package mysql

import (
	"context"
	"database/sql"
	"testing"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/internal/testenv"
	"github.com/sqlgym/sqlgym/shopdb"
)

// BenchmarkShopGolds compares, side by side, 512 shop golds run through
// the sandbox (screen, connection id, session limit, read-only
// transaction, rollback) with the same statements sent once each
// through the driver, rows read either way.
//
//	go test ./engine/mysql -run '^$' -bench BenchmarkShopGolds -benchtime 3x
func BenchmarkShopGolds(b *testing.B) {
	dsn, _ := testenv.MySQLReader(b, shopdb.Statements())
	tasks, err := shopdb.Tasks()
	if err != nil {
		b.Fatal(err)
	}
	var golds []string
	for _, t := range tasks[:512] {
		golds = append(golds, t.GoldFor(sqlgym.DialectMySQL))
	}
	ctx := context.Background()
	b.Run("sandbox", func(b *testing.B) {
		eng, err := Open(ctx, dsn, Options{MaxConns: 1})
		if err != nil {
			b.Fatal(err)
		}
		defer eng.Close()
		for b.Loop() {
			for _, q := range golds {
				if _, err := eng.Query(ctx, q, sqlgym.Limits{}); err != nil {
					b.Fatalf("%s: %v", q, err)
				}
			}
		}
	})
	b.Run("driver", func(b *testing.B) {
		db, err := sql.Open("mysql", dsn)
		if err != nil {
			b.Fatal(err)
		}
		defer db.Close()
		db.SetMaxOpenConns(1)
		for b.Loop() {
			for _, q := range golds {
				rows, err := db.QueryContext(ctx, q)
				if err != nil {
					b.Fatalf("%s: %v", q, err)
				}
				cols, _ := rows.Columns()
				cells := make([]any, len(cols))
				ptrs := make([]any, len(cols))
				for i := range cells {
					ptrs[i] = &cells[i]
				}
				for rows.Next() {
					if err := rows.Scan(ptrs...); err != nil {
						b.Fatal(err)
					}
				}
				rows.Close()
			}
		}
	})
}
