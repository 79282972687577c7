package verify_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/catalog"
	"github.com/sqlgym/sqlgym/engine/duckdb"
	"github.com/sqlgym/sqlgym/shopdb"
	"github.com/sqlgym/sqlgym/verify"
)

// One task, its gold written for SQLite (julianday) with a DuckDB text in
// gold_sql_by_dialect: each database runs the gold of its own engine, so
// the shop tasks score on the shop loaded into either.
func TestGoldByDialectFollowsTheEngine(t *testing.T) {
	ctx := context.Background()
	duck := filepath.Join(t.TempDir(), "shop.duckdb")
	if err := duckdb.Create(ctx, duck, shopdb.Statements()); err != nil {
		t.Fatal(err)
	}
	slow := sqlgym.Task{ID: "slow", DB: "shop",
		SQL: "SELECT COUNT(*) FROM shipments WHERE julianday(delivered_at) - julianday(shipped_at) > 5",
		GoldByDialect: map[sqlgym.Dialect]string{sqlgym.DialectDuckDB: "SELECT COUNT(*) FROM shipments WHERE " +
			"(EXTRACT(EPOCH FROM CAST(delivered_at AS TIMESTAMP)) - EXTRACT(EPOCH FROM CAST(shipped_at AS TIMESTAMP))) / 86400.0 > 5"}}
	for _, tc := range []struct {
		name, answer string
		refs         []string
	}{
		{"sqlite", "SELECT count(*) FROM shipments WHERE julianday(delivered_at) > julianday(shipped_at) + 5", nil},
		{"duckdb", "SELECT count(*) FROM shipments WHERE delivered_at > shipped_at + INTERVAL 5 DAY", []string{"shop=duckdb:" + duck}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cat, err := catalog.New(catalog.Config{Refs: tc.refs, CacheDir: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			defer cat.Close()
			for _, tk := range []sqlgym.Task{slow, {ID: slow.ID, DB: slow.DB, SQL: slow.SQL}} {
				v := verify.New(cat, []sqlgym.Task{tk}, verify.Config{})
				r := v.VerifyBatch(ctx, []verify.Answer{{TaskID: "slow", SQL: tc.answer}})[0]
				want := sqlgym.OutcomeCorrect
				if tc.name == "duckdb" && tk.GoldByDialect == nil {
					want = sqlgym.OutcomeGoldError // DuckDB has no julianday
				}
				if r.Outcome != want {
					t.Errorf("with map %v: %s (%s), want %s", tk.GoldByDialect != nil, r.Outcome, r.Detail, want)
				}
			}
		})
	}
}
