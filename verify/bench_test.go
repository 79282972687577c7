package verify_test

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/catalog"
	"github.com/sqlgym/sqlgym/engine/sqlite"
	"github.com/sqlgym/sqlgym/importer"
	"github.com/sqlgym/sqlgym/internal/testenv"
	"github.com/sqlgym/sqlgym/sqltext"
	"github.com/sqlgym/sqlgym/verify"
	"github.com/sqlgym/sqlgym/verify/extract"
)

// shopGolds are 32 questions' golds on the built-in shop database, of the
// sizes and shapes an RL batch sees.
var shopGolds = []string{
	"SELECT count(*) FROM orders",
	"SELECT status, count(*) FROM orders GROUP BY status",
	"SELECT country, count(*) FROM customers GROUP BY country ORDER BY count(*) DESC, country",
	"SELECT name, price FROM products WHERE price > 100 ORDER BY price DESC, name",
	"SELECT c.first_name, c.last_name FROM customers c JOIN orders o ON o.customer_id = c.customer_id WHERE o.total_amount > 500",
	"SELECT avg(rating) FROM reviews",
	"SELECT p.name, avg(r.rating) FROM products p JOIN reviews r ON r.product_id = p.product_id GROUP BY p.name HAVING count(*) >= 3",
	"SELECT carrier, count(*) FROM shipments WHERE delivered_at IS NULL GROUP BY carrier",
	"SELECT method, sum(amount) FROM payments WHERE status = 'completed' GROUP BY method",
	"SELECT strftime('%Y-%m', order_date) AS m, count(*) FROM orders GROUP BY m ORDER BY m",
	"SELECT name FROM categories WHERE parent_id IS NULL",
	"SELECT count(DISTINCT customer_id) FROM orders",
	"SELECT max(total_amount) FROM orders",
	"SELECT o.order_id, o.total_amount FROM orders o ORDER BY o.total_amount DESC, o.order_id LIMIT 10",
	"SELECT p.name FROM products p WHERE p.stock = 0",
	"SELECT c.name, count(p.product_id) FROM categories c LEFT JOIN products p ON p.category_id = c.category_id GROUP BY c.name",
	"SELECT city, count(*) FROM customers WHERE city IS NOT NULL GROUP BY city HAVING count(*) > 2",
	"SELECT count(*) FROM reviews WHERE review_text IS NULL",
	"SELECT sum(quantity) FROM order_items",
	"SELECT o.status, avg(o.total_amount) FROM orders o GROUP BY o.status",
	"SELECT c.country, sum(o.total_amount) FROM customers c JOIN orders o ON o.customer_id = c.customer_id GROUP BY c.country ORDER BY 2 DESC LIMIT 5",
	"SELECT product_id, sum(quantity * unit_price) FROM order_items GROUP BY product_id ORDER BY 2 DESC LIMIT 5",
	"SELECT count(*) FROM shipments WHERE carrier = 'DHL'",
	"SELECT min(order_date), max(order_date) FROM orders",
	"SELECT first_name, last_name FROM customers WHERE customer_id NOT IN (SELECT customer_id FROM orders)",
	"SELECT count(*) FROM payments WHERE status = 'refunded'",
	"SELECT r.rating, count(*) FROM reviews r GROUP BY r.rating ORDER BY r.rating",
	"WITH t AS (SELECT customer_id, count(*) AS n FROM orders GROUP BY customer_id) SELECT max(n) FROM t",
	"SELECT p.name, p.price FROM products p WHERE p.price = (SELECT max(price) FROM products)",
	"SELECT count(*) FROM order_items WHERE discount > 0",
	"SELECT o.order_id FROM orders o JOIN shipments s ON s.order_id = o.order_id WHERE s.delivered_at IS NULL",
	"SELECT avg(julianday(delivered_at) - julianday(shipped_at)) FROM shipments WHERE delivered_at IS NOT NULL",
}

