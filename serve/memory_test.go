package serve

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/verify"
)

// stall opens a connection that sends a request's headers and part of
// its body, then nothing.
func stall(t *testing.T, addr string, contentLength int) net.Conn {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	fmt.Fprintf(conn, "POST /v1/rewards HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n{\"items\": [", contentLength)
	return conn
}

// waitClosed reads what the server sends on conn until it closes the
// connection, and returns the response's status. guard bounds the wait:
// past it the server kept the stalled connection open.
func waitClosed(t *testing.T, conn net.Conn, guard time.Duration) int {
	t.Helper()
	_ = conn.SetReadDeadline(time.Now().Add(guard))
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("no response to a stalled body within %v: %v", guard, err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if _, err := br.ReadByte(); !errors.Is(err, io.EOF) {
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			t.Fatalf("the server answered %d but kept the connection open past %v", resp.StatusCode, guard)
		}
		if !errors.Is(err, os.ErrDeadlineExceeded) && !strings.Contains(err.Error(), "reset") {
			t.Fatalf("after the answer: %v, want the connection closed", err)
		}
	}
	return resp.StatusCode
}

// A client that stops sending mid-body is answered 408 and its connection
// closed once ReadTimeout has passed.
func TestStalledBodyIsCutOff(t *testing.T) {
	const timeout = 100 * time.Millisecond
	_, hs := newTestServer(t, Config{ReadTimeout: timeout})
	start := time.Now()
	conn := stall(t, hs.Listener.Addr().String(), 1000)
	if code := waitClosed(t, conn, 50*timeout); code != http.StatusRequestTimeout {
		t.Fatalf("stalled body: %d, want 408", code)
	}
	if took := time.Since(start); took < timeout {
		t.Fatalf("cut off after %v, before the read timeout of %v", took, timeout)
	}
}

// Request bodies share one byte budget: a body that does not fit next to
// those being served is turned away before it is read (429), and the
// budget is whole again once they are done.
func TestBodyBudget(t *testing.T) {
	s, hs := newTestServer(t, Config{BodyBytes: 1000, MaxBodyBytes: 800, ReadTimeout: 200 * time.Millisecond})
	conn := stall(t, hs.Listener.Addr().String(), 600)
	// The stalled request holds its 600 bytes once its handler runs.
	eventually(t, func() bool { return s.MemoryStats().Bodies.Taken == 600 }, "the stalled request takes its bytes")
	body := `{"items": [{"task_id": "orders", "sql": "SELECT count(*) FROM orders"}], "pad": "` + strings.Repeat(" ", 450) + `"}`
	resp, out := post(t, hs.URL+"/v1/rewards", []byte(body))
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("a body past the budget: %d %s, want 429 with Retry-After", resp.StatusCode, out)
	}
	waitClosed(t, conn, 10*time.Second)
	eventually(t, func() bool { return s.MemoryStats().Bodies.Taken == 0 }, "the cut-off request gives its bytes back")
	if resp, out := post(t, hs.URL+"/v1/rewards", []byte(body)); resp.StatusCode != http.StatusOK {
		t.Fatalf("once the stalled body was cut off: %d %s, want 200", resp.StatusCode, out)
	}
	st := s.MemoryStats()
	if st.Bodies.Peak > 1000 || st.Results.Peak > st.Results.Limit || st.Results.Held != 0 {
		t.Fatalf("memory %+v: over a budget, or results still held after the requests", st)
	}
}

// eventually waits for cond, polling; past 10s the test fails with what.
func eventually(t *testing.T, cond func() bool, what string) {
	t.Helper()
	for end := time.Now().Add(10 * time.Second); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("timed out waiting until %s", what)
		}
	}
}

// The read timeout is the body's: scoring that takes longer than it, once
// the body is in, is not cut short. The test holds the database's only
// slot for five read timeouts after the request is in, so the scoring
// outlasts the timeout whatever the machine's speed.
func TestReadTimeoutDoesNotCutScoring(t *testing.T) {
	const readTimeout = 10 * time.Millisecond
	slow := "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x < 50000) SELECT count(*) FROM c"
	tasks := []sqlgym.Task{{ID: "n", DB: "shop", SQL: "SELECT 50000", Split: sqlgym.SplitTrain}}
	s, hs := newTestServer(t, Config{Tasks: tasks, ReadTimeout: readTimeout, DBSlots: 1, Deadline: time.Minute,
		Verify: verify.Config{Limits: sqlgym.Limits{Timeout: time.Minute}}})
	shop, err := s.dbs.Resolve("shop")
	if err != nil {
		t.Fatal(err)
	}
	release, err := s.gate.Enter(withFlow(context.Background()), shop)
	if err != nil {
		t.Fatal(err)
	}
	type answer struct {
		code int
		body string
		err  error
	}
	done := make(chan answer, 1)
	go func() {
		resp, out, err := tryPost(hs.URL+"/v1/rewards", RewardsRequest{Items: []Item{{TaskID: "n", SQL: str(slow)}}})
		if err != nil {
			done <- answer{err: err}
			return
		}
		done <- answer{resp.StatusCode, string(out), nil}
	}()
	eventually(t, func() bool {
		_, waiting := s.gate.stats()
		return waiting == 1
	}, "the request's statement waits for the database's slot")
	time.Sleep(5 * readTimeout)
	release()
	a := <-done
	if a.err != nil || a.code != http.StatusOK || !strings.Contains(a.body, `"outcome":"correct"`) {
		t.Fatalf("%d %s %v, want 200 correct", a.code, a.body, a.err)
	}
}
