package variants

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/catalog"
	"github.com/sqlgym/sqlgym/engine/sqlite"
	"github.com/sqlgym/sqlgym/screen"
	"github.com/sqlgym/sqlgym/verify"
)

// toyDB writes a small shop whose rows hide near misses: no order sits on
// a compared date or amount, no customer has exactly the HAVING threshold
// of orders, and there are no namesakes.
func toyDB(t *testing.T) string { return toyDBSized(t, 12, 40) }

// toyDBSized is toyDB with that many customers and orders.
func toyDBSized(t *testing.T, customers, orders int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "toy.sqlite")
	if err := writeToy(path, customers, orders); err != nil {
		t.Fatal(err)
	}
	return path
}

// writeToy writes the toy shop with that many customers and orders at path.
func writeToy(path string, customers, orders int) error {
	stmts := []string{
		`CREATE TABLE customers (customer_id INTEGER NOT NULL PRIMARY KEY, name VARCHAR(40) NOT NULL, city VARCHAR(40),
			tier INTEGER NOT NULL CHECK (tier BETWEEN 1 AND 3))`,
		`CREATE TABLE orders (order_id INTEGER NOT NULL PRIMARY KEY, customer_id INTEGER NOT NULL REFERENCES customers (customer_id),
			order_date DATE NOT NULL, amount DECIMAL(10,2) NOT NULL, status VARCHAR(12) NOT NULL)`,
	}
	for i := 1; i <= customers; i++ {
		city := fmt.Sprintf("'City%d'", i%4)
		if i%5 == 0 {
			city = "NULL"
		}
		stmts = append(stmts, fmt.Sprintf("INSERT INTO customers VALUES (%d, 'Name%d', %s, %d)", i, i, city, 1+i%3))
	}
	for i := 1; i <= orders; i++ {
		status := []string{"paid", "shipped", "cancelled"}[i%3]
		stmts = append(stmts, fmt.Sprintf("INSERT INTO orders VALUES (%d, %d, '2024-%02d-%02d', %d.50, '%s')",
			i, 1+(i*7)%customers, 1+i%12, 2+i%25, 10+i*3, status))
	}
	return sqlite.Create(context.Background(), path, stmts)
}

var toyTasks = []sqlgym.Task{
	{ID: "date", DB: "toy", SQL: "SELECT COUNT(*) FROM orders WHERE order_date < '2024-06-01'", Complexity: "date"},
	{ID: "amount", DB: "toy", SQL: "SELECT order_id FROM orders WHERE amount >= 70 AND status = 'paid'", Complexity: "filter"},
	{ID: "having", DB: "toy", SQL: "SELECT customer_id FROM orders GROUP BY customer_id HAVING COUNT(*) > 4", Complexity: "group_by"},
	{ID: "names", DB: "toy", SQL: "SELECT name, COUNT(*) FROM customers JOIN orders ON orders.customer_id = customers.customer_id GROUP BY customers.customer_id", Complexity: "join"},
	{ID: "max", DB: "toy", SQL: "SELECT MAX(amount) FROM orders WHERE status = 'shipped'", Complexity: "aggregate"},
	{ID: "top", DB: "toy", SQL: "SELECT order_id FROM orders ORDER BY amount DESC, order_id LIMIT 3", Complexity: "order_limit"},
}

// shared is the toy shop generated once for the package (seed 7, 3
// variants, the toy tasks), for the tests that only read the result and
// judge on its files: three tests generated the same set each.
var shared struct {
	once sync.Once
	dir  string // removed by TestMain
	path string
	res  *DBResult
	cat  *catalog.Catalog
	err  error
}

// sharedToy returns the shared generation: the toy's path, the result and
// a catalog that resolves "toy" to it.
func sharedToy(t *testing.T) (string, *DBResult, *catalog.Catalog) {
	t.Helper()
	shared.once.Do(func() {
		if shared.dir, shared.err = os.MkdirTemp("", "sqlgym-variants-test-"); shared.err != nil {
			return
		}
		shared.path = filepath.Join(shared.dir, "toy.sqlite")
		if shared.err = writeToy(shared.path, 12, 40); shared.err != nil {
			return
		}
		if shared.cat, shared.err = catalog.New(catalog.Config{Refs: []string{"toy=sqlite:" + shared.path}, CacheDir: filepath.Join(shared.dir, "cache")}); shared.err != nil {
			return
		}
		ctx := context.Background()
		g, err := NewGenerator(ctx, shared.cat, "toy", "sqlite:"+shared.path, toyTasks, Options{MaxVariants: 3, Candidates: 6, Seed: 7})
		if err != nil {
			shared.err = err
			return
		}
		out := filepath.Join(shared.dir, "out")
		if shared.err = os.Mkdir(out, 0o755); shared.err != nil {
			return
		}
		shared.res, shared.err = g.Run(ctx, out)
	})
	if shared.err != nil {
		t.Fatalf("the shared toy generation: %v", shared.err)
	}
	return shared.path, shared.res, shared.cat
}

