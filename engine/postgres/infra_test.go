package postgres

import (
	"context"
	"errors"
	"io"
	"net"
	"net/url"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/engine/enginetest"
)

// TestUnreachableServerIsInfra checks that a server nobody listens for, a
// closed engine, and a server that goes away between and during
// statements are all *sqlgym.InfraError, never the SQL's fault.
func TestUnreachableServerIsInfra(t *testing.T) {
	s := newSandbox(t, enginetest.Fixture())
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	// A port that was just free: nothing listens there.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	deadPort := l.Addr().(*net.TCPAddr).Port
	l.Close()
	if _, err := Open(ctx, withHostPort(t, s.reader, "127.0.0.1", deadPort), Options{Schema: s.schema}); !sqlgym.IsInfra(err) {
		t.Errorf("Open on a dead port: want InfraError, got %T %v", err, err)
	}
	if err := Load(ctx, withHostPort(t, s.admin, "127.0.0.1", deadPort), s.schema+"_x", false, nil); !sqlgym.IsInfra(err) {
		t.Errorf("Load on a dead port: want InfraError, got %T %v", err, err)
	}

	eng := s.open(t, Options{})
	eng.Close()
	if _, err := eng.Query(ctx, `SELECT 1`, sqlgym.Limits{}); !sqlgym.IsInfra(err) {
		t.Errorf("Query on a closed engine: want InfraError, got %T %v", err, err)
	}

	// The server behind a proxy the test can cut, as a stopped server or
	// a broken network would.
	p := startProxy(t, s.reader)
	eng, err = Open(ctx, withHostPort(t, s.reader, "127.0.0.1", p.port()), Options{Schema: s.schema, MaxConns: 2})
	if err != nil {
		t.Fatalf("open through the proxy: %v", err)
	}
	defer eng.Close()
	if _, err := eng.Query(ctx, `SELECT count(*) FROM people`, sqlgym.Limits{}); err != nil {
		t.Fatalf("query through the proxy: %v", err)
	}

	// Cut while a statement runs.
	done := make(chan error, 1)
	go func() {
		// The server cannot be told to stop through a cut connection, so
		// its statement_timeout ends it: keep it short.
		_, err := eng.Query(ctx, `SELECT count(*) FROM nums a, nums b, nums c`, sqlgym.Limits{Timeout: 3 * time.Second})
		done <- err
	}()
	time.Sleep(300 * time.Millisecond)
	p.stop()
	select {
	case err := <-done:
		if !sqlgym.IsInfra(err) {
			t.Errorf("connection cut during a statement: want InfraError, got %T %v", err, err)
		}
		var ee *sqlgym.ExecError
		if errors.As(err, &ee) {
			t.Errorf("connection cut blamed on the SQL: %v", err)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("statement did not return after its connection was cut")
	}
	// And between statements: the pool's connections are gone and no new
	// one can be made.
	if _, err := eng.Query(ctx, `SELECT 1`, sqlgym.Limits{}); !sqlgym.IsInfra(err) {
		t.Errorf("query with the server gone: want InfraError, got %T %v", err, err)
	}
}

// TestPooledConnectionsSurviveTermination checks that when the server
// drops idle pooled connections (an administrator, a restart), the next
// statement runs on a fresh one instead of failing.
func TestPooledConnectionsSurviveTermination(t *testing.T) {
	s := newSandbox(t, enginetest.Fixture())
	eng := s.open(t, Options{MaxConns: 3})
	ctx := context.Background()
	var wg sync.WaitGroup
	for i := 0; i < 3; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := eng.Query(ctx, `SELECT count(*) FROM nums`, sqlgym.Limits{}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	killed := adminInt(t, s.admin, `SELECT count(*) FROM (SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = $1) k`, s.role)
	if killed == 0 {
		t.Fatal("no pooled connection to terminate")
	}
	for i := 0; i < 5; i++ {
		if _, err := eng.Query(ctx, `SELECT 1`, sqlgym.Limits{}); err != nil {
			t.Fatalf("query %d after %d pooled connections were terminated: %v", i, killed, err)
		}
	}
}

// proxy forwards TCP connections to the PostgreSQL server until stopped.
type proxy struct {
	l     net.Listener
	mu    sync.Mutex
	conns []net.Conn
}

func startProxy(t *testing.T, dsn string) *proxy {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil || u.Host == "" {
		t.Skipf("proxy test needs a URL DSN with a host: %q", dsn)
	}
	target := u.Host
	if u.Port() == "" {
		target = net.JoinHostPort(u.Hostname(), "5432")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{l: l}
	t.Cleanup(p.stop)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			up, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, c, up)
			p.mu.Unlock()
			go func() { io.Copy(up, c); up.Close() }()
			go func() { io.Copy(c, up); c.Close() }()
		}
	}()
	return p
}

func (p *proxy) port() int { return p.l.Addr().(*net.TCPAddr).Port }

func (p *proxy) stop() {
	p.l.Close()
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

func withHostPort(t *testing.T, dsn, host string, port int) string {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil || u.Host == "" {
		t.Skipf("needs a URL DSN with a host: %q", dsn)
	}
	u.Host = net.JoinHostPort(host, strconv.Itoa(port))
	return u.String()
}
