package variants

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/catalog"
	"github.com/sqlgym/sqlgym/engine"
	"github.com/sqlgym/sqlgym/engine/duckdb"
	"github.com/sqlgym/sqlgym/engine/postgres"
	"github.com/sqlgym/sqlgym/internal/testenv"
	"github.com/sqlgym/sqlgym/verify"
)

// toyStmts is toyDB's shop as portable SQL, for DuckDB and PostgreSQL.
func toyStmts() []string {
	stmts := []string{
		`CREATE TABLE customers (customer_id INTEGER NOT NULL PRIMARY KEY, name VARCHAR(40) NOT NULL, city VARCHAR(40),
			tier INTEGER NOT NULL CHECK (tier BETWEEN 1 AND 3))`,
		`CREATE TABLE orders (order_id INTEGER NOT NULL PRIMARY KEY, customer_id INTEGER NOT NULL REFERENCES customers (customer_id),
			order_date DATE NOT NULL, amount DECIMAL(10,2) NOT NULL, status VARCHAR(12) NOT NULL, shipped_at TIMESTAMP,
			gift BOOLEAN NOT NULL)`,
		// A table without a primary key: rows are picked by rowid (DuckDB)
		// or ctid (PostgreSQL).
		`CREATE TABLE notes (customer_id INTEGER, body VARCHAR(40))`,
	}
	for i := 1; i <= 12; i++ {
		city := fmt.Sprintf("'City%d'", i%4)
		if i%5 == 0 {
			city = "NULL"
		}
		stmts = append(stmts, fmt.Sprintf("INSERT INTO customers VALUES (%d, 'Name%d', %s, %d)", i, i, city, 1+i%3))
	}
	for i := 1; i <= 40; i++ {
		status := []string{"paid", "shipped", "cancelled"}[i%3]
		stmts = append(stmts, fmt.Sprintf("INSERT INTO orders VALUES (%d, %d, '2024-%02d-%02d', %d.50, '%s', '2024-%02d-%02d 10:%02d:00', %v)",
			i, 1+(i*7)%12, 1+i%12, 2+i%25, 10+i*3, status, 1+i%12, 3+i%25, i, i%4 == 0))
	}
	for i := 1; i <= 6; i++ {
		stmts = append(stmts, fmt.Sprintf("INSERT INTO notes VALUES (%d, 'note %d')", i, i%3))
	}
	return stmts
}

// engineTasks are toyTasks on database db, written so that DuckDB (which
// wants every selected column grouped) runs them too.
func engineTasks(db string) []sqlgym.Task {
	var out []sqlgym.Task
	for _, t := range toyTasks {
		t.DB = db
		if t.ID == "names" {
			t.SQL = "SELECT name, COUNT(*) FROM customers JOIN orders ON orders.customer_id = customers.customer_id GROUP BY customers.customer_id, name"
		}
		out = append(out, t)
	}
	return append(out,
		sqlgym.Task{ID: "notes", DB: db, SQL: "SELECT COUNT(*) FROM notes WHERE body = 'note 1'", Complexity: "filter"},
		// For the rewrites of the no-false-negatives check: BETWEEN, IN.
		sqlgym.Task{ID: "between", DB: db, SQL: "SELECT order_id FROM orders WHERE amount BETWEEN 40 AND 80", Complexity: "filter"},
		sqlgym.Task{ID: "paid", DB: db, SQL: "SELECT name FROM customers WHERE customer_id IN (SELECT customer_id FROM orders WHERE status = 'paid')", Complexity: "subquery"},
		// A gold in SQLite's own function, with the other engines' gold
		// beside it (Task.GoldFor): the generation must use theirs.
		sqlgym.Task{ID: "march", DB: db, SQL: "SELECT COUNT(*) FROM orders WHERE strftime('%m', order_date) = '03' AND amount > 40",
			GoldByDialect: map[sqlgym.Dialect]string{
				sqlgym.DialectDuckDB:   "SELECT COUNT(*) FROM orders WHERE EXTRACT(MONTH FROM order_date) = 3 AND amount > 40",
				sqlgym.DialectPostgres: "SELECT COUNT(*) FROM orders WHERE EXTRACT(MONTH FROM order_date) = 3 AND amount > 40",
			}, Complexity: "date"})
}

