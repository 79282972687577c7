package verify

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/catalog"
	"github.com/sqlgym/sqlgym/verify/compare"
)

// countingDBs is the real catalog, counting how often names resolve.
type countingDBs struct {
	*catalog.Catalog
	resolves int
}

func (c *countingDBs) Resolve(name string) (string, error) {
	c.resolves++
	return c.Catalog.Resolve(name)
}

func shopCatalog(t *testing.T, refs ...string) *catalog.Catalog {
	t.Helper()
	cat, err := catalog.New(catalog.Config{CacheDir: t.TempDir(), Refs: refs})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cat.Close() })
	return cat
}

func jobsFor(tasks []*sqlgym.Task, sqls ...string) []*answerJob {
	var jobs []*answerJob
	for i, q := range sqls {
		jobs = append(jobs, &answerJob{res: &Result{}, task: tasks[i%len(tasks)], sql: q})
	}
	return jobs
}

// Planning resolves a database once per batch, keys texts the engine
// reads alike as one candidate, and turns a database that does not
// resolve into the answer's gold_error before anything runs.
func TestPlanResolvesOnceAndKeysByDialect(t *testing.T) {
	dbs := &countingDBs{Catalog: shopCatalog(t)}
	v := New(dbs, nil, Config{})
	shop := &sqlgym.Task{ID: "a", DB: "shop", SQL: "SELECT count(*) FROM orders"}
	gone := &sqlgym.Task{ID: "b", DB: "nowhere", SQL: "SELECT 1"}
	jobs := jobsFor([]*sqlgym.Task{shop, shop, gone}, "SELECT count(*) FROM orders", "select  COUNT(*)\nfrom orders", "SELECT 1")
	newPlanner(v).plan(jobs, v.modes())

	if dbs.resolves != 2 {
		t.Errorf("%d resolutions for two databases in one batch", dbs.resolves)
	}
	if len(jobs[0].plans) != 1 || len(jobs[0].plans[0].checks) != 1 {
		t.Fatalf("plans %+v", jobs[0].plans)
	}
	a, b := jobs[0].plans[0].checks[0], jobs[1].plans[0].checks[0]
	if a.key != b.key || a.golds[0] != shop.SQL || !strings.HasPrefix(a.url, "sqlite:") {
		t.Errorf("two spellings of one statement planned apart: %+v %+v", a, b)
	}
	if f := jobs[2].fail; f == nil || f.outcome != sqlgym.OutcomeGoldError || !strings.Contains(f.detail, `"nowhere"`) || jobs[2].plans != nil {
		t.Errorf("a database that does not resolve: fail %+v plans %+v", f, jobs[2].plans)
	}
}

// Gathering makes one candidate per distinct statement, with the
// largest row budget its uses need, and all rows when the reward
// components compare them.
func TestGatherCandidatesSharesAndBudgets(t *testing.T) {
	v := New(shopCatalog(t), nil, Config{Mode: compare.Multiset})
	count := &sqlgym.Task{ID: "count", DB: "shop", SQL: "SELECT count(*) FROM orders"}
	ids := &sqlgym.Task{ID: "ids", DB: "shop", SQL: "SELECT order_id FROM orders ORDER BY order_id LIMIT 3"}
	q := "SELECT order_id FROM orders"
	jobs := jobsFor([]*sqlgym.Task{count, ids}, q, q)
	newPlanner(v).plan(jobs, v.modes())
	golds := v.takeGolds(context.Background(), goldKeys(jobs))
	if len(golds) != 2 {
		t.Fatalf("%d golds taken, want 2", len(golds))
	}
	for k, g := range golds {
		if g.err != nil || g.rs == nil {
			t.Fatalf("gold %s: %v", k.sql, g.err)
		}
	}
	cands, order := gatherCandidates(jobs, golds, false)
	if len(cands) != 1 || len(order) != 1 {
		t.Fatalf("%d candidates for one statement", len(cands))
	}
	cd := order[0]
	if len(cd.uses) != 2 || cd.readAll || cd.stopAfter != 4 /* the larger gold, ids, has 3 rows: one more tells a longer answer */ {
		t.Errorf("candidate uses %d, readAll %v, stopAfter %d", len(cd.uses), cd.readAll, cd.stopAfter)
	}
	if _, order := gatherCandidates(jobs, golds, true); !order[0].readAll {
		t.Error("with components a candidate must read all its rows")
	}
}

