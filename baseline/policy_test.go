package baseline

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/model"
	"github.com/sqlgym/sqlgym/verify/extract"
)

func task(id, db, split, q, sql string) sqlgym.Task {
	return sqlgym.Task{ID: id, DB: db, Split: split, Question: q, SQL: sql}
}

func complete(t *testing.T, p *Policy, id string, k int) []model.Completion {
	t.Helper()
	out, err := p.Complete(context.Background(), model.Prompt{TaskID: id}, k)
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != k {
		t.Fatalf("%d completions, want %d", len(out), k)
	}
	return out
}

// sqlOf extracts a completion's query the way verification does.
func sqlOf(t *testing.T, c model.Completion) string {
	t.Helper()
	r := extract.FromCompletion(c.Text, c.FinishReason)
	if r.Status != extract.StatusOK || r.Method != extract.MethodFenceSQL {
		t.Fatalf("completion %q: extraction %+v, want a fenced sql block", c.Text, r)
	}
	return r.SQL
}

// TestBM25HandComputed checks scores and order on a corpus small enough to
// compute by hand. N = 4 documents of lengths 5, 6, 5, 7 (mean 5.75);
// df(how) = df(many) = 2, df(singers) = 3. idf = ln(1 + (N-n+0.5)/(n+0.5)):
// ln 2 = 0.693147 for n = 2, ln(1 + 1.5/3.5) = 0.356675 for n = 3. A term
// with tf = 1 in a document of length L adds idf * 2.2 / (1 + 1.2 * (0.25
// + 0.75 * L / 5.75)): factor 1.056367 at L = 5, 0.982524 at L = 6 and
// 0.918330 at L = 7. So "how many singers" scores
// s1 = (0.693147*2 + 0.356675) * 1.056367 = 1.841215, s3 = 0.693147 * 2 *
// 1.056367 = 1.464440, s2 = 0.356675 * 0.982524 = 0.350442 and s4 =
// 0.356675 * 0.918330 = 0.327546.
func TestBM25HandComputed(t *testing.T) {
	tasks := []sqlgym.Task{
		task("d2", "db", "train", "list the names of all singers", "SELECT name FROM singer"),
		task("d4", "db", "", "what is the average age of singers", "SELECT avg(age) FROM singer"),
		task("d1", "db", "train", "how many singers are there", "SELECT count(*) FROM singer"),
		task("d3", "db", "train", "how many concerts are there", "SELECT count(*) FROM concert"),
		task("q", "db", "holdout", "how many singers", "SELECT count(*) FROM singer"),
	}
	p, err := New(tasks, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ms, err := p.Retrieve("q", 10)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		id    string
		score float64
	}{{"d1", 1.841215}, {"d3", 1.464440}, {"d2", 0.350442}, {"d4", 0.327546}}
	if len(ms) != len(want) {
		t.Fatalf("%d matches, want %d", len(ms), len(want))
	}
	for i, w := range want {
		if ms[i].Task.ID != w.id || math.Abs(ms[i].Score-w.score) > 1e-5 {
			t.Errorf("match %d = %s %.6f, want %s %.6f", i, ms[i].Task.ID, ms[i].Score, w.id, w.score)
		}
	}
	if got := ms[0].Tables; len(got) != 1 || got[0] != "singer" {
		t.Errorf("tables of the best match %q, want [singer]", got)
	}
	if p.Indexed("db") != 4 {
		t.Errorf("indexed %d tasks, want 4 (the held-out one is not)", p.Indexed("db"))
	}
}

// corpus is a database with a held-out twin of a training question and
// several near-identical training questions, so that sampling has choices.
func corpus() []sqlgym.Task {
	ts := []sqlgym.Task{
		task("secret", "shop", "holdout", "How many orders did customers place in total?", "SELECT 'HELD OUT GOLD'"),
		task("self", "shop", "train", "How many orders did customers place?", "SELECT 'SELF'"),
		task("other-db", "music", "train", "How many orders did customers place?", "SELECT 'OTHER DATABASE'"),
	}
	for i := range 6 {
		ts = append(ts, task(fmt.Sprintf("t%d", i), "shop", "train",
			"How many orders did customers place "+strings.Repeat("please ", i)+"overall?", fmt.Sprintf("SELECT %d", i)))
	}
	ts = append(ts, task("far", "shop", "train", "List product names by price.", "SELECT name FROM products ORDER BY price"))
	return ts
}