// removeShared removes what sharedToy made, after every test ran.
func removeShared() {
	if shared.cat != nil {
		shared.cat.Close()
	}
	if shared.dir != "" {
		os.RemoveAll(shared.dir)
	}
}

func generate(t *testing.T, path string, seed uint64) (*DBResult, *catalog.Catalog) {
	return generateN(t, path, seed, 3)
}

func generateN(t *testing.T, path string, seed uint64, max int) (*DBResult, *catalog.Catalog) {
	return generateTasks(t, path, seed, max, toyTasks)
}

func generateTasks(t *testing.T, path string, seed uint64, max int, tasks []sqlgym.Task) (*DBResult, *catalog.Catalog) {
	t.Helper()
	cat, err := catalog.New(catalog.Config{Refs: []string{"toy=sqlite:" + path}, CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cat.Close() })
	ctx := context.Background()
	g, err := NewGenerator(ctx, cat, "toy", "sqlite:"+path, tasks, Options{MaxVariants: max, Candidates: 2 * max, Seed: seed})
	if err != nil {
		t.Fatal(err)
	}
	res, err := g.Run(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return res, cat
}

func TestGenerateKillsMutantsAndKeepsGolds(t *testing.T) {
	_, res, _ := sharedToy(t)
	if res.Before.Weak == 0 {
		t.Fatalf("the toy data was built weak, but the screen found no weak task: %+v", res.Before)
	}
	if res.After.Weak >= res.Before.Weak {
		t.Errorf("weak tasks %d before, %d after: the variants killed nothing", res.Before.Weak, res.After.Weak)
	}
	if len(res.Variants) == 0 || len(res.Variants) > 3 {
		t.Fatalf("kept %d variants, want 1 to 3", len(res.Variants))
	}
	if len(res.Killed) == 0 {
		t.Errorf("no task records a killed mutant")
	}
	// Every gold runs on every variant, deterministically, and the
	// variants keep the declared constraints.
	ctx := context.Background()
	for _, v := range res.Variants {
		st, err := checkGolds(ctx, v.Path, golds(toyTasks), sqlgym.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		for g, s := range st {
			if !s.ok {
				t.Errorf("%s: gold %q fails or is not deterministic", v.Name, g)
			}
		}
		eng, err := sqlite.Open(v.Path, sqlite.Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range []string{
			"SELECT COUNT(*) FROM orders WHERE customer_id NOT IN (SELECT customer_id FROM customers)",
			"SELECT COUNT(*) FROM customers WHERE tier NOT BETWEEN 1 AND 3 OR name IS NULL",
			"SELECT COUNT(*) - COUNT(DISTINCT order_id) FROM orders",
		} {
			rs, err := eng.Query(ctx, q, sqlgym.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			if n := rs.Rows[0][0].Int; n != 0 {
				t.Errorf("%s breaks a constraint: %s = %d", v.Name, q, n)
			}
		}
		eng.Close()
	}
	// The tasks judged on the variants carry no mark for killed mutants.
	for _, tk := range res.TasksAfter() {
		for _, m := range screen.WeakMutants(tk) {
			for _, k := range res.Killed[tk.ID] {
				if k.SQL == m.SQL {
					t.Errorf("task %s: mutant %q both killed and still weak", tk.ID, m.SQL)
				}
			}
		}
	}
}

func golds(ts []sqlgym.Task) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.SQL)
	}
	return out
}

func TestGenerateIsDeterministic(t *testing.T) {
	path, a, _ := sharedToy(t)
	b, _ := generate(t, path, 7)
	if len(a.Variants) != len(b.Variants) {
		t.Fatalf("same seed: %d variants, then %d", len(a.Variants), len(b.Variants))
	}
	for i := range a.Variants {
		if !slices.Equal(a.Variants[i].Statements, b.Variants[i].Statements) {
			t.Errorf("same seed: variant %d differs", i+1)
		}
	}
	c, _ := generate(t, path, 8)
	same := len(a.Variants) == len(c.Variants)
	for i := 0; same && i < len(a.Variants); i++ {
		same = slices.Equal(a.Variants[i].Statements, c.Variants[i].Statements)
	}
	if same {
		t.Errorf("seeds 7 and 8 gave the same variants: the seed is not used")
	}
}

// TestVariantsRejectWrongAnswers is the reason for all this: a near miss the
// original database rewards is judged wrong once --variants is on.
func TestVariantsRejectWrongAnswers(t *testing.T) {
	_, res, cat := sharedToy(t)
	var task sqlgym.Task
	var wrong string
	for _, tk := range toyTasks {
		if ks := res.Killed[tk.ID]; len(ks) > 0 {
			task, wrong = tk, ks[0].SQL
			break
		}
	}
	if wrong == "" {
		t.Fatal("no killed mutant to try")
	}
	urls := []string{}
	for _, v := range res.Variants {
		urls = append(urls, "sqlite:"+v.Path)
	}
	task.DBVariants = urls
	tasks := []sqlgym.Task{task}
	ctx := context.Background()
	plain := verify.New(cat, tasks, verify.Config{}).Verify(ctx, verify.Answer{TaskID: task.ID, SQL: wrong})
	varied := verify.New(cat, tasks, verify.Config{Variants: true}).Verify(ctx, verify.Answer{TaskID: task.ID, SQL: wrong})
	if plain.Outcome != sqlgym.OutcomeCorrect {
		t.Fatalf("on the original alone the mutant %q is %s; it was recorded as one the original cannot tell", wrong, plain.Outcome)
	}
	if varied.Outcome != sqlgym.OutcomeWrong {
		t.Errorf("with --variants the mutant %q is %s (%s), want wrong", wrong, varied.Outcome, varied.Detail)
	}
	gold := verify.New(cat, tasks, verify.Config{Variants: true}).Verify(ctx, verify.Answer{TaskID: task.ID, SQL: task.SQL + " "})
	if gold.Outcome != sqlgym.OutcomeCorrect {
		t.Errorf("with --variants the gold itself is %s (%s)", gold.Outcome, gold.Detail)
	}
}

// On a larger toy shop with a gold that rests on every order (a row set
// to the mean amount stays the mean only if no other order goes), the
// trim alone leaves the variant whole; the thinning (trim.go) deletes
// original rows before the edits, which recompute the mean on what is
// left. Every kill the result records, with the variant it names first,
// holds on that variant as rebuilt from the original and its statements.
func TestThinnedVariantsKeepTheirKills(t *testing.T) {
	path := toyDBSized(t, 48, 400)
	tasks := []sqlgym.Task{toyTasks[0], toyTasks[1], {ID: "mean", DB: "toy", Complexity: "subquery",
		SQL: "SELECT COUNT(*) FROM orders WHERE amount > (SELECT AVG(amount) FROM orders)"}}
	res, _ := generateTasks(t, path, 7, 3, tasks)
	ctx := context.Background()
	rebuilt := map[string]string{}
	thinned := 0
	for _, v := range res.Variants {
		t.Logf("%s: %d rows, %d thinned (%d statements), %d trimmed, %d kills (%d new)", v.Name, v.Rows, v.ThinnedRows, v.ThinStatements, v.TrimmedRows, v.Kills, v.NewKills)
		if v.ThinnedRows > 0 {
			thinned++
			if v.ThinStatements == 0 {
				t.Errorf("%s: %d rows thinned but no statement records it", v.Name, v.ThinnedRows)
			}
			// The original has 448 rows, and the edits add some.
			if v.Rows >= 448 {
				t.Errorf("%s: %d rows thinned, yet it holds %d rows, no fewer than the original's 448", v.Name, v.ThinnedRows, v.Rows)
			}
		}
		rebuilt[v.Name] = rebuild(t, path, v)
	}
	if thinned == 0 {
		t.Fatalf("none of the %d variants of the 400-order toy shop was thinned", len(res.Variants))
	}
	gold := map[string]string{}
	for _, tk := range tasks {
		gold[tk.ID] = tk.SQL
	}
	checked := 0
	for id, ks := range res.Killed {
		for _, k := range ks {
			re, ok := rebuilt[k.Variant]
			if !ok {
				t.Errorf("task %s: mutant %q is recorded killed by %q, not a kept variant", id, k.SQL, k.Variant)
				continue
			}
			cat, err := catalog.New(catalog.Config{Refs: []string{"v=sqlite:" + re}, CacheDir: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			r := verify.New(cat, []sqlgym.Task{{ID: id, DB: "v", SQL: gold[id]}}, verify.Config{}).Verify(ctx, verify.Answer{TaskID: id, SQL: k.SQL})
			cat.Close()
			if r.Outcome == sqlgym.OutcomeCorrect {
				t.Errorf("task %s: mutant %q is recorded killed by %s, but matches the gold there", id, k.SQL, k.Variant)
			}
			checked++
		}
	}
	if checked == 0 {
		t.Fatal("no killed mutant recorded")
	}
}
