package constraints_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/sqlgym/sqlgym/benchdb"
	"github.com/sqlgym/sqlgym/constraints"
	"github.com/sqlgym/sqlgym/engine"
	"github.com/sqlgym/sqlgym/engine/sqlite"
	"github.com/sqlgym/sqlgym/schema"
)

// BenchmarkInferKeyless infers the keys of a benchdb file copied without
// any declared constraint (CREATE TABLE AS SELECT), the worst case: every
// key and foreign key is implied and verified on the whole table.
// SQLGYM_BENCH_BYTES sets the size (default 10 MB), e.g. 100000000.
func BenchmarkInferKeyless(b *testing.B) {
	size := int64(benchdb.DefaultSize)
	if s := os.Getenv("SQLGYM_BENCH_BYTES"); s != "" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			b.Fatal(err)
		}
		size = n
	}
	ctx := context.Background()
	dir := b.TempDir()
	src := filepath.Join(dir, "keyed.sqlite")
	if _, err := benchdb.Generate(ctx, src, benchdb.Config{Seed: 1, Size: size}); err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(dir, "keyless.sqlite")
	stmts := []string{fmt.Sprintf("ATTACH '%s' AS src", src)}
	for _, t := range []string{"customers", "products", "orders", "order_items", "payments", "reviews"} {
		stmts = append(stmts, fmt.Sprintf("CREATE TABLE %s AS SELECT * FROM src.%s", t, t))
	}
	if err := sqlite.Create(ctx, path, stmts); err != nil {
		b.Fatal(err)
	}
	eng, err := engine.Open(ctx, "sqlite:"+path, engine.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer eng.Close()
	s, err := schema.Load(ctx, eng, 0)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	var set *constraints.Set
	for b.Loop() {
		if set, err = constraints.Infer(ctx, eng, s, constraints.Options{}); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	keys, fks := set.Implied()
	b.ReportMetric(float64(len(keys)), "keys")
	b.ReportMetric(float64(len(fks)), "fks")
}