// grpoBatch makes 32 tasks x 16 answers with the duplicates sampling
// produces: most answers repeat the gold (some with other case and
// spacing), some are wrong in a few recurring ways, some do not run.
func grpoBatch(golds []string, db string) ([]sqlgym.Task, []verify.Answer) {
	rng := rand.New(rand.NewPCG(1, 2))
	var tasks []sqlgym.Task
	var answers []verify.Answer
	for i, g := range golds {
		id := fmt.Sprintf("%s_%02d", db, i)
		tasks = append(tasks, sqlgym.Task{ID: id, DB: db, SQL: g})
		variants := []string{
			g,
			strings.ToLower(g),
			"SELECT * FROM (" + g + ") LIMIT 1",
			"SELECT count(*) FROM (" + g + ")",
			strings.Replace(g, "SELECT", "SELECT DISTINCT", 1),
			"SELECT * FROM no_such_table",
		}
		weights := []int{8, 3, 2, 1, 1, 1}
		for s := 0; s < 16; s++ {
			r := rng.IntN(16)
			k := 0
			for r >= weights[k] {
				r -= weights[k]
				k++
			}
			answers = append(answers, verify.Answer{TaskID: id, Sample: s, SQL: variants[k]})
		}
	}
	return tasks, answers
}

func benchVerify(b *testing.B, cat *catalog.Catalog, golds []string, db string) {
	tasks, answers := grpoBatch(golds, db)
	ctx := context.Background()
	// Counting statements gives a measure the machine's load cannot blur.
	dbs := &countingDBs{Catalog: cat, calls: map[string]int{}}
	v := verify.New(dbs, tasks, verify.Config{})
	v.VerifyBatch(ctx, answers) // warm: golds cached, pools open
	b.Run("verify", func(b *testing.B) {
		before := total(dbs.calls)
		cpu := selfCPU()
		for b.Loop() {
			v.VerifyBatch(ctx, answers)
		}
		reportCPU(b, cpu)
		b.ReportMetric(float64(len(answers)), "answers/op")
		b.ReportMetric(float64(total(dbs.calls)-before)/float64(b.N), "statements/op")
	})
	url, _ := cat.Resolve(db)
	benchFloors(b, ctx, cat, url, warmDistinct(sqlgym.URLDialect(url), golds, answers), v.Config().Concurrency,
		func() { v.VerifyBatch(ctx, answers) })
}

// warmDistinct is what a warm verifier must run of a batch: its distinct
// statements (completions extracted, keyed as the verifier keys them),
// less those that are a gold's text (judged on the cached gold result).
func warmDistinct(d sqlgym.Dialect, golds []string, answers []verify.Answer) []string {
	seen := map[string]bool{}
	for _, g := range golds {
		seen[sqltext.Key(d, g)] = true
	}
	var out []string
	for _, a := range answers {
		q := a.SQL
		if q == "" {
			q = extract.FromCompletion(a.Completion, a.FinishReason).SQL
		}
		if k := sqltext.Key(d, q); !seen[k] {
			seen[k] = true
			out = append(out, q)
		}
	}
	return out
}

// benchFloors times only executing, once each, the statements a warm
// verifier runs: on the sandboxed engine (execute-distinct) and, for
// SQLite, on C SQLite with no sandbox and no Go values (sqlite.Raw,
// execute-distinct-c: "C SQLite running each distinct query once"). They
// run on as many goroutines as the verifier, so the ratios measure the
// verifier's own work, not parallelism.
func benchFloors(b *testing.B, ctx context.Context, cat *catalog.Catalog, url string, distinct []string, workers int, verifyOnce func()) {
	eng, err := cat.EngineURL(ctx, url)
	if err != nil {
		b.Fatal(err)
	}
	runAll := func(b *testing.B, query func(q string)) {
		cpu := selfCPU()
		for b.Loop() {
			runDistinct(distinct, workers, query)
		}
		reportCPU(b, cpu)
		b.ReportMetric(float64(len(distinct)), "queries/op")
	}
	b.Run("execute-distinct", func(b *testing.B) {
		runAll(b, func(q string) { eng.Query(ctx, q, sqlgym.Limits{}) })
	})
	path, ok := strings.CutPrefix(url, "sqlite:")
	if !ok {
		return
	}
	pool := make(chan *sqlite.Raw, workers)
	for range workers {
		r, err := sqlite.OpenRaw(path)
		if err != nil {
			b.Fatal(err)
		}
		defer r.Close()
		pool <- r
	}
	inC := func(q string) {
		r := <-pool
		r.Count(q)
		pool <- r
	}
	b.Run("execute-distinct-c", func(b *testing.B) { runAll(b, inC) })
	// The ratio itself, measured side by side: each iteration verifies the
	// batch and then runs its distinct statements in C, so a change in the
	// machine's load between the two separate runs above cannot tilt it.
	b.Run("verify-vs-c", func(b *testing.B) {
		var vWall, cWall, vCPU, cCPU time.Duration
		for b.Loop() {
			t0, u0 := time.Now(), selfCPU()
			verifyOnce()
			t1, u1 := time.Now(), selfCPU()
			runDistinct(distinct, workers, inC)
			vWall, vCPU = vWall+t1.Sub(t0), vCPU+u1-u0
			cWall, cCPU = cWall+time.Since(t1), cCPU+selfCPU()-u1
		}
		b.ReportMetric(float64(vWall)/float64(cWall), "wall-ratio")
		if cCPU > 0 {
			b.ReportMetric(float64(vCPU)/float64(cCPU), "cpu-ratio")
		}
	})
}

