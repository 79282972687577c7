package variants

import (
	"context"
	"fmt"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/catalog"
	"github.com/sqlgym/sqlgym/screen"
	"github.com/sqlgym/sqlgym/shopdb"
	"github.com/sqlgym/sqlgym/verify"
)

// ShopTaskLists returns, for the shipped shop variants as they stand
// (shopdb.Variants), each shop task's own list, as a generation that made
// them would write it (Run's last steps): the variants fair to its golds
// (assignVariants) that are the first to kill one of its surviving
// mutants (taskVariants), the killers read as the trim leaves them (the
// kills of each final variant against every weak task, first one in
// order). It costs a screen of the shop and of each variant, minutes
// where a generation costs tens of them: a set written before the
// per-task lists gets them without being made again
// (shopvariants -lists-only), and the lists are the ones a
// regeneration that gives the same statements writes.
func ShopTaskLists(ctx context.Context) (map[string][]string, error) {
	vs, err := shopdb.Variants()
	if err != nil {
		return nil, err
	}
	sh, err := openShop("sqlgym-shop-lists-")
	if err != nil {
		return nil, err
	}
	defer sh.close()
	tmp, cat, tasks, orig := sh.dir, sh.cat, sh.tasks, sh.url
	paths, err := catalog.MaterializeShopVariants(tmp)
	if err != nil {
		return nil, err
	}
	g, err := NewGenerator(ctx, cat, "shop", orig, tasks, Options{Seed: ShippedSeed, MaxVariants: ShippedMaxVariants})
	if err != nil {
		return nil, err
	}
	opt := g.opt
	sopt := screen.Options{MaxPerKind: opt.MaxPerKind, Schemas: map[string]*sqlgym.Schema{g.name: g.schema},
		Dialect: func(string) sqlgym.Dialect { return g.dialect }}
	_, marked, err := screen.Screen(ctx, verify.New(g.dbs, g.tasks, verify.Config{Mode: opt.Mode, Limits: opt.Limits}), g.tasks, sopt)
	if err != nil {
		return nil, err
	}
	weak, survivors := survivorsOf(marked)
	if g.goldStates, err = checkGoldsURL(ctx, orig, g.golds, opt.Limits); err != nil {
		return nil, err
	}
	var urls, names []string
	var kept []Kept
	var states []map[string]goldState
	killedBy := map[string]string{}
	for i, v := range vs.Variants {
		u := "sqlite:" + paths[i]
		killed, err := g.kills(ctx, u, weak, sopt, survivors)
		if err != nil {
			return nil, err
		}
		for _, id := range sortedIDs(killed) {
			if _, done := killedBy[id]; !done {
				killedBy[id] = v.Name
			}
		}
		st, err := checkGoldsURL(ctx, u, g.golds, opt.Limits)
		if err != nil {
			return nil, err
		}
		urls, names, states = append(urls, u), append(names, v.Name), append(states, st)
		kept = append(kept, Kept{Name: v.Name, Path: paths[i]})
	}
	reps, err := repeatsOn(ctx, orig, urls, g.golds, opt.Limits)
	if err != nil {
		return nil, err
	}
	list := make([]sqlgym.Task, len(g.tasks))
	copy(list, g.tasks)
	assignVariants(list, g.dialect, orig, urls, names, g.goldStates, states, reps)
	var nulls [][]nullKey
	if g.cons != nil {
		if nulls, err = nullKeys(ctx, orig, urls, g.cons.ForeignKeys); err != nil {
			return nil, err
		}
	}
	taskVariants(list, g.dialect, g.name, kept, append([]string{orig}, urls...), killedBy, nulls, false)
	out := map[string][]string{}
	byURL := map[string]string{}
	for i, u := range urls {
		byURL[u] = names[i]
	}
	for _, t := range list {
		ns := []string{}
		for _, u := range t.DBVariants {
			if n, ok := byURL[u]; ok {
				ns = append(ns, n)
			}
		}
		out[t.ID] = ns
	}
	if len(out) != len(g.tasks) {
		return nil, fmt.Errorf("shop variant lists: %d lists for %d tasks", len(out), len(g.tasks))
	}
	return out, nil
}

// ShopVariantSetRelisted is the shipped set (shopdb/variants.json) with
// its per-task lists computed again (ShopTaskLists), encoded as
// ShopVariantSet encodes a generated one.
func ShopVariantSetRelisted(ctx context.Context) ([]byte, error) {
	vs, err := shopdb.Variants()
	if err != nil {
		return nil, err
	}
	if vs.Tasks, err = ShopTaskLists(ctx); err != nil {
		return nil, err
	}
	return encodeShopSet(vs)
}
