package verify_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"sync"
	"testing"

	_ "github.com/mattn/go-sqlite3" // database/sql driver "sqlite3", for loading and reading the test files

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/catalog"
	"github.com/sqlgym/sqlgym/internal/testenv"
	"github.com/sqlgym/sqlgym/verify"
	"github.com/sqlgym/sqlgym/verify/compare"
)

// countingDBs wraps the real catalog and counts the statements each engine
// runs, to prove golds are cached and duplicate answers run once.
type countingDBs struct {
	*catalog.Catalog
	mu    sync.Mutex
	calls map[string]int // sql -> executions
	// faults, when set for a statement, is asked on each of its calls
	// (numbered from 1) for a failure to report instead of running it:
	// an outage or a safety-net stop cannot be caused on demand.
	faults map[string]func(call int) error
}

type countingEngine struct {
	sqlgym.Engine
	c *countingDBs
}

func (e countingEngine) Query(ctx context.Context, q string, lim sqlgym.Limits) (*sqlgym.ResultSet, error) {
	e.c.mu.Lock()
	e.c.calls[q]++
	n, fault := e.c.calls[q], e.c.faults[q]
	e.c.mu.Unlock()
	if fault != nil {
		if err := fault(n); err != nil {
			return nil, err
		}
	}
	return e.Engine.Query(ctx, q, lim)
}

func (e countingEngine) Unwrap() sqlgym.Engine { return e.Engine }

func (c *countingDBs) EngineURL(ctx context.Context, url string) (sqlgym.Engine, error) {
	eng, err := c.Catalog.EngineURL(ctx, url)
	if err != nil {
		return nil, err
	}
	return countingEngine{eng, c}, nil
}

func newCounting(t *testing.T, cfg catalog.Config) *countingDBs {
	t.Helper()
	cat, err := catalog.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cat.Close() })
	return &countingDBs{Catalog: cat, calls: map[string]int{}}
}

func shopTasks() []sqlgym.Task {
	return []sqlgym.Task{
		{ID: "orders", DB: "shop", SQL: "SELECT count(*) FROM orders"},
		{ID: "top", DB: "shop", SQL: "SELECT order_id FROM orders ORDER BY order_id LIMIT 3"},
		{ID: "broken", DB: "shop", SQL: "SELECT * FROM no_such_table"},
	}
}

func TestOutcomesAndRewardsOnShop(t *testing.T) {
	dbs := newCounting(t, catalog.Config{CacheDir: t.TempDir()})
	v := verify.New(dbs, shopTasks(), verify.Config{Limits: sqlgym.Limits{Timeout: 300e6}})
	ctx := context.Background()
	cases := []struct {
		a       verify.Answer
		outcome sqlgym.Outcome
		reward  *float64
		kind    sqlgym.ErrorKind
	}{
		{verify.Answer{TaskID: "orders", SQL: "select COUNT(*) from orders"}, sqlgym.OutcomeCorrect, ptr(1), ""},
		{verify.Answer{TaskID: "orders", SQL: "SELECT count(*) + 1 FROM orders"}, sqlgym.OutcomeWrong, ptr(0.1), ""},
		{verify.Answer{TaskID: "orders", SQL: "SELECT count(*) FROM order"}, sqlgym.OutcomeError, ptr(0), sqlgym.ErrKindSyntax},
		{verify.Answer{TaskID: "orders", SQL: "SELECT count(*) FROM nope"}, sqlgym.OutcomeError, ptr(0), sqlgym.ErrKindNoTable},
		{verify.Answer{TaskID: "orders", SQL: "DELETE FROM orders"}, sqlgym.OutcomeError, ptr(0), sqlgym.ErrKindForbidden},
		{verify.Answer{TaskID: "orders", SQL: "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) SELECT count(*) FROM c"}, sqlgym.OutcomeTimeout, ptr(0), ""},
		{verify.Answer{TaskID: "orders", Completion: "I am not sure."}, sqlgym.OutcomeNoQuery, ptr(0), ""},
		{verify.Answer{TaskID: "orders", Completion: "```sql\nSELECT count(*) FROM orders\n```"}, sqlgym.OutcomeCorrect, ptr(1), ""},
		{verify.Answer{TaskID: "orders", Completion: "<think>long", FinishReason: "length"}, sqlgym.OutcomeTruncated, nil, ""},
		{verify.Answer{TaskID: "top", SQL: "SELECT order_id FROM orders ORDER BY order_id DESC LIMIT 3"}, sqlgym.OutcomeWrong, ptr(0.1), ""},
		{verify.Answer{TaskID: "broken", SQL: "SELECT 1"}, sqlgym.OutcomeGoldError, nil, ""},
		// The gold fails: even an answer that does not run is not scored.
		{verify.Answer{TaskID: "broken", SQL: "SELECT * FROM nope"}, sqlgym.OutcomeGoldError, nil, ""},
		{verify.Answer{TaskID: "missing", SQL: "SELECT 1"}, sqlgym.OutcomeGoldError, nil, ""},
	}
	answers := make([]verify.Answer, len(cases))
	for i, c := range cases {
		answers[i] = c.a
	}
	res := v.VerifyBatch(ctx, answers)
	for i, c := range cases {
		r := res[i]
		if r.Outcome != c.outcome || !sameReward(r.Reward, c.reward) || (c.kind != "" && r.ErrorKind != c.kind) {
			t.Errorf("%q: got %s reward %v kind %q (%s), want %s reward %v kind %q",
				c.a.SQL+c.a.Completion, r.Outcome, fmtp(r.Reward), r.ErrorKind, r.Detail, c.outcome, fmtp(c.reward), c.kind)
		}
		if r.TaskID != c.a.TaskID {
			t.Errorf("result %d is for task %q, want %q: order not kept", i, r.TaskID, c.a.TaskID)
		}
	}
	s := verify.Summarize(res)
	// 13 answers; gold_error x3 are not scored; 2 correct of 10 scored.
	if s.Total != 13 || s.Scored != 10 || s.Accuracy != 0.2 {
		t.Fatalf("summary %+v", s)
	}
}