// runDistinct runs each statement once, on as many goroutines as the
// verifier uses.
func runDistinct(distinct []string, workers int, query func(q string)) {
	var wg sync.WaitGroup
	var next atomic.Int64
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < len(distinct); i = int(next.Add(1) - 1) {
				query(distinct[i])
			}
		}()
	}
	wg.Wait()
}

// BenchmarkGRPOBatchShop verifies a 512-answer batch on the shop database.
// Compare verify with execute-distinct: the verifier's overhead over just
// running each distinct query once.
func BenchmarkGRPOBatchShop(b *testing.B) {
	cat, err := catalog.New(catalog.Config{CacheDir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	defer cat.Close()
	benchVerify(b, cat, shopGolds, "shop")
}

// BenchmarkGRPOBatchSpider does the same on Spider's world_1 database.
func BenchmarkGRPOBatchSpider(b *testing.B) {
	data := testenv.SharedData(b)
	tasks, _, err := importer.Import("spider", filepath.Join(data, "spider_dev"))
	if err != nil {
		b.Fatal(err)
	}
	var golds []string
	for _, t := range tasks {
		if t.DB == "world_1" && len(golds) < 32 {
			golds = append(golds, t.SQL)
		}
	}
	path := testenv.CopyFile(b, filepath.Join(data, "spider_dev", "database", "world_1", "world_1.sqlite"))
	cat, err := catalog.New(catalog.Config{Refs: []string{"world_1=sqlite:" + path}})
	if err != nil {
		b.Fatal(err)
	}
	defer cat.Close()
	benchVerify(b, cat, golds, "world_1")
}

// largeGolds are golds over events, a 200,000-row table, with results
// from one row to a few thousand.
var largeGolds = []string{
	"SELECT kind, count(*) FROM events GROUP BY kind",
	"SELECT user_id, sum(amount) FROM events GROUP BY user_id",
	"SELECT id, amount FROM events WHERE amount > 990",
	"SELECT * FROM events WHERE user_id = 7",
	"SELECT count(*) FROM events WHERE note LIKE '%99%'",
	"SELECT id FROM events ORDER BY amount DESC, id LIMIT 100",
	"SELECT user_id, count(*) FROM events GROUP BY user_id HAVING count(*) > 200",
	"SELECT kind, avg(amount) FROM events GROUP BY kind ORDER BY 2 DESC",
}

// BenchmarkGRPOBatchLarge does the same on a 200,000-row SQLite file:
// there, executing dominates less than comparing and bookkeeping might.
func BenchmarkGRPOBatchLarge(b *testing.B) {
	path := filepath.Join(b.TempDir(), "events.sqlite")
	db, err := sql.Open("sqlite3", "file:"+path)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := db.Exec(`CREATE TABLE events(id INTEGER PRIMARY KEY, user_id INT, kind TEXT, amount REAL, note TEXT);
		WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM c WHERE i < 200000)
		INSERT INTO events SELECT i, i % 1000, 'k' || (i % 7), (i * 7919) % 1000 + 0.5, 'note ' || i FROM c`); err != nil {
		b.Fatal(err)
	}
	db.Close()
	cat, err := catalog.New(catalog.Config{Refs: []string{"events=sqlite:" + path}})
	if err != nil {
		b.Fatal(err)
	}
	defer cat.Close()
	benchVerify(b, cat, largeGolds, "events")
}
