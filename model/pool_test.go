package model

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

func poolClient(t *testing.T, p *Pool) *Client {
	t.Helper()
	c, _ := newTestClient(t, p.BaseURL(), WithHTTPClient(p.HTTPClient()), WithMaxRetries(3))
	return c
}

// Requests go to the replica with the fewest in flight: three requests
// held open at once land one on each of three replicas.
func TestPoolSendsToTheLeastLoaded(t *testing.T) {
	gate := make(chan struct{})
	var arrived sync.WaitGroup
	arrived.Add(3)
	var srvs []*fakeServer
	for range 3 {
		srvs = append(srvs, newFakeServer(t, func(w http.ResponseWriter, r *http.Request, call int, body map[string]any) {
			arrived.Done()
			<-gate
			writeJSON(w, 200, vllmAnswer(1, "q"))
		}))
	}
	p, err := NewPool([]string{srvs[0].base(), srvs[1].base(), srvs[2].base()}, PoolOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c := poolClient(t, p)
	var wg sync.WaitGroup
	for range 3 {
		wg.Go(func() {
			if _, err := c.Chat(context.Background(), Request{Messages: userAsks}); err != nil {
				t.Error(err)
			}
		})
	}
	arrived.Wait() // all three in flight at once, one per replica
	close(gate)
	wg.Wait()
	for i, s := range srvs {
		if s.calls() != 1 {
			t.Errorf("replica %d got %d requests, want 1", i, s.calls())
		}
	}
	for _, st := range p.Stats() {
		if st.Requests != 1 || st.Failures != 0 {
			t.Errorf("stats %+v", st)
		}
	}
}

// A replica that answers 5xx and one that refuses connections are taken
// out: every request still succeeds at once (no backoff sleep), the
// failed replicas get no request during their cool-down, and the pool
// tries them again once it is over.
func TestPoolTakesFailedReplicasOut(t *testing.T) {
	good := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, call int, body map[string]any) {
		writeJSON(w, 200, vllmAnswer(1, "ok"))
	})
	var broken bool
	var mu sync.Mutex
	flaky := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, call int, body map[string]any) {
		mu.Lock()
		defer mu.Unlock()
		if broken {
			writeJSON(w, 500, `{"error": {"message": "CUDA error: an illegal memory access", "type": "InternalServerError"}}`)
			return
		}
		writeJSON(w, 200, vllmAnswer(1, "ok"))
	})
	gone := newFakeServer(t, nil)
	goneURL := gone.base()
	gone.Close() // connection refused from here on

	p, err := NewPool([]string{flaky.base(), goneURL, good.base()}, PoolOptions{Cooldown: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Unix(1e9, 0)
	p.now = func() time.Time { return now }
	c, sleeps := newTestClient(t, p.BaseURL(), WithHTTPClient(p.HTTPClient()), WithMaxRetries(3))
	mu.Lock()
	broken = true
	mu.Unlock()
	for i := range 6 {
		resp, err := c.Chat(context.Background(), Request{Messages: userAsks})
		if err != nil || resp.Choices[0].Content != "ok0" {
			t.Fatalf("request %d: %v", i, err)
		}
	}
	if n := len(sleeps.waits()); n != 0 {
		t.Errorf("the client backed off %d times: the pool should have moved on at once", n)
	}
	st := p.Stats()
	if st[0].Failures != 1 || st[0].TakenOut != 1 || st[1].Failures != 1 || st[1].TakenOut != 1 || st[2].Requests != 6 {
		t.Fatalf("stats %+v: each failed replica tried once, then out; the good one answers all", st)
	}
	if flaky.calls() != 1 {
		t.Errorf("the 5xx replica got %d requests during its cool-down, want 1", flaky.calls())
	}

	// After the cool-down the pool tries the failed replicas again; the
	// flaky one has recovered.
	mu.Lock()
	broken = false
	mu.Unlock()
	now = now.Add(2 * time.Minute)
	for range 4 {
		if _, err := c.Chat(context.Background(), Request{Messages: userAsks}); err != nil {
			t.Fatal(err)
		}
	}
	if flaky.calls() < 2 {
		t.Errorf("the recovered replica was never tried again (%d calls)", flaky.calls())
	}
}

// With every replica failing, the failure reaches the client, which
// reports an infrastructure error after its retries, each of which the
// pool spends on the replica whose cool-down ends first.
func TestPoolAllDownIsAnInfraError(t *testing.T) {
	var srvs []*fakeServer
	for range 2 {
		srvs = append(srvs, newFakeServer(t, func(w http.ResponseWriter, r *http.Request, call int, body map[string]any) {
			writeJSON(w, 503, `{"error": {"message": "overloaded"}}`)
		}))
	}
	p, err := NewPool([]string{srvs[0].base(), srvs[1].base()}, PoolOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c := poolClient(t, p)
	_, err = c.Chat(context.Background(), Request{Messages: userAsks})
	if !IsInfra(err) {
		t.Fatalf("err = %v, want an InfraError", err)
	}
	// 4 attempts by the client, each tried on both replicas.
	if got := srvs[0].calls() + srvs[1].calls(); got != 8 {
		t.Errorf("%d requests reached the replicas, want 8", got)
	}
}

func TestNewPoolRefusesBadLists(t *testing.T) {
	if _, err := NewPool(nil, PoolOptions{}); err == nil {
		t.Error("empty list accepted")
	}
	if _, err := NewPool([]string{"http://a:8000", "http://a:8000/v1/"}, PoolOptions{}); err == nil || !strings.Contains(err.Error(), "twice") {
		t.Errorf("duplicate replica: %v", err)
	}
	if _, err := NewPool([]string{"http://a:8000", "ftp://b"}, PoolOptions{}); err == nil || !strings.Contains(err.Error(), "http://") {
		t.Errorf("bad URL: %v", err)
	}
}