func TestGoldCachedAndDuplicatesRunOnce(t *testing.T) {
	dbs := newCounting(t, catalog.Config{CacheDir: t.TempDir()})
	v := verify.New(dbs, shopTasks(), verify.Config{})
	var batch []verify.Answer
	for i := 0; i < 16; i++ {
		q := "SELECT count(*) FROM orders"
		if i%2 == 1 {
			q = "select   COUNT(*)  from ORDERS -- same query"
		}
		batch = append(batch, verify.Answer{TaskID: "orders", Sample: i, SQL: q})
	}
	for round := 0; round < 2; round++ {
		for _, r := range v.VerifyBatch(context.Background(), batch) {
			if r.Outcome != sqlgym.OutcomeCorrect {
				t.Fatalf("sample %d: %s %s", r.Sample, r.Outcome, r.Detail)
			}
		}
	}
	if n := dbs.calls["SELECT count(*) FROM orders"]; n != 1 {
		// once as the gold: an answer that is the gold's text is judged
		// on the gold's result
		t.Fatalf("the count query ran %d times, want 1 (the gold; answers equal to it reuse its result)", n)
	}
	if n := dbs.calls["select   COUNT(*)  from ORDERS -- same query"]; n != 0 {
		t.Fatalf("a query equal after normalisation ran %d times on its own", n)
	}
}

func TestInfraFailureIsNeverTheModels(t *testing.T) {
	// A PostgreSQL URL on a port nobody listens on: the database is down.
	cat, err := catalog.New(catalog.Config{Refs: []string{"down=postgres://postgres@127.0.0.1:1/postgres?sslmode=disable&connect_timeout=1"}})
	if err != nil {
		t.Fatal(err)
	}
	defer cat.Close()
	v := verify.New(cat, []sqlgym.Task{{ID: "t", DB: "down", SQL: "SELECT 1"}}, verify.Config{InfraRetries: -1})
	r := v.Verify(context.Background(), verify.Answer{TaskID: "t", SQL: "SELECT 1"})
	if r.Outcome != sqlgym.OutcomeInfraError || r.Reward != nil {
		t.Fatalf("database down: got %s reward %v (%s), want infra_error with no reward", r.Outcome, fmtp(r.Reward), r.Detail)
	}
	if s := verify.Summarize([]verify.Result{r}); s.Scored != 0 {
		t.Fatalf("an infra error was scored: %+v", s)
	}
}

