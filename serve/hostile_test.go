package serve

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/engine"
	"github.com/sqlgym/sqlgym/engine/duckdb"
	"github.com/sqlgym/sqlgym/engine/postgres"
	"github.com/sqlgym/sqlgym/engine/sqlite"
	"github.com/sqlgym/sqlgym/internal/testenv"
	"github.com/sqlgym/sqlgym/shopdb"
	"github.com/sqlgym/sqlgym/verify"
)

// shopOn builds the built-in shop on an engine for one test and returns
// its URL: a file in t.TempDir(), a schema and reader role on the test
// PostgreSQL, or a database and SELECT-only account on the test MySQL.
func shopOn(t *testing.T, eng string) string {
	t.Helper()
	ctx := context.Background()
	switch eng {
	case "sqlite":
		path := filepath.Join(t.TempDir(), "shop.sqlite")
		if err := sqlite.Create(ctx, path, shopdb.Statements()); err != nil {
			t.Fatal(err)
		}
		return "sqlite:" + path
	case "duckdb":
		path := filepath.Join(t.TempDir(), "shop.duckdb")
		if err := duckdb.Create(ctx, path, shopdb.Statements()); err != nil {
			t.Fatal(err)
		}
		return "duckdb:" + path
	case "mysql":
		reader, _ := testenv.MySQLReader(t, shopdb.Statements())
		return testenv.MySQLURL(t, reader)
	}
	reader, schema := testenv.PostgresReader(t, func(ctx context.Context, dsn, schema string) error {
		return postgres.Load(ctx, dsn, schema, false, shopdb.Statements())
	})
	return engine.WithSchema(reader, schema)
}

// slowSQL is a statement that runs until its engine's limit stops it,
// distinct for each i (the red team's r6 shapes on DuckDB and PostgreSQL;
// on SQLite a counter that spends the step budget).
func slowSQL(eng string, i int) string {
	switch eng {
	case "sqlite":
		return fmt.Sprintf("WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM r) SELECT count(*) + %d FROM r", i)
	case "duckdb":
		return fmt.Sprintf("SELECT sum(hash(range + %d)) FROM range(1000000000000)", i)
	}
	return fmt.Sprintf("SELECT count(*) + %d FROM generate_series(1,1000000000000)", i)
}

// hostileRun is one engine's hostile batch against a real server while an
// honest one-answer request comes in.
type hostileRun struct {
	eng      string
	hostile  []Item
	limits   sqlgym.Limits
	deadline time.Duration
	// honest is how many honest requests are sent, one after the other,
	// while the hostile batch runs.
	honest int
	// allow503 accepts a hostile batch with nothing judged by its deadline.
	allow503 bool
}

type answer struct {
	code int
	res  RewardsResponse
	body string
	took time.Duration
	err  error
}

