package serve

import (
	"context"
	"database/sql"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "github.com/mattn/go-sqlite3"

	"github.com/sqlgym/sqlgym"
)

// Two replicas behind no balancer: an episode opened on one carries its
// replica's id as a prefix, its steps work there, and the other replica
// answers a JSON 404 that names the replica holding it.
func TestEpisodeIDRoutesToItsReplica(t *testing.T) {
	_, a := newTestServer(t, Config{ReplicaID: "sqlgym-0"})
	_, b := newTestServer(t, Config{ReplicaID: "sqlgym-1"})
	code, ep, raw := startEpisode(t, a.URL, map[string]string{"task_id": "orders"})
	if code != http.StatusOK {
		t.Fatalf("start: %d %s", code, raw)
	}
	if !strings.HasPrefix(ep.ID, "sqlgym-0.ep-") || episodeReplica(ep.ID) != "sqlgym-0" {
		t.Fatalf("episode id %q lacks its replica's prefix", ep.ID)
	}
	submit := `{"message": {"role": "assistant", "content": "", "tool_calls": [
		{"id": "c1", "type": "function", "function": {"name": "submit", "arguments": "{\"sql\": \"SELECT count(*) FROM orders\"}"}}]}}`

	resp, body := post(t, b.URL+"/v1/episodes/"+ep.ID+"/step", []byte(submit))
	if resp.StatusCode != http.StatusNotFound || resp.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("step on the other replica: %d %s", resp.StatusCode, body)
	}
	var e errorBody
	if err := json.Unmarshal(body, &e); err != nil {
		t.Fatalf("404 body is not JSON: %s", body)
	}
	if !strings.Contains(e.Error, `opened on replica "sqlgym-0"`) || !strings.Contains(e.Error, `on replica "sqlgym-1"`) {
		t.Errorf("404 does not name the replicas: %s", e.Error)
	}
	if got := resp.Header.Get(ReplicaHeader); got != "sqlgym-1" {
		t.Errorf("%s = %q, want sqlgym-1", ReplicaHeader, got)
	}
	if resp, body := doDelete(t, b.URL+"/v1/episodes/"+ep.ID); resp.StatusCode != http.StatusNotFound || !strings.Contains(string(body), `opened on replica \"sqlgym-0\"`) {
		t.Errorf("delete on the other replica: %d %s", resp.StatusCode, body)
	}
	// The misroute is counted as such on the replica that saw it.
	if _, m := get(t, b.URL+"/metrics"); !strings.Contains(m, `sqlgym_serve_episode_not_found_total{reason="other_replica"} 2`) ||
		!strings.Contains(m, `sqlgym_serve_replica_info{replica="sqlgym-1"} 1`) {
		t.Errorf("metrics lack the misroute count or the replica label")
	}

	code, sr, raw := step(t, a.URL, ep.ID, submit)
	if code != http.StatusOK || !sr.Done || sr.Outcome != sqlgym.OutcomeCorrect {
		t.Fatalf("step on the replica holding it: %d %s", code, raw)
	}
	// Once done, the holder itself says it is gone, without blaming routing.
	resp, body = post(t, a.URL+"/v1/episodes/"+ep.ID+"/step", []byte(submit))
	if resp.StatusCode != http.StatusNotFound || strings.Contains(string(body), "opened on replica") || !strings.Contains(string(body), "ended") {
		t.Errorf("step after the end on the holder: %d %s", resp.StatusCode, body)
	}
}

func doDelete(t *testing.T, url string) (*http.Response, []byte) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodDelete, url, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, b
}