// TestPublicScorerVerdictsOnSpider checks hand-worked verdicts of every mode
// on Spider's concert_singer database. The singer table holds six singers:
// four from France, one each from the Netherlands and the United States;
// ages 52, 32, 29, 41, 43, 25.
func TestPublicScorerVerdictsOnSpider(t *testing.T) {
	data := testenv.SharedData(t)
	src := filepath.Join(data, "spider_dev", "database", "concert_singer", "concert_singer.sqlite")
	dir := filepath.Join(t.TempDir(), "concert_singer")
	copyTo(t, src, filepath.Join(dir, "concert_singer.sqlite"))
	cat, err := catalog.New(catalog.Config{DBDir: filepath.Dir(dir)})
	if err != nil {
		t.Fatal(err)
	}
	defer cat.Close()
	tasks := []sqlgym.Task{
		{ID: "distinct", DB: "concert_singer", SQL: "SELECT DISTINCT country FROM singer WHERE age > 20"},
		{ID: "swap", DB: "concert_singer", SQL: "SELECT name, country FROM singer WHERE age > 40"},
		{ID: "order", DB: "concert_singer", SQL: "SELECT name FROM singer ORDER BY age DESC"},
		{ID: "case", DB: "concert_singer", SQL: "SELECT name FROM singer WHERE country = 'Netherlands'"},
	}
	type want map[compare.Mode]sqlgym.Outcome
	C, W := sqlgym.OutcomeCorrect, sqlgym.OutcomeWrong
	cases := []struct {
		task, pred string
		want       want
	}{
		// 6 rows with duplicates vs the 3 distinct countries: BIRD collapses
		// duplicates; the test-suite script removes DISTINCT from the gold.
		{"distinct", "SELECT country FROM singer WHERE age > 20", want{compare.Multiset: W, compare.Bird: C, compare.Strict: W, compare.TestSuite: C, compare.Spider2: W}},
		{"swap", "SELECT country, name FROM singer WHERE age > 40", want{compare.Multiset: C, compare.Bird: W, compare.Strict: W, compare.TestSuite: C, compare.Spider2: C}},
		{"order", "SELECT name FROM singer ORDER BY age ASC", want{compare.Multiset: W, compare.Bird: C, compare.Strict: C, compare.TestSuite: W, compare.Spider2: W}},
		{"case", "SELECT upper(name) FROM singer WHERE country = 'Netherlands'", want{compare.Multiset: C, compare.Bird: W, compare.Strict: W, compare.TestSuite: W, compare.Spider2: W}},
		{"swap", "SELECT name, country FROM singer WHERE age >= 41", want{compare.Multiset: C, compare.Bird: C, compare.Strict: C, compare.TestSuite: C, compare.Spider2: C}},
	}
	v := verify.New(cat, tasks, verify.Config{AllModes: true})
	for _, c := range cases {
		r := v.Verify(context.Background(), verify.Answer{TaskID: c.task, SQL: c.pred})
		for m, o := range c.want {
			if got := r.Modes[string(m)].Outcome; got != o {
				t.Errorf("%s: %q under %s: %s (%s), want %s", c.task, c.pred, m, got, r.Modes[string(m)].Why, o)
			}
		}
	}
	// --keep-distinct: the duplicate countries no longer match the gold.
	kv := verify.New(cat, tasks, verify.Config{Mode: compare.TestSuite, KeepDistinct: true})
	if r := kv.Verify(context.Background(), verify.Answer{TaskID: "distinct", SQL: "SELECT country FROM singer WHERE age > 20"}); r.Outcome != W {
		t.Errorf("testsuite with keep-distinct: %s, want wrong", r.Outcome)
	}
}

// TestTestSuiteRunsEveryVariant adds a second database to the task's folder,
// as Spider's test-suite does, in which one singer's release year differs:
// a query that is right on the original only by accident fails there.
func TestTestSuiteRunsEveryVariant(t *testing.T) {
	data := testenv.SharedData(t)
	src := filepath.Join(data, "spider_dev", "database", "concert_singer", "concert_singer.sqlite")
	dir := filepath.Join(t.TempDir(), "concert_singer")
	copyTo(t, src, filepath.Join(dir, "concert_singer.sqlite"))
	variant := filepath.Join(dir, "concert_singer_v1.sqlite")
	copyTo(t, src, variant)
	db, err := sql.Open("sqlite3", "file:"+variant)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`UPDATE singer SET song_release_year = '2020' WHERE name = 'John Nizinik'`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	cat, err := catalog.New(catalog.Config{DBDir: filepath.Dir(dir)})
	if err != nil {
		t.Fatal(err)
	}
	defer cat.Close()
	tasks := []sqlgym.Task{{ID: "old", DB: "concert_singer", SQL: "SELECT name FROM singer WHERE age > 40"}}
	v := verify.New(cat, tasks, verify.Config{AllModes: true})
	r := v.Verify(context.Background(), verify.Answer{TaskID: "old", SQL: "SELECT name FROM singer WHERE age > 40 AND song_release_year < '2015'"})
	if r.Modes["multiset"].Outcome != sqlgym.OutcomeCorrect {
		t.Fatalf("on the original database the accidental query matches: got %s", r.Modes["multiset"].Outcome)
	}
	if r.Modes["testsuite"].Outcome != sqlgym.OutcomeWrong {
		t.Fatalf("testsuite must fail it on the variant: got %s", r.Modes["testsuite"].Outcome)
	}
}