func TestHoldoutNeverRetrieved(t *testing.T) {
	p, err := New(corpus(), Options{Temperature: 5, TopN: 100, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"secret", "self", "t0"} {
		ms, err := p.Retrieve(id, 1000)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range ms {
			if m.Task.Split == sqlgym.SplitHoldout || m.Task.DB != "shop" {
				t.Errorf("task %s retrieved %s (split %q, db %s)", id, m.Task.ID, m.Task.Split, m.Task.DB)
			}
		}
		for _, c := range complete(t, p, id, 200) {
			if s := sqlOf(t, c); strings.Contains(s, "HELD OUT") || strings.Contains(s, "OTHER DATABASE") {
				t.Fatalf("task %s answered with %s", id, s)
			}
		}
	}
}

func TestTaskItselfNeverRetrieved(t *testing.T) {
	p, err := New(corpus(), Options{Temperature: 5, TopN: 100, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	ms, err := p.Retrieve("self", 1000)
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 7 {
		t.Errorf("%d matches for self, want the 7 other training tasks of its database", len(ms))
	}
	for _, m := range ms {
		if m.Task.ID == "self" {
			t.Fatal("a task retrieved itself")
		}
	}
	for _, c := range complete(t, p, "self", 200) {
		if strings.Contains(sqlOf(t, c), "SELF") {
			t.Fatal("a task was answered with its own gold")
		}
	}
}

func TestGreedyAtTemperatureZero(t *testing.T) {
	p, err := New(corpus(), Options{Seed: 9})
	if err != nil {
		t.Fatal(err)
	}
	ms, err := p.Retrieve("secret", 1)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range complete(t, p, "secret", 8) {
		if got := sqlOf(t, c); got != ms[0].SQL {
			t.Errorf("sample %d = %s, want the best match %s", i, got, ms[0].SQL)
		}
		if !strings.Contains(c.Reasoning, ms[0].Task.ID) || c.FinishReason != model.FinishStop {
			t.Errorf("sample %d: reasoning %q, finish %q", i, c.Reasoning, c.FinishReason)
		}
	}
}

func TestSamplingDeterministicBySeed(t *testing.T) {
	answers := func(seed uint64, k int) []string {
		p, err := New(corpus(), Options{Temperature: 1, Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, c := range complete(t, p, "secret", k) {
			out = append(out, sqlOf(t, c))
		}
		return out
	}
	a, b := answers(7, 32), answers(7, 32)
	if strings.Join(a, "|") != strings.Join(b, "|") {
		t.Fatalf("same seed, different samples:\n%v\n%v", a, b)
	}
	// Sample i depends on its index, not on how many were asked for.
	if short := answers(7, 5); strings.Join(short, "|") != strings.Join(a[:5], "|") {
		t.Fatalf("k=5 gave %v, the first five of k=32 are %v", short, a[:5])
	}
	if c := answers(8, 32); strings.Join(c, "|") == strings.Join(a, "|") {
		t.Fatal("seeds 7 and 8 drew the same 32 samples")
	}
	distinct := map[string]bool{}
	for _, s := range a {
		distinct[s] = true
	}
	if len(distinct) < 2 {
		t.Fatalf("32 samples at T=1 among near-ties all chose %v", a[0])
	}

	// Concurrent calls give the same samples as sequential ones.
	p, _ := New(corpus(), Options{Temperature: 1, Seed: 7})
	var wg sync.WaitGroup
	got := make([][]model.Completion, 8)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i], _ = p.Complete(context.Background(), model.Prompt{TaskID: "secret"}, 32)
		}()
	}
	wg.Wait()
	for _, cs := range got {
		for j, c := range cs {
			if sqlOf(t, c) != a[j] {
				t.Fatalf("concurrent sample %d = %s, want %s", j, sqlOf(t, c), a[j])
			}
		}
	}
}

// TestSamplingFollowsSoftmax draws many samples and checks each match's
// share against exp(score / T) normalised over the top matches, and that
// matches beyond TopN are never drawn.
func TestSamplingFollowsSoftmax(t *testing.T) {
	const temp, topN, draws = 0.7, 4, 4000
	p, err := New(corpus(), Options{Temperature: temp, Seed: 3, TopN: topN})
	if err != nil {
		t.Fatal(err)
	}
	ms, _ := p.Retrieve("secret", 100)
	want := map[string]float64{}
	total := 0.0
	for _, m := range ms[:topN] {
		want[m.SQL] = math.Exp(m.Score / temp)
		total += want[m.SQL]
	}
	counts := map[string]int{}
	for _, c := range complete(t, p, "secret", draws) {
		counts[sqlOf(t, c)]++
	}
	for sql, n := range counts {
		w, ok := want[sql]
		if !ok {
			t.Errorf("%s drawn %d times: it is not among the top %d", sql, n, topN)
			continue
		}
		prob := w / total
		sd := math.Sqrt(prob * (1 - prob) / draws)
		if got := float64(n) / draws; math.Abs(got-prob) > 4*sd+1e-9 {
			t.Errorf("%s drawn %.3f of the time, softmax says %.3f (sd %.3f)", sql, got, prob, sd)
		}
	}
	if len(counts) < 2 {
		t.Errorf("only %d distinct answers in %d draws", len(counts), draws)
	}
}

func TestCompleteErrorsAndEmptyDatabase(t *testing.T) {
	ts := append(corpus(), task("lonely", "empty", "holdout", "How many?", "SELECT 1"))
	p, err := New(ts, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Complete(context.Background(), model.Prompt{TaskID: "nope"}, 1); !errors.Is(err, ErrUnknownTask) {
		t.Errorf("unknown task: err = %v", err)
	}
	if _, err := p.Complete(context.Background(), model.Prompt{TaskID: "self"}, 0); err == nil {
		t.Error("k = 0 gave no error")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := p.Complete(ctx, model.Prompt{TaskID: "self"}, 1); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: err = %v", err)
	}
	for _, c := range complete(t, p, "lonely", 2) {
		if r := extract.FromCompletion(c.Text, c.FinishReason); r.Status != extract.StatusNoQuery {
			t.Errorf("no training task: completion %q extracts to %+v, want no_query", c.Text, r)
		}
	}
	if _, err := New([]sqlgym.Task{task("a", "d", "", "q", "SELECT 1"), task("a", "d", "", "q", "SELECT 2")}, Options{}); err == nil {
		t.Error("duplicate ids accepted")
	}
	if _, err := New(nil, Options{Temperature: -1}); err == nil {
		t.Error("negative temperature accepted")
	}
}

func TestCompleteAdaptsValues(t *testing.T) {
	ts := []sqlgym.Task{
		task("a", "shop", "train", "How many customers live in France?", "SELECT count(*) FROM customers WHERE country = 'France'"),
		task("b", "shop", "train", "List the products that cost more than 50.", "SELECT name FROM products WHERE price > 50"),
		task("q", "shop", "holdout", "How many customers live in Spain?", "SELECT count(*) FROM customers WHERE country = 'Spain'"),
	}
	p, err := New(ts, Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := complete(t, p, "q", 1)[0]
	if got, want := sqlOf(t, c), "SELECT count(*) FROM customers WHERE country = 'Spain'"; got != want {
		t.Fatalf("answer %s, want %s", got, want)
	}
	if !strings.Contains(c.Reasoning, "Replaced 'France' with 'Spain'") {
		t.Errorf("reasoning %q does not say what was replaced", c.Reasoning)
	}
}

// TestCompleteAnswersInTheDatabasesDialect: on a database Options.Dialects
// names as MySQL, the retrieved task's MySQL gold is the answer (its
// literals adapted), not its SQLite sql; elsewhere the sql.
func TestCompleteAnswersInTheDatabasesDialect(t *testing.T) {
	year := task("a", "shop", "train", "How many customers in France joined in 2023?", "SELECT count(*) FROM customers WHERE country = 'France' AND strftime('%Y', joined) = '2023'")
	year.GoldByDialect = map[sqlgym.Dialect]string{sqlgym.DialectMySQL: "SELECT count(*) FROM customers WHERE country = 'France' AND YEAR(joined) = 2023"}
	q := task("q", "shop", "holdout", "How many customers in Spain joined in 2023?", "")
	for _, c := range []struct {
		dialects map[string]sqlgym.Dialect
		want     string
	}{
		{map[string]sqlgym.Dialect{"shop": sqlgym.DialectMySQL}, "SELECT count(*) FROM customers WHERE country = 'Spain' AND YEAR(joined) = 2023"},
		{map[string]sqlgym.Dialect{"shop": sqlgym.DialectSQLite}, "SELECT count(*) FROM customers WHERE country = 'Spain' AND strftime('%Y', joined) = '2023'"},
		{nil, "SELECT count(*) FROM customers WHERE country = 'Spain' AND strftime('%Y', joined) = '2023'"},
	} {
		p, err := New([]sqlgym.Task{year, q}, Options{Dialects: c.dialects})
		if err != nil {
			t.Fatal(err)
		}
		if got := sqlOf(t, complete(t, p, "q", 1)[0]); got != c.want {
			t.Errorf("dialects %v: answer %s, want %s", c.dialects, got, c.want)
		}
	}
}

func TestKnownValues(t *testing.T) {
	s := &sqlgym.Schema{Tables: []sqlgym.Table{{Name: "orders", Columns: []sqlgym.Column{
		{Name: "status", Samples: []sqlgym.Value{sqlgym.Text("shipped"), sqlgym.Text("Shipped"), sqlgym.Text("ok"), sqlgym.Text("2024")}},
		{Name: "n", Samples: []sqlgym.Value{sqlgym.Int(3)}},
		{Name: "city", Samples: []sqlgym.Value{sqlgym.Text("São Paulo"), sqlgym.Text("the")}},
	}}}}
	got := KnownValues(s)
	if strings.Join(got, "|") != "shipped|São Paulo" {
		t.Fatalf("KnownValues = %q, want [shipped São Paulo]", got)
	}
}