func postItems(url string, items []Item) answer {
	b, _ := json.Marshal(RewardsRequest{Items: items})
	start := time.Now()
	resp, err := http.Post(url+"/v1/rewards", "application/json", bytes.NewReader(b))
	if err != nil {
		return answer{err: err}
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	a := answer{code: resp.StatusCode, body: string(body), took: time.Since(start), err: err}
	if err == nil && a.code == http.StatusOK {
		a.err = json.Unmarshal(body, &a.res)
	}
	return a
}

// run checks that every honest request is answered, correct, and before
// the hostile batch ends (the kept slot: it never waits for a hostile
// statement to finish), and that the hostile batch comes back with its
// judged answers and the rest unscored. How long the honest requests took
// is returned and logged, not bounded: a loaded machine stretches it, and
// `sqlgym-bench serve --hostile` measures the 2 s bound (docs/deploy.md).
func (h hostileRun) run(t *testing.T) (honest []time.Duration, hostile answer) {
	t.Helper()
	url := shopOn(t, h.eng)
	const slots = 4
	tasks := []sqlgym.Task{{ID: "t", DB: "hshop", SQL: "SELECT count(*) FROM orders", Split: sqlgym.SplitTrain}}
	s, hs := newTestServer(t, Config{DBs: testCatalog(t, "hshop="+url), Tasks: tasks, DBSlots: slots, Deadline: h.deadline,
		Verify: verify.Config{Limits: h.limits, Concurrency: 2 * slots, InfraRetries: -1}})
	if _, err := s.Warm(context.Background()); err != nil {
		t.Fatal(err)
	}
	alone := postItems(hs.URL, []Item{{TaskID: "t", SQL: str("SELECT count(*) FROM orders WHERE order_id > 0")}})
	if alone.err != nil || alone.code != 200 {
		t.Fatalf("honest request alone: %d %v %s", alone.code, alone.err, alone.body)
	}
	t.Logf("honest request alone: %v", alone.took)
	done := make(chan answer, 1)
	go func() { done <- postItems(hs.URL, h.hostile) }()
	// The hostile batch takes every slot it may: all but the reserve.
	for i := 0; ; i++ {
		if running, _ := s.gate.stats(); running >= slots-1 {
			break
		}
		if i > 30000 {
			t.Fatal("the hostile batch never started")
		}
		time.Sleep(time.Millisecond)
	}
	for k := 0; k < h.honest; k++ {
		a := postItems(hs.URL, []Item{{TaskID: "t", SQL: str(fmt.Sprintf("SELECT count(*) FROM orders WHERE order_id > -%d", k+1))}})
		if a.err != nil || a.code != 200 || len(a.res.Results) != 1 {
			t.Fatalf("honest request %d: %d %v %s", k, a.code, a.err, a.body)
		}
		if r := a.res.Results[0]; r.Outcome != sqlgym.OutcomeCorrect || r.Reward == nil || *r.Reward != 1 {
			t.Fatalf("honest request %d: %+v, want correct with reward 1", k, r)
		}
		select {
		case hostile = <-done:
			t.Fatalf("honest request %d answered after the hostile batch (%v, hostile %v)", k, a.took, hostile.took)
		default:
		}
		honest = append(honest, a.took)
		time.Sleep(100 * time.Millisecond)
	}
	hostile = <-done
	if h.allow503 && hostile.err == nil && hostile.code == http.StatusServiceUnavailable {
		return honest, hostile
	}
	if hostile.err != nil || hostile.code != 200 || len(hostile.res.Results) != len(h.hostile) {
		t.Fatalf("hostile batch: %d %v %.300s", hostile.code, hostile.err, hostile.body)
	}
	return honest, hostile
}

// outcomes counts a batch's outcomes, checking that unscored answers have
// no reward and judged ones the reward of their outcome.
func outcomes(t *testing.T, res []Result) map[sqlgym.Outcome]int {
	t.Helper()
	n := map[sqlgym.Outcome]int{}
	for i, r := range res {
		n[r.Outcome]++
		switch r.Outcome {
		case OutcomeUnscored, sqlgym.OutcomeInfraError:
			if r.Reward != nil {
				t.Errorf("item %d: %s with reward %v, want null", i, r.Outcome, *r.Reward)
			}
		case sqlgym.OutcomeTimeout:
			if r.Reward == nil || *r.Reward != 0 {
				t.Errorf("item %d: timeout with reward %v, want 0", i, r.Reward)
			}
		default:
			t.Errorf("item %d: outcome %s (%s), want timeout or unscored", i, r.Outcome, r.Detail)
		}
	}
	return n
}

// The fast version: on each engine, 32 answers that each run until a
// 300 ms limit (or SQLite's step budget of 1e8 steps, longer), three at a
// time, need at least 3.2 s; the request's deadline is 2 s. A one-answer
// request sent meanwhile is answered at once with its reward, and the
// hostile batch comes back at its deadline with the answers judged by
// then and the rest unscored. Its first answer is the gold's own text,
// judged on the gold's rows without running, so something is judged
// however busy the machine is.
func TestHonestRequestBesideHostileBatch(t *testing.T) {
	for _, eng := range []string{"sqlite", "duckdb", "postgres"} {
		t.Run(eng, func(t *testing.T) {
			items := []Item{{TaskID: "t", SQL: str("SELECT count(*) FROM orders")}}
			for i := 0; i < 32; i++ {
				items = append(items, Item{TaskID: "t", SQL: str(slowSQL(eng, i))})
			}
			run := hostileRun{eng: eng, hostile: items, deadline: 2 * time.Second, honest: 2,
				limits: sqlgym.Limits{Timeout: 300 * time.Millisecond, VMSteps: 100_000_000}}
			honest, hostile := run.run(t)
			if r := hostile.res.Results[0]; r.Outcome != sqlgym.OutcomeCorrect || r.Reward == nil || *r.Reward != 1 {
				t.Errorf("the gold's text in the hostile batch: %+v, want correct with reward 1", r)
			}
			n := outcomes(t, hostile.res.Results[1:])
			if n[OutcomeUnscored] == 0 {
				t.Errorf("hostile batch at its deadline: %v, want the answers not judged by then unscored", n)
			}
			t.Logf("%s: honest %v; hostile %v in %v", eng, honest, n, hostile.took)
		})
	}
}

// The red team's reproductions: 512 slow answers in one request
// (r6_*_512.jsonl) on each engine at the default limits, while honest
// requests come one after the other. Every honest request is answered,
// correct, within 2 s and before the hostile batch. The hostile batch
// comes back within 5 s of its deadline with what was judged and the rest
// unscored, or with 503 when nothing was judged by then: how many of its
// answers end within 20 s is the engines' cost (on a busy machine a
// DuckDB answer with a 5 s limit took 30 s to end). On SQLite each r6
// answer is the model's timeout at the default budget of 2e8 (about 33
// rows of 67 ms; at load 41, three were judged in 20 s, and the batch came
// back 0.3 s after its deadline; under the old budget of 1e9 none was).
// TestHonestRequestBesideHostileBatch pins the same down with cheap
// answers.
func TestHonestRequestBesideRedTeam512(t *testing.T) {
	testenv.Slow(t, "512 hostile answers per engine, 20 to 40 s each")
	dir := testenv.SharedData(t)
	for _, c := range []struct {
		eng, file string
		lim       sqlgym.Limits
	}{
		{"sqlite", "r6_sqlite_512.jsonl", sqlgym.Limits{}},
		{"duckdb", "r6_duckdb_512.jsonl", sqlgym.Limits{}},
		{"postgres", "r6_postgres_512.jsonl", sqlgym.Limits{}},
	} {
		t.Run(c.eng, func(t *testing.T) {
			items := readItems(t, testenv.CopyFile(t, filepath.Join(dir, "..", "redteam", c.file)))
			run := hostileRun{eng: c.eng, hostile: items, deadline: 20 * time.Second, honest: 20, limits: c.lim, allow503: true}
			honest, hostile := run.run(t)
			// Every engine notices the request's deadline within a call of
			// its heaviest function: SQLite's r6 rows (one 67 ms call each)
			// were answered 35 s late while its progress handler waited
			// for its next tick.
			if late := hostile.took - run.deadline; late > 5*time.Second {
				t.Errorf("hostile batch answered %v after its %v deadline, want within 5 s", late, run.deadline)
			}
			if hostile.code == http.StatusServiceUnavailable {
				t.Logf("%s: honest %v; hostile 503 (nothing judged) in %v", c.eng, honest, hostile.took)
				return
			}
			n := map[sqlgym.Outcome]int{}
			for _, r := range hostile.res.Results {
				n[r.Outcome]++
				if r.Outcome == sqlgym.OutcomeCorrect || r.Outcome == sqlgym.OutcomeWrong {
					t.Errorf("a hostile answer judged %s: %s", r.Outcome, r.SQL)
				}
			}
			if n[OutcomeUnscored] == 0 || n[OutcomeUnscored] == len(items) {
				t.Errorf("hostile batch at its deadline: %v, want some judged and the rest unscored", n)
			}
			t.Logf("%s: honest %v; hostile %v in %v", c.eng, honest, n, hostile.took)
		})
	}
}

func readItems(t *testing.T, path string) []Item {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var items []Item
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var it Item
		if err := json.Unmarshal(sc.Bytes(), &it); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		items = append(items, it)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return items
}