// TestAlternativesOnDefog: defog accepts several golds; the second one
// returns the author's id instead of the name.
func TestAlternativesOnDefog(t *testing.T) {
	data := testenv.SharedData(t)
	src := filepath.Join(data, "defog", "database", "academic", "academic.sqlite")
	path := filepath.Join(t.TempDir(), "academic.sqlite")
	copyTo(t, src, path)
	cat, err := catalog.New(catalog.Config{Refs: []string{"academic=sqlite:" + path}})
	if err != nil {
		t.Fatal(err)
	}
	defer cat.Close()
	const sub = ` FROM author WHERE author.aid IN (SELECT domain_author.aid FROM domain_author WHERE domain_author.did IN (SELECT domain.did FROM DOMAIN WHERE domain.name IN ('Machine Learning', 'Data Science')) GROUP BY 1 HAVING COUNT(DISTINCT domain_author.did) = 2)`
	tasks := []sqlgym.Task{{ID: "q0", DB: "academic", SQL: "SELECT author.name" + sub, Alternatives: []string{"SELECT author.aid" + sub}}}
	v := verify.New(cat, tasks, verify.Config{})
	for pred, want := range map[string]sqlgym.Outcome{
		"SELECT author.aid" + sub:                        sqlgym.OutcomeCorrect, // the alternative
		"SELECT 'Ashish Vaswani'":                        sqlgym.OutcomeCorrect, // the one author
		"SELECT author.name FROM author WHERE aid = 1":   sqlgym.OutcomeWrong,
		"SELECT name FROM author WHERE name LIKE 'Ash%'": sqlgym.OutcomeCorrect,
	} {
		if r := v.Verify(context.Background(), verify.Answer{TaskID: "q0", SQL: pred}); r.Outcome != want {
			t.Errorf("%q: %s (%s), want %s", pred, r.Outcome, r.Detail, want)
		}
	}
}

func copyTo(t *testing.T, src, dst string) {
	t.Helper()
	p := testenv.CopyFile(t, src)
	if err := mkdirRename(p, dst); err != nil {
		t.Fatal(err)
	}
}

func ptr(x float64) *float64 { return &x }

func sameReward(a, b *float64) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return *a == *b
}

func fmtp(p *float64) any {
	if p == nil {
		return "null"
	}
	return *p
}