// Under Config.Variants a statement on a variant waits for its
// counterpart on the original; one with no counterpart runs at once.
func TestDeferVariants(t *testing.T) {
	orig, variant, alone := execKey{"sqlite:a", "q"}, execKey{"sqlite:a_v1", "q"}, execKey{"sqlite:b_v1", "r"}
	jobs := []*answerJob{{plans: []modePlan{{checks: []variantCheck{{key: orig}, {key: variant}}}}}}
	run := []*candidate{{key: orig}, {key: variant}, {key: alone}}
	counterparts := map[execKey][]execKey{}
	now, later := deferVariants(run, jobs, counterparts)
	if len(now) != 2 || now[0].key != orig || now[1].key != alone || len(later) != 1 || later[0].key != variant {
		t.Errorf("now %v later %v", now, later)
	}
	if c := counterparts[variant]; len(c) != 1 || c[0] != orig {
		t.Errorf("counterparts %v", counterparts)
	}
}

// A statement that is a gold's own text is only compared, never run
// again, unless the answer asks for a rerun.
func TestStageJudgesAGoldTextOnItsResult(t *testing.T) {
	v := New(shopCatalog(t), nil, Config{})
	task := &sqlgym.Task{ID: "count", DB: "shop", SQL: "SELECT count(*) FROM orders"}
	jobs := jobsFor([]*sqlgym.Task{task}, "select count(*) from orders", "SELECT 2")
	newPlanner(v).plan(jobs, v.modes())
	golds := v.takeGolds(context.Background(), goldKeys(jobs))
	cands, order := gatherCandidates(jobs, golds, false)
	st := v.stage(order, cands, golds, jobs, v.modes())
	if len(st.ready) != 1 || st.ready[0].cd.sql != "select count(*) from orders" || st.ready[0].rs == nil ||
		len(st.run) != 1 || st.run[0].sql != "SELECT 2" || len(st.later) != 0 {
		t.Errorf("ready %v run %v later %v", st.ready, st.run, st.later)
	}
	jobs[0].rerun = true
	cands, order = gatherCandidates(jobs, golds, false)
	if st := v.stage(order, cands, golds, jobs, v.modes()); len(st.ready) != 0 || len(st.run) != 2 {
		t.Errorf("with a rerun: ready %v run %v", st.ready, st.run)
	}
}

// listedDBs gives tasks their own variants of one database, as the
// catalog does for the built-in shop's shipped per-task lists.
type listedDBs struct {
	*catalog.Catalog
	lists map[string][]string // task id -> URLs, the original first
}

func (l listedDBs) TaskVariants(name, task string) ([]string, error) {
	if us, ok := l.lists[task]; ok {
		return us, nil
	}
	return l.Catalog.Variants(name)
}

// Under Config.Variants a task without db_variants is judged on the list
// its Databases gives it, not on a list kept for its database: two tasks
// of the shop, one on a variant and one on the shop alone, are planned
// apart, whichever comes first.
func TestPlanTakesEachTasksOwnVariants(t *testing.T) {
	cat := shopCatalog(t)
	shop, err := cat.Resolve("shop")
	if err != nil {
		t.Fatal(err)
	}
	one := []string{shop, "sqlite:" + filepath.Join(t.TempDir(), "shop_v1.sqlite")}
	dbs := listedDBs{Catalog: cat, lists: map[string][]string{"a": one, "b": {shop}}}
	v := New(dbs, nil, Config{Variants: true})
	a := &sqlgym.Task{ID: "a", DB: "shop", SQL: "SELECT count(*) FROM orders"}
	b := &sqlgym.Task{ID: "b", DB: "shop", SQL: "SELECT count(*) FROM customers"}
	for _, order := range [][]*sqlgym.Task{{a, b}, {b, a}} {
		pl := newPlanner(v)
		for _, task := range order {
			us, err := pl.variants(task, false)
			if err != nil {
				t.Fatal(err)
			}
			if want := dbs.lists[task.ID]; !slices.Equal(us, want) {
				t.Errorf("task %s (planned %s then %s): judged on %v, want %v", task.ID, order[0].ID, order[1].ID, us, want)
			}
		}
	}
}
