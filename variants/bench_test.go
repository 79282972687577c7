package variants

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/sqlgym/sqlgym/engine"
	"github.com/sqlgym/sqlgym/engine/duckdb"
	"github.com/sqlgym/sqlgym/engine/postgres"
	"github.com/sqlgym/sqlgym/engine/sqlite"
	"github.com/sqlgym/sqlgym/internal/testenv"
)

// BenchmarkGenerateToy is one generation (6 candidates, 3 kept) of the
// toy shop on each engine, the same rows and tasks: what the engine layer
// costs where SQLite copies a file, DuckDB copies a file and starts worker
// processes for its gold checks, and PostgreSQL copies a schema.
// Sub-benchmarks run interleaved with -count.
func BenchmarkGenerateToy(b *testing.B) {
	ctx := context.Background()
	stmts := toyStmts()
	cases := []struct {
		name string
		make func(b *testing.B) (url string, opt Options)
	}{
		{"sqlite", func(b *testing.B) (string, Options) {
			p := filepath.Join(b.TempDir(), "toy.sqlite")
			if err := sqlite.Create(ctx, p, stmts); err != nil {
				b.Fatal(err)
			}
			return "sqlite:" + p, Options{}
		}},
		{"duckdb", func(b *testing.B) (string, Options) {
			p := filepath.Join(b.TempDir(), "toy.duckdb")
			if err := duckdb.Create(ctx, p, stmts); err != nil {
				b.Fatal(err)
			}
			return "duckdb:" + p, Options{}
		}},
		{"postgres", func(b *testing.B) (string, Options) {
			admin := testenv.Postgres(b)
			reader, schema := testenv.PostgresReader(b, func(ctx context.Context, dsn, schema string) error {
				return postgres.Load(ctx, dsn, schema, false, stmts)
			})
			return engine.WithSchema(reader, schema), Options{PostgresAdmin: admin, Replace: true}
		}},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			url, opt := c.make(b)
			name := "toy"
			if c.name == "postgres" {
				name = testenv.UniqueName("toy")
				b.Cleanup(func() { dropLike(b, opt.PostgresAdmin, name) })
			}
			opt.MaxVariants, opt.Candidates, opt.Seed = 3, 6, 7
			cat := newCatalog(b, name+"="+url)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				dir := filepath.Join(b.TempDir(), name)
				if err := os.Mkdir(dir, 0o755); err != nil {
					b.Fatal(err)
				}
				g, err := NewGenerator(ctx, cat, name, url, engineTasks(name), opt)
				if err != nil {
					b.Fatal(err)
				}
				res, err := g.Run(ctx, dir)
				if err != nil {
					b.Fatal(err)
				}
				if res.After.Weak >= res.Before.Weak {
					b.Fatalf("weak %d before, %d after", res.Before.Weak, res.After.Weak)
				}
			}
		})
	}
}