// The test-suite script's DISTINCT removal keeps only the first statement;
// that must not let a second statement slip past the one-statement rule.
func TestTestSuiteDoesNotHideASecondStatement(t *testing.T) {
	cat, err := catalog.New(catalog.Config{CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer cat.Close()
	v := verify.New(cat, []sqlgym.Task{{ID: "n", DB: "shop", SQL: "SELECT count(*) FROM orders"}}, verify.Config{Mode: compare.TestSuite})
	r := v.Verify(context.Background(), verify.Answer{TaskID: "n", SQL: "SELECT DISTINCT count(*) FROM orders; DELETE FROM orders"})
	if r.Outcome != sqlgym.OutcomeError || r.ErrorKind != sqlgym.ErrKindMulti {
		t.Fatalf("got %s %s (%s), want error multiple_statements", r.Outcome, r.ErrorKind, r.Detail)
	}
}

// TestPublicScorerVerdictsOnDefog checks hand-worked verdicts on defog's
// academic database, where the writes table gives Ashish Vaswani three
// publications, Larry Summers two and Noam Shazeer one.
func TestPublicScorerVerdictsOnDefog(t *testing.T) {
	data := testenv.SharedData(t)
	path := testenv.CopyFile(t, filepath.Join(data, "defog", "database", "academic", "academic.sqlite"))
	cat, err := catalog.New(catalog.Config{Refs: []string{"academic=sqlite:" + path}})
	if err != nil {
		t.Fatal(err)
	}
	defer cat.Close()
	const join = " FROM author JOIN writes ON writes.aid = author.aid"
	tasks := []sqlgym.Task{
		{ID: "authors", DB: "academic", SQL: "SELECT DISTINCT author.name" + join},
		{ID: "counts", DB: "academic", SQL: "SELECT author.name, COUNT(*)" + join + " GROUP BY author.name ORDER BY COUNT(*) DESC"},
	}
	C, W := sqlgym.OutcomeCorrect, sqlgym.OutcomeWrong
	cases := []struct {
		task, pred string
		want       map[compare.Mode]sqlgym.Outcome
	}{
		// Six rows, one per publication, against three distinct names.
		{"authors", "SELECT author.name" + join, map[compare.Mode]sqlgym.Outcome{
			compare.Multiset: W, compare.Bird: C, compare.Strict: W, compare.TestSuite: C, compare.Spider2: W}},
		// The count first, the name second, in the gold's order.
		{"counts", "SELECT COUNT(*), author.name" + join + " GROUP BY author.name ORDER BY COUNT(*) DESC", map[compare.Mode]sqlgym.Outcome{
			compare.Multiset: C, compare.Bird: W, compare.Strict: W, compare.TestSuite: C, compare.Spider2: C}},
		// The right rows, fewest publications first.
		{"counts", "SELECT author.name, COUNT(*)" + join + " GROUP BY author.name ORDER BY COUNT(*) ASC", map[compare.Mode]sqlgym.Outcome{
			compare.Multiset: W, compare.Bird: C, compare.Strict: C, compare.TestSuite: W, compare.Spider2: W}},
	}
	v := verify.New(cat, tasks, verify.Config{AllModes: true})
	for _, c := range cases {
		r := v.Verify(context.Background(), verify.Answer{TaskID: c.task, SQL: c.pred})
		for m, o := range c.want {
			if got := r.Modes[string(m)].Outcome; got != o {
				t.Errorf("%s: %q under %s: %s (%s), want %s", c.task, c.pred, m, got, r.Modes[string(m)].Why, o)
			}
		}
	}
	kv := verify.New(cat, tasks, verify.Config{Mode: compare.TestSuite, KeepDistinct: true})
	if r := kv.Verify(context.Background(), verify.Answer{TaskID: "authors", SQL: "SELECT author.name" + join}); r.Outcome != W {
		t.Errorf("testsuite with keep-distinct: %s, want wrong", r.Outcome)
	}
}

// Repeated answers (same task, same text) share one job: each still gets
// its own result, with its own sample number and its own reward value,
// equal to what it gets verified alone, under every mode.
func TestRepeatedAnswersShareAVerdict(t *testing.T) {
	dbs := newCounting(t, catalog.Config{CacheDir: t.TempDir()})
	v := verify.New(dbs, shopTasks(), verify.Config{AllModes: true})
	ctx := context.Background()
	texts := []string{"SELECT count(*) FROM orders", "SELECT count(*) + 1 FROM orders", "SELECT nope FROM orders"}
	var batch []verify.Answer
	for i := 0; i < 12; i++ {
		batch = append(batch, verify.Answer{TaskID: "orders", Sample: i, SQL: texts[i%3]})
	}
	batch = append(batch, verify.Answer{TaskID: "top", Sample: 12, SQL: texts[0]})
	res := v.VerifyBatch(ctx, batch)
	for i, r := range res {
		a := batch[i]
		alone := v.Verify(ctx, a)
		if r.Sample != a.Sample || r.TaskID != a.TaskID || r.SQL != a.SQL {
			t.Fatalf("result %d is (%s, %d, %q), want (%s, %d, %q)", i, r.TaskID, r.Sample, r.SQL, a.TaskID, a.Sample, a.SQL)
		}
		if r.Outcome != alone.Outcome || !sameReward(r.Reward, alone.Reward) || len(r.Modes) != len(alone.Modes) {
			t.Fatalf("result %d: %s reward %v modes %d; alone %s reward %v modes %d",
				i, r.Outcome, fmtp(r.Reward), len(r.Modes), alone.Outcome, fmtp(alone.Reward), len(alone.Modes))
		}
		for m, mv := range alone.Modes {
			if got := r.Modes[m]; got.Outcome != mv.Outcome || !sameReward(got.Reward, mv.Reward) {
				t.Fatalf("result %d mode %s: %s, alone %s", i, m, got.Outcome, mv.Outcome)
			}
		}
	}
	if res[12].Outcome != sqlgym.OutcomeWrong {
		t.Fatalf("the same text for another task shares nothing: got %s", res[12].Outcome)
	}
	// Results are independent values: changing one reward leaves the
	// others as they were.
	*res[0].Reward = 42
	if *res[3].Reward == 42 {
		t.Fatal("two results share one reward value")
	}
}