func TestParseReplicaID(t *testing.T) {
	for in, want := range map[string]string{"sqlgym-0": "sqlgym-0", "Node7": "node7", "a": "a"} {
		if got, err := ParseReplicaID(in); err != nil || got != want {
			t.Errorf("ParseReplicaID(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "-a", "a-", "a.b", "a/b", "a b", strings.Repeat("x", 64)} {
		if _, err := ParseReplicaID(bad); err == nil || !strings.Contains(err.Error(), "DNS label") {
			t.Errorf("ParseReplicaID(%q) = %v, want an error naming the fix", bad, err)
		}
	}
	if id := DefaultReplicaID(); id == "" || strings.Contains(id, ".") {
		t.Errorf("DefaultReplicaID() = %q", id)
	}
}

// /readyz is 503 until the databases are open and the server is marked
// ready, 200 then, and 503 again as soon as drain begins, while the
// server still accepts requests for UnreadyDelay; /healthz is live from
// the start.
func TestReadiness(t *testing.T) {
	s, err := New(Config{DBs: testCatalog(t), Tasks: testTasks(), ReplicaID: "r1", UnreadyDelay: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	url, cancel, served := serveOnLoopback(t, s, 5*time.Second)

	if resp, body := get(t, url+"/readyz"); resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(body, `"starting"`) {
		t.Fatalf("readyz before start-up finished: %d %s", resp.StatusCode, body)
	}
	if resp, _ := get(t, url+"/healthz"); resp.StatusCode != http.StatusOK {
		t.Fatalf("healthz while starting: %d", resp.StatusCode)
	}
	if err := s.OpenDatabases(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Warm(context.Background()); err != nil {
		t.Fatal(err)
	}
	s.MarkReady()
	if resp, body := get(t, url+"/readyz"); resp.StatusCode != http.StatusOK || !strings.Contains(body, `"replica":"r1"`) {
		t.Fatalf("readyz once ready: %d %s", resp.StatusCode, body)
	}
	if _, m := get(t, url+"/metrics"); !strings.Contains(m, "sqlgym_serve_ready 1") {
		t.Error("sqlgym_serve_ready is not 1 once ready")
	}
	cancel()
	var resp *http.Response
	var body string
	for i := 0; i < 200; i++ {
		if resp, body = get(t, url+"/readyz"); resp.StatusCode != http.StatusOK {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(body, `"draining"`) {
		t.Fatalf("readyz during drain: %d %s", resp.StatusCode, body)
	}
	// Still serving during the unready delay: work sent before the
	// balancer noticed is answered, not refused.
	r, out := post(t, url+"/v1/rewards", RewardsRequest{Items: []Item{{TaskID: "orders", SQL: str("SELECT count(*) FROM orders")}}})
	if r.StatusCode != http.StatusOK || !strings.Contains(string(out), `"correct"`) {
		t.Fatalf("reward during the unready delay: %d %s", r.StatusCode, out)
	}
	if err := <-served; err != nil {
		t.Fatal(err)
	}
}

// A database that cannot be opened keeps the replica unready: the error
// names the database.
func TestOpenDatabasesNamesTheMissingOne(t *testing.T) {
	tasks := []sqlgym.Task{{ID: "x", DB: "nowhere", SQL: "SELECT 1", Split: sqlgym.SplitTrain}}
	s, err := New(Config{DBs: testCatalog(t, "nowhere=sqlite:"+t.TempDir()+"/missing.sqlite"), Tasks: tasks})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.OpenDatabases(context.Background()); err == nil || !strings.Contains(err.Error(), "nowhere") {
		t.Fatalf("OpenDatabases = %v, want an error naming the database", err)
	}
	if s.Ready() {
		t.Fatal("ready without its databases")
	}
}

// serveOnLoopback runs s.Serve on a free loopback port until cancel; served
// gets Serve's result.
func serveOnLoopback(t *testing.T, s *Server, drain time.Duration) (url string, cancel func(), served <-chan error) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, ln, drain) }()
	return "http://" + ln.Addr().String(), cancel, done
}

// A database missing at start keeps the replica unready, with the reason
// in /readyz, until it appears; then the replica turns ready by itself.
func TestReadyWhenOpenWaitsForTheDatabase(t *testing.T) {
	path := filepath.Join(t.TempDir(), "late.sqlite")
	tasks := []sqlgym.Task{{ID: "x", DB: "late", SQL: "SELECT 1", Split: sqlgym.SplitTrain}}
	s, err := New(Config{DBs: testCatalog(t, "late=sqlite:"+path), Tasks: tasks})
	if err != nil {
		t.Fatal(err)
	}
	first := s.OpenDatabases(context.Background())
	if first == nil {
		t.Fatal("a missing database opened")
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan struct{})
	go func() { s.ReadyWhenOpen(ctx, first, 20*time.Millisecond); close(done) }()
	hs := httptest.NewServer(s.Handler())
	defer hs.Close()
	time.Sleep(50 * time.Millisecond)
	if resp, body := get(t, hs.URL+"/readyz"); resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(body, "late") {
		t.Fatalf("readyz with the database missing: %d %s", resp.StatusCode, body)
	}
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("CREATE TABLE t (x INTEGER)"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("not ready 10 s after the database appeared")
	}
	if resp, body := get(t, hs.URL+"/readyz"); resp.StatusCode != http.StatusOK {
		t.Fatalf("readyz once the database exists: %d %s", resp.StatusCode, body)
	}
}
