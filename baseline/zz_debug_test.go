package baseline_test

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/baseline"
	"github.com/sqlgym/sqlgym/catalog"
	"github.com/sqlgym/sqlgym/schema"
	"github.com/sqlgym/sqlgym/shopdb"
	"github.com/sqlgym/sqlgym/verify"
)

func TestZZShop(t *testing.T) {
	if os.Getenv("ZZ") == "" {
		t.Skip()
	}
	tasks, _ := shopdb.Tasks()
	cat, _ := catalog.New(catalog.Config{CacheDir: "/tmp/demo-cache"})
	defer cat.Close()
	eng, _ := cat.Engine(context.Background(), "shop")
	s, _ := schema.Load(context.Background(), eng, 50)
	v := verify.New(cat, tasks, verify.Config{})
	p, _ := baseline.New(tasks, baseline.Options{Values: map[string][]string{"shop": baseline.KnownValues(s)}})
	f, _ := os.Create("/tmp/zz_shop.txt")
	defer f.Close()
	for _, tk := range tasks {
		if tk.Split != sqlgym.SplitHoldout {
			continue
		}
		ms, _ := p.Retrieve(tk.ID, 1)
		r := v.Verify(context.Background(), verify.Answer{TaskID: tk.ID, SQL: ms[0].SQL})
		fmt.Fprintf(f, "%s %s\n  Q: %s\n  R: %s (%.2f)\n  A: %s\n  G: %s\n  repl %v\n\n", r.Outcome, tk.ID, tk.Question, ms[0].Task.Question, ms[0].Score, ms[0].SQL, tk.SQL, ms[0].Replacements)
	}
}