// constraintChecks are queries that count the rows breaking the toy's
// declared constraints: each must return 0 on every variant.
var constraintChecks = []string{
	"SELECT COUNT(*) FROM orders WHERE customer_id NOT IN (SELECT customer_id FROM customers)",
	"SELECT COUNT(*) FROM customers WHERE tier NOT BETWEEN 1 AND 3 OR name IS NULL",
	"SELECT COUNT(*) - COUNT(DISTINCT order_id) FROM orders",
	"SELECT COUNT(*) FROM orders WHERE order_date IS NULL OR amount IS NULL OR status IS NULL",
}

// engineCase is one engine's toy database for the shared checks.
type engineCase struct {
	name string // the database's name in the tasks
	url  string
	cat  *catalog.Catalog
	opt  Options
	dir  string
}

func newCatalog(t testing.TB, refs ...string) *catalog.Catalog {
	t.Helper()
	cat, err := catalog.New(catalog.Config{Refs: refs, CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cat.Close() })
	return cat
}

func (ec engineCase) run(t *testing.T, seed uint64, dir string) *DBResult {
	t.Helper()
	ctx := context.Background()
	opt := ec.opt
	opt.Seed = seed
	opt.Log = t.Logf
	g, err := NewGenerator(ctx, ec.cat, ec.name, ec.url, engineTasks(ec.name), opt)
	if err != nil {
		t.Fatal(err)
	}
	res, err := g.Run(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// checkEngine runs the shared checks: the variants kill mutants, keep the
// constraints and every gold, judging through the catalog rejects a
// killed mutant and accepts the gold, and the same seed gives the same
// statements.
func checkEngine(t *testing.T, ec engineCase, variantURL func(Kept) string) *DBResult {
	t.Helper()
	ctx := context.Background()
	res := ec.run(t, 7, ec.dir)
	t.Logf("weak %d -> %d of %d; %d candidates tried, %d dropped", res.Before.Weak, res.After.Weak, res.Before.Screened, res.CandidatesTried, res.CandidatesDropped)
	for _, v := range res.Variants {
		t.Logf("%s: %d statements, kills %d", v.Name, len(v.Statements), v.Kills)
	}
	if res.Before.Weak == 0 {
		t.Fatalf("the toy data was built weak, but the screen found no weak task: %+v", res.Before)
	}
	if res.After.Weak >= res.Before.Weak {
		t.Errorf("weak tasks %d before, %d after: the variants killed nothing", res.Before.Weak, res.After.Weak)
	}
	if len(res.Variants) == 0 || len(res.Variants) > 3 {
		t.Fatalf("kept %d variants, want 1 to 3", len(res.Variants))
	}
	if res.Digest == "" {
		t.Error("no digest of the original")
	}
	for _, v := range res.Variants {
		u := variantURL(v)
		if v.Digest == "" || v.Digest == res.Digest {
			t.Errorf("%s: digest %q, the original's %q: a variant must differ from the original", v.Name, v.Digest, res.Digest)
		}
		eng, err := engine.Open(ctx, u, engine.Options{})
		if err != nil {
			t.Fatalf("open %s: %v", u, err)
		}
		for _, q := range constraintChecks {
			rs, err := eng.Query(ctx, q, sqlgym.Limits{})
			if err != nil {
				t.Fatalf("%s: %s: %v", v.Name, q, err)
			}
			if n := rs.Rows[0][0].Int; n != 0 {
				t.Errorf("%s breaks a constraint: %s = %d", v.Name, q, n)
			}
		}
		eng.Close()
	}
	// Every gold runs deterministically on every variant (the target's own
	// check, run again on the kept variants).
	d := sqlgym.URLDialect(ec.url)
	var want []string
	for _, tk := range engineTasks(ec.name) {
		want = append(want, tk.GoldFor(d))
	}
	if res.Before.GoldErrors != 0 {
		t.Errorf("%d golds failed on the original (%v): the generation screened a gold not written for %s", res.Before.GoldErrors, res.Before.Broken, d)
	}
	for _, v := range res.Variants {
		st, err := checkGoldsURL(ctx, variantURL(v), want, sqlgym.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		if len(st) != len(want) {
			t.Fatalf("%s: %d golds checked, want %d", v.Name, len(st), len(want))
		}
		for q, s := range st {
			if !s.ok {
				t.Errorf("%s: gold %q fails or is not deterministic", v.Name, q)
			}
		}
	}

	// A near miss the original rewards is wrong on the variants, judged
	// through the catalog with the task's db_variants; the gold stays right.
	var task sqlgym.Task
	var wrong string
	for _, tk := range engineTasks(ec.name) {
		if ks := res.Killed[tk.ID]; len(ks) > 0 {
			task, wrong = tk, ks[0].SQL
			break
		}
	}
	if wrong == "" {
		t.Fatal("no killed mutant to try")
	}
	for _, v := range res.Variants {
		task.DBVariants = append(task.DBVariants, variantURL(v))
	}
	tasks := []sqlgym.Task{task}
	plain := verify.New(ec.cat, tasks, verify.Config{}).Verify(ctx, verify.Answer{TaskID: task.ID, SQL: wrong})
	varied := verify.New(ec.cat, tasks, verify.Config{Variants: true}).Verify(ctx, verify.Answer{TaskID: task.ID, SQL: wrong})
	if plain.Outcome != sqlgym.OutcomeCorrect {
		t.Fatalf("on the original alone the mutant %q is %s (%s); it was recorded as one the original cannot tell", wrong, plain.Outcome, plain.Detail)
	}
	if varied.Outcome != sqlgym.OutcomeWrong {
		t.Errorf("with --variants the mutant %q is %s (%s), want wrong", wrong, varied.Outcome, varied.Detail)
	}
	gold := verify.New(ec.cat, tasks, verify.Config{Variants: true}).Verify(ctx, verify.Answer{TaskID: task.ID, SQL: task.SQL + " "})
	if gold.Outcome != sqlgym.OutcomeCorrect {
		t.Errorf("with --variants the gold itself is %s (%s)", gold.Outcome, gold.Detail)
	}

	// No false negatives: rewrites of every gold that mean the same on any
	// data stay correct on the variants.
	all := engineTasks(ec.name)
	for i := range all {
		all[i].DBVariants = task.DBVariants
	}
	noFalseNegatives(t, ec.cat, all, 15, plainRewrites)
	return res
}

func TestDuckDBVariants(t *testing.T) {
	ctx := context.Background()
	src := filepath.Join(t.TempDir(), "toy.duckdb")
	if err := duckdb.Create(ctx, src, toyStmts()); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "toy")
	if err := os.Mkdir(out, 0o755); err != nil {
		t.Fatal(err)
	}
	ec := engineCase{name: "toy", url: "duckdb:" + src, cat: newCatalog(t, "toy=duckdb:"+src),
		opt: Options{MaxVariants: 2, Candidates: 3}, dir: out}
	res := checkEngine(t, ec, func(k Kept) string { return "duckdb:" + k.Path })
	for _, v := range res.Variants {
		if want := filepath.Join(out, v.Name+".duckdb"); v.Path != want {
			t.Errorf("variant %s written to %s, want %s (Spider's layout, as DuckDB files)", v.Name, v.Path, want)
		}
		if _, err := os.Stat(v.Path + ".wal"); err == nil {
			t.Errorf("%s has a write-ahead log beside it: the variant is not one file", v.Path)
		}
	}
	left, _ := filepath.Glob(filepath.Join(out, ".candidates-*"))
	if len(left) > 0 {
		t.Errorf("candidates left behind: %v", left)
	}

	// The catalog finds the variants beside the copy of the original
	// (DIR/NAME/NAME_vK.duckdb), and judging there rejects a killed mutant
	// with no db_variants in the task.
	copyURL := "duckdb:" + filepath.Join(out, "toy.duckdb")
	cat := newCatalog(t, "toy="+copyURL)
	urls, err := cat.Variants("toy")
	if err != nil {
		t.Fatal(err)
	}
	if len(urls) != 1+len(res.Variants) || urls[0] != copyURL {
		t.Fatalf("catalog.Variants = %v, want the copy and %d variants", urls, len(res.Variants))
	}
	for _, u := range urls[1:] {
		if !strings.HasPrefix(u, "duckdb:") || !strings.HasSuffix(u, ".duckdb") {
			t.Errorf("variant URL %q is not a DuckDB file", u)
		}
	}
	var task sqlgym.Task
	var wrong string
	for _, tk := range engineTasks("toy") {
		if ks := res.Killed[tk.ID]; len(ks) > 0 {
			task, wrong = tk, ks[0].SQL
		}
	}
	varied := verify.New(cat, []sqlgym.Task{task}, verify.Config{Variants: true}).Verify(ctx, verify.Answer{TaskID: task.ID, SQL: wrong})
	if varied.Outcome != sqlgym.OutcomeWrong {
		t.Errorf("judged on the variants the catalog found, the mutant %q is %s (%s), want wrong", wrong, varied.Outcome, varied.Detail)
	}

	// Determinism: the same seed gives the same statements, another seed
	// other ones (TestGenerateIsDeterministic checks it on SQLite).
	t.Run("deterministic", func(t *testing.T) {
		testenv.Slow(t, "two more generations on DuckDB, a minute or more")
		again := ec.run(t, 7, mkdir(t))
		sameVariants(t, res, again, true)
		other := ec.run(t, 8, mkdir(t))
		sameVariants(t, res, other, false)
	})
}

func mkdir(t *testing.T) string {
	d := filepath.Join(t.TempDir(), "toy")
	if err := os.Mkdir(d, 0o755); err != nil {
		t.Fatal(err)
	}
	return d
}

// sameVariants checks that a and b kept the same statements (want) or
// not.
func sameVariants(t *testing.T, a, b *DBResult, want bool) {
	t.Helper()
	same := len(a.Variants) == len(b.Variants)
	for i := 0; same && i < len(a.Variants); i++ {
		same = slices.Equal(a.Variants[i].Statements, b.Variants[i].Statements)
	}
	if same != want {
		t.Errorf("seeds %d and %d: same variants %v, want %v", a.Seed, b.Seed, same, want)
	}
}

func TestPostgresVariants(t *testing.T) {
	admin := testenv.Postgres(t)
	name := testenv.UniqueName("toy")
	reader, schema := testenv.PostgresReader(t, func(ctx context.Context, dsn, schema string) error {
		return postgres.Load(ctx, dsn, schema, false, toyStmts())
	})
	// Registered after PostgresReader, so it runs first: the reader role
	// can only be dropped once the schemas it may read are gone.
	t.Cleanup(func() { dropLike(t, admin, name) })
	url := engine.WithSchema(reader, schema)
	ec := engineCase{name: name, url: url, cat: newCatalog(t, name+"="+url),
		opt: Options{MaxVariants: 2, Candidates: 3, PostgresAdmin: admin}}
	res := checkEngine(t, ec, func(k Kept) string { return k.URL })
	ctx := context.Background()
	// notes has no primary key: its rows are picked by ctid, and no
	// statement may name SQLite's rowid, which PostgreSQL does not have.
	picked := false
	for _, v := range res.Variants {
		for _, s := range v.Statements {
			picked = picked || strings.Contains(s, `"notes"`) && strings.Contains(s, "ctid")
			if strings.Contains(s, "rowid") || strings.Contains(s, "WHERE 1 ") {
				t.Errorf("%s: a SQLite-only statement: %s", v.Name, s)
			}
		}
	}
	if !picked {
		t.Errorf("no kept statement picks a row of notes (no primary key) by ctid")
	}
	for i, v := range res.Variants {
		want := fmt.Sprintf("%s_v%d", name, i+1)
		loc, err := engine.ParseURL(v.URL)
		if err != nil || loc.Schema != want || loc.DSN != reader {
			t.Errorf("variant %s at %q (schema %q, DSN %q), want schema %s read with the database's DSN", v.Name, v.URL, loc.Schema, loc.DSN, want)
		}
	}
	// Only the kept variants remain: the candidates were dropped.
	left, err := postgres.SchemasLike(ctx, admin, "^"+name+"_")
	if err != nil {
		t.Fatal(err)
	}
	if len(left) != len(res.Variants) {
		t.Errorf("schemas left: %v, want only the %d variants", left, len(res.Variants))
	}

	// A second run refuses to overwrite the variant schemas without
	// Replace.
	g, err := NewGenerator(ctx, ec.cat, name, url, engineTasks(name), Options{MaxVariants: 3, Candidates: 6, Seed: 7, PostgresAdmin: admin})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.Run(ctx, ""); err == nil || !strings.Contains(err.Error(), "already hold variants") {
		t.Fatalf("a second run over the variant schemas: %v, want a refusal", err)
	}
	// With Replace it makes the same ones again: a third generation on
	// PostgreSQL, where each build copies a schema (half this test's 185 s
	// at a load of 20), so it runs with the slow tests, as DuckDB's do.
	t.Run("replace", func(t *testing.T) {
		testenv.Slow(t, "a third generation on PostgreSQL, a minute or more")
		ec.opt.Replace = true
		again := ec.run(t, 7, "")
		sameVariants(t, res, again, true)
	})

	// A name whose candidate schemas PostgreSQL would cut short is refused.
	long := strings.Repeat("n", 60)
	g, err = NewGenerator(ctx, ec.cat, long, url, engineTasks(long), Options{Candidates: 6, PostgresAdmin: admin})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.Run(ctx, ""); err == nil || !strings.Contains(err.Error(), "too long") {
		t.Errorf("a 60-byte database name: %v, want a refusal", err)
	}
}

// dropLike drops the schemas whose names start with prefix_.
func dropLike(t testing.TB, admin, prefix string) {
	ctx := context.Background()
	ss, err := postgres.SchemasLike(ctx, admin, "^"+prefix+"_")
	if err != nil {
		t.Errorf("list schemas: %v", err)
		return
	}
	for _, s := range ss {
		if err := postgres.DropSchema(ctx, admin, s); err != nil {
			t.Errorf("drop %s: %v", s, err)
		}
	}
}

// The extreme rows (fuzzed and aimed) step a timestamp by a day on DuckDB,
// where no integer adds to one, and leave a boolean alone: their groups
// apply on the real engine.
func TestExtremesStepByTheEngine(t *testing.T) {
	ctx := context.Background()
	src := filepath.Join(t.TempDir(), "toy.duckdb")
	if err := duckdb.Create(ctx, src, toyStmts()); err != nil {
		t.Fatal(err)
	}
	g, err := NewGenerator(ctx, newCatalog(t, "toy=duckdb:"+src), "toy", "duckdb:"+src, engineTasks("toy"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	comps, ths := compsOf([]string{"SELECT MAX(amount) FROM orders WHERE status = 'paid'"}, g.Schema())
	p := &planner{schema: g.Schema(), rng: rand.New(rand.NewPCG(1, 1)), comps: comps, ths: ths, dialect: sqlgym.DialectDuckDB}
	var gs []group
	for _, gr := range append(p.extremes(), p.plan()...) {
		if strings.Contains(gr.what, "extreme") && strings.Contains(strings.Join(gr.stmts, ";"), `MAX("shipped_at")`) {
			gs = append(gs, gr)
		}
	}
	if len(gs) == 0 {
		t.Fatal("no extreme row of shipped_at planned")
	}
	// A copy: the catalog holds the original open.
	edited := filepath.Join(t.TempDir(), "edited.duckdb")
	if err := copyFile(edited, src); err != nil {
		t.Fatal(err)
	}
	applied, err := duckdb.Edit(ctx, edited, groupStmts(gs))
	if err != nil {
		t.Fatal(err)
	}
	stepped := 0
	for i, gr := range gs {
		st := strings.Join(gr.stmts, ";")
		if strings.Contains(st, `MAX("gift")`) {
			t.Errorf("a boolean is stepped or maximised: %s", st)
		}
		if strings.Contains(st, "INTERVAL '1 day'") {
			if !applied[i] {
				t.Errorf("the stepped group did not apply on DuckDB: %s", st)
			}
			stepped++
		}
		if regexp.MustCompile(`MAX\("shipped_at"\)( FROM "orders"\))? \+ 1`).MatchString(st) {
			t.Errorf("a timestamp stepped by an integer: %s", st)
		}
	}
	if stepped == 0 {
		t.Errorf("no extreme group steps shipped_at by a day: %v", gs)
	}
}

// Schema is the database's schema, as the generator read it.
func (g *Generator) Schema() *sqlgym.Schema { return g.schema }
