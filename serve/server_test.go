package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/catalog"
	"github.com/sqlgym/sqlgym/verify"
)

func testTasks() []sqlgym.Task {
	return []sqlgym.Task{
		{ID: "orders", DB: "shop", SQL: "SELECT count(*) FROM orders", Split: sqlgym.SplitTrain},
		{ID: "top", DB: "shop", SQL: "SELECT order_id FROM orders ORDER BY order_id LIMIT 3", Split: sqlgym.SplitTrain},
		{ID: "secret", DB: "shop", SQL: "SELECT count(*) FROM customers", Split: sqlgym.SplitHoldout},
	}
}

func testCatalog(t *testing.T, refs ...string) *catalog.Catalog {
	t.Helper()
	cat, err := catalog.New(catalog.Config{CacheDir: t.TempDir(), Refs: refs})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cat.Close() })
	return cat
}

func newTestServer(t *testing.T, cfg Config) (*Server, *httptest.Server) {
	t.Helper()
	if cfg.DBs == nil {
		cfg.DBs = testCatalog(t)
	}
	if cfg.Tasks == nil {
		cfg.Tasks = testTasks()
	}
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s.Handler())
	t.Cleanup(hs.Close)
	return s, hs
}

func post(t *testing.T, url string, body any) (*http.Response, []byte) {
	t.Helper()
	resp, out, err := tryPost(url, body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, out
}

// tryPost is post for a goroutine other than the test's, which must not
// call t.Fatal: it returns the error instead.
func tryPost(url string, body any) (*http.Response, []byte, error) {
	var r io.Reader
	switch b := body.(type) {
	case []byte:
		r = bytes.NewReader(b)
	default:
		j, _ := json.Marshal(body)
		r = bytes.NewReader(j)
	}
	resp, err := http.Post(url, "application/json", r)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	return resp, out, err
}

func str(s string) *string { return &s }

// The server's rewards are verify's: the same answers through an uncached
// verifier give the same outcome, reward, SQL and detail, in order.
func TestRewardsMatchVerify(t *testing.T) {
	cat := testCatalog(t)
	_, hs := newTestServer(t, Config{DBs: cat})
	items := []Item{
		{TaskID: "orders", Completion: str("Count them.\n```sql\nSELECT COUNT(*) FROM orders\n```")},
		{TaskID: "orders", SQL: str("SELECT count(*) + 1 FROM orders")},
		{TaskID: "top", SQL: str("SELECT order_id FROM orders ORDER BY order_id DESC LIMIT 3")},
		{TaskID: "top", SQL: str("SELECT nope FROM orders")},
		{TaskID: "orders", Completion: str("```sql\nSELECT count(*) FROM ord"), FinishReason: "length"},
		{TaskID: "orders", Completion: str("I do not know.")},
		{TaskID: "orders", SQL: str("DELETE FROM orders")},
		{DB: "shop", GoldSQL: "SELECT max(order_id) FROM orders", SQL: str("SELECT order_id FROM orders ORDER BY order_id DESC LIMIT 1")},
		{TaskID: "orders", SQL: str("select COUNT(*)  from orders")},
	}
	want := []sqlgym.Outcome{sqlgym.OutcomeCorrect, sqlgym.OutcomeWrong, sqlgym.OutcomeWrong, sqlgym.OutcomeError,
		sqlgym.OutcomeTruncated, sqlgym.OutcomeNoQuery, sqlgym.OutcomeError, sqlgym.OutcomeCorrect, sqlgym.OutcomeCorrect}

	v := verify.New(cat, testTasks(), verify.Config{})
	for round := 0; round < 2; round++ { // the second round is answered from the caches
		resp, body := post(t, hs.URL+"/v1/rewards", RewardsRequest{Items: items})
		if resp.StatusCode != 200 {
			t.Fatalf("status %d: %s", resp.StatusCode, body)
		}
		var got RewardsResponse
		if err := json.Unmarshal(body, &got); err != nil {
			t.Fatal(err)
		}
		if len(got.Results) != len(items) {
			t.Fatalf("%d results for %d items", len(got.Results), len(items))
		}
		for i, it := range items {
			a := verify.Answer{TaskID: it.TaskID, FinishReason: it.FinishReason}
			if it.SQL != nil {
				a.SQL = *it.SQL
			} else {
				a.Completion = *it.Completion
			}
			if it.GoldSQL != "" {
				a.Task = &sqlgym.Task{ID: "adhoc", DB: it.DB, SQL: it.GoldSQL}
			}
			r := v.Verify(context.Background(), a)
			exp := Result{Verdict: sqlgym.Verdict{Reward: r.Reward, Outcome: r.Outcome, SQL: r.SQL, Detail: r.Detail, ErrorKind: r.ErrorKind, Why: r.Why}}
			if !reflect.DeepEqual(got.Results[i], exp) {
				t.Errorf("round %d item %d: server %+v, verify %+v", round, i, got.Results[i], exp)
			}
			if got.Results[i].Outcome != want[i] {
				t.Errorf("round %d item %d: outcome %s, want %s", round, i, got.Results[i].Outcome, want[i])
			}
		}
		if got.Results[4].Reward != nil {
			t.Errorf("a truncated reply got reward %v, want null", *got.Results[4].Reward)
		}
		if !strings.Contains(string(body), `"reward":null`) {
			t.Errorf("null reward not sent as JSON null: %s", body)
		}
	}
}

func TestBadRequests(t *testing.T) {
	_, hs := newTestServer(t, Config{MaxItems: 4, MaxBodyBytes: 4096})
	cases := []struct {
		body any
		code int
		msg  string
	}{
		{RewardsRequest{Items: []Item{{TaskID: "secret", SQL: str("SELECT 1")}}}, 400, "held out"},
		{RewardsRequest{Items: []Item{{TaskID: "orders"}}}, 400, "give completion"},
		{RewardsRequest{Items: []Item{{TaskID: "orders", SQL: str("x"), Completion: str("y")}}}, 400, "not both"},
		{RewardsRequest{Items: []Item{{TaskID: "orders", DB: "shop", GoldSQL: "SELECT 1", SQL: str("SELECT 1")}}}, 400, "not both"},
		{RewardsRequest{Items: []Item{{DB: "../../etc/passwd", GoldSQL: "SELECT 1", SQL: str("SELECT 1")}}}, 400, "not a path"},
		{RewardsRequest{Items: []Item{{DB: "elsewhere", GoldSQL: "SELECT 1", SQL: str("SELECT 1")}}}, 400, `unknown database \"elsewhere\"`},
		{[]byte(`{"items": [`), 400, "not the expected JSON"},
		{RewardsRequest{Items: make([]Item, 5)}, 413, "over the limit of 4"},
		{[]byte(`{"items": [{"task_id": "orders", "sql": "` + strings.Repeat("x", 5000) + `"}]}`), 413, "over 4096"},
	}
	for _, c := range cases {
		resp, body := post(t, hs.URL+"/v1/rewards", c.body)
		if resp.StatusCode != c.code || !strings.Contains(string(body), c.msg) {
			t.Errorf("status %d %s, want %d with %q", resp.StatusCode, body, c.code, c.msg)
		}
	}
	// An empty batch is fine.
	resp, body := post(t, hs.URL+"/v1/rewards", []byte(`{"items": []}`))
	if resp.StatusCode != 200 || strings.TrimSpace(string(body)) != `{"results":[]}` {
		t.Errorf("empty batch: %d %s", resp.StatusCode, body)
	}
}

// A database that cannot be used gives infra_error and a null reward on
// /v1/rewards, and a 503 on /get_reward: never a 0.
func TestOutageIsNeverAZeroReward(t *testing.T) {
	cat := testCatalog(t, "down=postgres://postgres@127.0.0.1:1/none?sslmode=disable&connect_timeout=1")
	tasks := append(testTasks(), sqlgym.Task{ID: "pg", DB: "down", SQL: "SELECT 1"})
	_, hs := newTestServer(t, Config{DBs: cat, Tasks: tasks, Verify: verify.Config{InfraRetries: -1}})
	resp, body := post(t, hs.URL+"/v1/rewards", RewardsRequest{Items: []Item{
		{TaskID: "pg", SQL: str("SELECT 1")},
		{TaskID: "orders", SQL: str("SELECT count(*) FROM orders")},
	}})
	var got RewardsResponse
	if err := json.Unmarshal(body, &got); err != nil || resp.StatusCode != 200 {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	if r := got.Results[0]; r.Outcome != sqlgym.OutcomeInfraError || r.Reward != nil {
		t.Fatalf("outage: %+v, want infra_error with a null reward", r)
	}
	if r := got.Results[1]; r.Outcome != sqlgym.OutcomeCorrect {
		t.Fatalf("the healthy database's item: %+v", r)
	}
	resp, body = post(t, hs.URL+"/get_reward", OpenRLHFRequest{Query: []string{"SELECT 1"}, Labels: []string{"pg"}})
	if resp.StatusCode != 503 || resp.Header.Get("Retry-After") == "" || !strings.Contains(string(body), "database could not be used") {
		t.Fatalf("OpenRLHF route on an outage: %d %q %s", resp.StatusCode, resp.Header.Get("Retry-After"), body)
	}

	// And the server refuses to be configured to reward an outage.
	rw, _ := verify.ParseRewards("infra_error=0")
	if _, err := New(Config{DBs: cat, Verify: verify.Config{Rewards: rw}}); err == nil || !strings.Contains(err.Error(), "never rewards") {
		t.Fatalf("infra_error=0 accepted: %v", err)
	}
}

func TestOpenRLHFProtocol(t *testing.T) {
	_, hs := newTestServer(t, Config{})
	prompt := "<|user|>How many orders?<|assistant|>"
	req := OpenRLHFRequest{
		Query: []string{
			prompt + "```sql\nSELECT count(*) FROM orders\n```",
			prompt + "```sql\nSELECT 1\n```",
			"no prompt prefix here: SELECT count(*) FROM orders",
			"```sql\nSELECT 1\n```",
		},
		Prompts: []string{prompt, prompt, "something else", ""},
		Labels:  []string{"orders", "orders", "orders", `{"db": "shop", "gold_sql": "SELECT * FROM no_such_table"}`},
	}
	resp, body := post(t, hs.URL+"/get_reward", req)
	if resp.StatusCode != 200 {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	var got OpenRLHFResponse
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatal(err)
	}
	// rewards are the sqlgym rewards, scores 0/1 correctness.
	if !reflect.DeepEqual(got.Rewards, []float64{1, 0.1, 1, 0}) || !reflect.DeepEqual(got.Scores, []float64{1, 0, 1, 0}) {
		t.Fatalf("rewards %v scores %v", got.Rewards, got.Scores)
	}
	if !reflect.DeepEqual(got.ExtraLogs["sqlgym_masked"], []float64{0, 0, 0, 1}) ||
		!reflect.DeepEqual(got.ExtraLogs["sqlgym_correct"], []float64{1, 0, 1, 0}) {
		t.Fatalf("extra_logs %v", got.ExtraLogs)
	}
	resp, body = post(t, hs.URL+"/get_reward", OpenRLHFRequest{Query: []string{"a", "b"}, Labels: []string{"orders"}})
	if resp.StatusCode != 400 || !strings.Contains(string(body), "--data.label_key") {
		t.Fatalf("labels missing: %d %s", resp.StatusCode, body)
	}
}

// Past DBSlots + Queue requests in service on a database a request gets
// 429 with Retry-After at once; a request whose deadline passes with
// nothing judged gets 503, one with some answers judged gets them and the
// rest unscored (reward null).
func TestBackpressure(t *testing.T) {
	s, hs := newTestServer(t, Config{DBSlots: 1, Queue: -1, Deadline: 300 * time.Millisecond, RetryAfter: 2 * time.Second})
	// Open the database and run the golds first, so the 300 ms measure
	// waiting, not opening SQLite (slow under -race).
	if _, err := s.Warm(context.Background()); err != nil {
		t.Fatal(err)
	}
	item := RewardsRequest{Items: []Item{{TaskID: "orders", SQL: str("SELECT 1")}}}
	release, err := s.limit.acquire([]string{"shop"})
	if err != nil {
		t.Fatal(err)
	}
	resp, body := post(t, hs.URL+"/v1/rewards", item)
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "2" {
		t.Fatalf("queue full: %d Retry-After %q %s", resp.StatusCode, resp.Header.Get("Retry-After"), body)
	}
	release()

	// Another request holds the database's one statement slot.
	shop, err := s.dbs.Resolve("shop")
	if err != nil {
		t.Fatal(err)
	}
	leave, err := s.gate.Enter(withFlow(context.Background()), shop)
	if err != nil {
		t.Fatal(err)
	}
	resp, body = post(t, hs.URL+"/v1/rewards", item)
	if resp.StatusCode != 503 || resp.Header.Get("Retry-After") != "2" || !strings.Contains(string(body), "before any answer") {
		t.Fatalf("nothing judged by the deadline: %d %s, want 503", resp.StatusCode, body)
	}
	// The gold's own text is judged on the gold's result, which needs no
	// slot; the other answer must run.
	two := RewardsRequest{Items: []Item{{TaskID: "orders", SQL: str("SELECT count(*) FROM orders")}, {TaskID: "orders", SQL: str("SELECT 2")}}}
	resp, body = post(t, hs.URL+"/v1/rewards", two)
	var got RewardsResponse
	if err := json.Unmarshal(body, &got); resp.StatusCode != 200 || err != nil || len(got.Results) != 2 {
		t.Fatalf("partly judged by the deadline: %d %s, want 200 with 2 results", resp.StatusCode, body)
	}
	if r := got.Results[0]; r.Outcome != sqlgym.OutcomeCorrect || r.Reward == nil || *r.Reward != 1 {
		t.Errorf("judged answer: %+v, want correct with reward 1", r)
	}
	if r := got.Results[1]; r.Outcome != OutcomeUnscored || r.Reward != nil || !strings.Contains(r.Detail, "deadline") {
		t.Errorf("answer not judged in time: %+v, want unscored with a null reward", r)
	}
	if !strings.Contains(string(body), `"reward":null,"outcome":"unscored"`) {
		t.Errorf("wire shape: %s", body)
	}
	leave()
	resp, body = post(t, hs.URL+"/v1/rewards", two)
	if resp.StatusCode != 200 || strings.Contains(string(body), "unscored") {
		t.Fatalf("after release: %d %s", resp.StatusCode, body)
	}
	_, metrics := get(t, hs.URL+"/metrics")
	for _, want := range []string{`sqlgym_serve_rejected_total{reason="busy"} 1`, `sqlgym_serve_rejected_total{reason="deadline"} 1`,
		`sqlgym_serve_requests_total{code="429",route="/v1/rewards"} 1`, `sqlgym_serve_outcomes_total{outcome="unscored"} 1`,
		`sqlgym_serve_queue_depth{db="shop"} 0`} {
		if !strings.Contains(metrics, want) {
			t.Errorf("metrics lack %q", want)
		}
	}
}

func get(t *testing.T, url string) (*http.Response, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

func TestMetricsAndCache(t *testing.T) {
	s, hs := newTestServer(t, Config{})
	req := RewardsRequest{Items: []Item{
		{TaskID: "orders", SQL: str("SELECT count(*) FROM orders")},
		{TaskID: "orders", SQL: str("SELECT count(*) FROM customers")},
	}}
	for i := 0; i < 3; i++ {
		if resp, body := post(t, hs.URL+"/v1/rewards", req); resp.StatusCode != 200 {
			t.Fatalf("%d %s", resp.StatusCode, body)
		}
	}
	// The first item is its task's gold: judged on the gold's result,
	// it never reaches the cache.
	if st := s.CacheStats(); st.Misses != 1 || st.Hits != 2 {
		t.Fatalf("cache after three identical batches: %+v, want 1 miss then 2 hits", st)
	}
	resp, m := get(t, hs.URL+"/metrics")
	if resp.StatusCode != 200 {
		t.Fatal(resp.StatusCode)
	}
	for _, want := range []string{
		`sqlgym_serve_requests_total{code="200",route="/v1/rewards"} 3`,
		`sqlgym_serve_outcomes_total{outcome="correct"} 3`,
		`sqlgym_serve_outcomes_total{outcome="wrong"} 3`,
		"sqlgym_serve_cache_hits_total 2",
		"sqlgym_serve_cache_misses_total 1",
		"sqlgym_serve_batch_items_count 3",
		`sqlgym_serve_statement_duration_seconds_count{dialect="sqlite"} 2`, // gold once, the other candidate once
		"sqlgym_serve_verify_duration_seconds_count 3",
		"go_goroutines",
	} {
		if !strings.Contains(m, want) {
			t.Errorf("metrics lack %q", want)
		}
	}
	resp, h := get(t, hs.URL+"/healthz")
	if resp.StatusCode != 200 || !strings.Contains(h, `"status":"ok"`) || !strings.Contains(h, `"tasks":3`) {
		t.Fatalf("healthz %d %s", resp.StatusCode, h)
	}
}

func TestWarm(t *testing.T) {
	tasks := append(testTasks(), sqlgym.Task{ID: "broken", DB: "shop", SQL: "SELECT * FROM nope"},
		sqlgym.Task{ID: "random", DB: "shop", SQL: "SELECT random()"})
	s, err := New(Config{DBs: testCatalog(t), Tasks: tasks})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := s.Warm(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if rep.Tasks != 4 || !reflect.DeepEqual(rep.GoldErrors, []string{"broken"}) || !reflect.DeepEqual(rep.NotSelf, []string{"random"}) {
		t.Fatalf("warm report %+v (held-out task excluded, broken and random golds found)", rep)
	}
}

// Cancelling the server's context stops new connections but lets the
// request in flight finish with its answer.
func TestGracefulShutdownDrains(t *testing.T) {
	s, err := New(Config{DBs: testCatalog(t), Tasks: testTasks(), DBSlots: 1})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- s.Serve(ctx, ln, 10*time.Second) }()
	url := "http://" + ln.Addr().String()

	// Another request holds the database's one statement slot, so this
	// one waits for it (not the gold's text, which would need no slot).
	shop, err := s.dbs.Resolve("shop")
	if err != nil {
		t.Fatal(err)
	}
	release, err := s.gate.Enter(withFlow(context.Background()), shop)
	if err != nil {
		t.Fatal(err)
	}
	inflight := make(chan string)
	go func() {
		resp, body, err := tryPost(url+"/v1/rewards", RewardsRequest{Items: []Item{{TaskID: "orders", SQL: str("SELECT count(*) FROM orders WHERE 1")}}})
		if err != nil {
			inflight <- err.Error()
			return
		}
		inflight <- resp.Status + " " + string(body)
	}()
	for i := 0; ; i++ {
		if _, waiting := s.gate.stats(); waiting == 1 {
			break
		}
		if i > 2000 {
			t.Fatal("request never queued")
		}
		time.Sleep(time.Millisecond)
	}
	cancel()
	// The listener closes: new connections are refused.
	for i := 0; ; i++ {
		c, err := net.DialTimeout("tcp", ln.Addr().String(), time.Second)
		if err != nil {
			break
		}
		c.Close()
		if i > 2000 {
			t.Fatal("still accepting connections after shutdown began")
		}
		time.Sleep(time.Millisecond)
	}
	release()
	if got := <-inflight; !strings.HasPrefix(got, "200") || !strings.Contains(got, `"outcome":"correct"`) {
		t.Fatalf("request in flight during shutdown: %s", got)
	}
	if err := <-served; err != nil {
		t.Fatalf("Serve: %v", err)
	}
}
