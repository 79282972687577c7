package eval_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/sqlgym/sqlgym/eval/evaltest"
	"github.com/sqlgym/sqlgym/rundir"
)

// failingMidway forwards the first `good` requests to the scripted server
// behind it and then fails every request: the odd ones by dropping the
// connection, the even ones with a 500, as a crashed or wedged vLLM does.
func failingMidway(t *testing.T, behind *evaltest.Server, good int64) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	u, _ := url.Parse(behind.URL)
	proxy := httputil.NewSingleHostReverseProxy(u)
	var n, failed atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		i := n.Add(1)
		if i <= good {
			proxy.ServeHTTP(w, r)
			return
		}
		failed.Add(1)
		if i%2 == 1 {
			if c, _, err := http.NewResponseController(w).Hijack(); err == nil {
				c.Close()
				return
			}
		}
		http.Error(w, `{"error": {"message": "CUDA error: device-side assert triggered"}}`, http.StatusInternalServerError)
	}))
	t.Cleanup(srv.Close)
	return srv, &failed
}

// An eval over three model servers, one of which fails after a few
// answers, writes exactly the samples an eval over one server writes
// (same seeds), exits 0 with none missing, and records the replicas.
func TestEvalOverThreeServersOneFailingEqualsOneServer(t *testing.T) {
	tasks, replies := evaltest.ManyShopTasks(24)
	dir, cache := t.TempDir(), t.TempDir()
	taskFile := writeTasks(t, dir, tasks)

	single := evaltest.New(replies, seed0)
	defer single.Close()
	one := filepath.Join(dir, "runs", "one")
	if r := runCLI(t, cache, evalArgs(taskFile, single.BaseURL(), one, "--concurrency", "4")...); r.code != 0 {
		t.Fatalf("one server: exit %d\n%s", r.code, r.stderr)
	}

	a, b := evaltest.New(replies, seed0), evaltest.New(replies, seed0)
	defer a.Close()
	defer b.Close()
	behind := evaltest.New(replies, seed0)
	defer behind.Close()
	flaky, failed := failingMidway(t, behind, 3)
	three := filepath.Join(dir, "runs", "three")
	args := evalArgs(taskFile, a.BaseURL(), three, "--concurrency", "4", "--base-url", flaky.URL+"/v1", "--base-url", b.BaseURL())
	r := runCLI(t, cache, args...)
	if r.code != 0 {
		t.Fatalf("three servers: exit %d\n%s", r.code, r.stderr)
	}
	if failed.Load() == 0 || behind.Calls.Load() != 3 {
		t.Fatalf("the failing replica answered %d and failed %d requests: it never failed midway", behind.Calls.Load(), failed.Load())
	}
	if a.Calls.Load() == 0 || b.Calls.Load() == 0 {
		t.Errorf("requests per replica: a %d, b %d: the load was not spread", a.Calls.Load(), b.Calls.Load())
	}
	// The end-of-run lines count each replica's requests as the servers
	// saw them: the chat completions, the failed ones, and the start's
	// GET /models check; only the failing replica shows failures.
	lines := regexp.MustCompile(`replica (\S+): (\d+) requests, (\d+) failed, taken out (\d+) times`).FindAllStringSubmatch(r.stderr, -1)
	if len(lines) != 3 {
		t.Fatalf("want a line per replica on stderr:\n%s", r.stderr)
	}
	var sum int64
	for _, l := range lines {
		n, _ := strconv.ParseInt(l[2], 10, 64)
		sum += n
		if failedHere := l[3] != "0" || l[4] != "0"; failedHere != (l[1] == flaky.URL+"/v1") {
			t.Errorf("replica %s: %s failed, taken out %s times", l[1], l[3], l[4])
		}
	}
	if want := a.Calls.Load() + b.Calls.Load() + behind.Calls.Load() + failed.Load() + 1; sum != want {
		t.Errorf("the replica lines count %d requests, the servers saw %d:\n%s", sum, want, r.stderr)
	}

	want, err := rundir.ReadSamples(one)
	if err != nil {
		t.Fatal(err)
	}
	got, err := rundir.ReadSamples(three)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 24*4 || !reflect.DeepEqual(byKey(got), byKey(want)) {
		t.Fatalf("%d samples over three servers differ from the %d over one", len(got), len(want))
	}
	for _, s := range rawLines(t, three) {
		if s.Outcome == "infra_error" {
			t.Fatalf("a replica's failure reached a sample: %+v", s)
		}
	}
	var m rundir.Manifest
	raw, err := os.ReadFile(filepath.Join(three, rundir.ManifestFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	wantReps := []string{a.BaseURL(), flaky.URL + "/v1", b.BaseURL()}
	if !reflect.DeepEqual(m.ModelReplicas, wantReps) || m.BaseURL != a.BaseURL() {
		t.Errorf("manifest replicas %v (base %s), want %v", m.ModelReplicas, m.BaseURL, wantReps)
	}
	var m1 rundir.Manifest
	raw1, _ := os.ReadFile(filepath.Join(one, rundir.ManifestFile))
	_ = json.Unmarshal(raw1, &m1)
	if m1.ConfigHash != m.ConfigHash {
		t.Errorf("config hash %s over three servers, %s over one: replicas must not change it", m.ConfigHash, m1.ConfigHash)
	}
}
