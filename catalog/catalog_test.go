package catalog_test

import (
	"context"
	"database/sql"
	"io"
	"net"
	"net/url"
	"path/filepath"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	_ "github.com/mattn/go-sqlite3" // database/sql driver "sqlite3", for writing the test files

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/catalog"
	"github.com/sqlgym/sqlgym/internal/testenv"
)

func writeSQLite(t *testing.T, path string) {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec("CREATE TABLE t(x); INSERT INTO t VALUES (1), (2)"); err != nil {
		t.Fatal(err)
	}
}

func newCatalog(t *testing.T, refs ...string) *catalog.Catalog {
	t.Helper()
	c, err := catalog.New(catalog.Config{Refs: refs, CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// A database that could not be opened once is opened by a later call
// once it is there: the catalog remembers engines, not failures.
func TestFailedOpenIsTriedAgain(t *testing.T) {
	path := filepath.Join(t.TempDir(), "late.sqlite")
	c := newCatalog(t, "late=sqlite:"+path)
	ctx := context.Background()
	if _, err := c.Engine(ctx, "late"); err == nil {
		t.Fatal("opened a SQLite file that does not exist")
	}
	writeSQLite(t, path)
	eng, err := c.Engine(ctx, "late")
	if err != nil {
		t.Fatalf("after the file was created: %v (the first failure was kept)", err)
	}
	rs, err := eng.Query(ctx, "SELECT count(*) FROM t", sqlgym.Limits{})
	if err != nil || rs.Rows[0][0].String() != "2" {
		t.Fatalf("query: %v, %v", rs, err)
	}
	again, _ := c.Engine(ctx, "late")
	if again != eng {
		t.Fatal("a second call opened another engine: successes must be shared")
	}
}

// The PostgreSQL case for real: the name points at a port where nothing
// listens (the server is down), then a forwarder to the real server starts
// on that port (the server came back).
func TestPostgresDownThenUp(t *testing.T) {
	dsn := testenv.Postgres(t)
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	real := u.Host
	// The engine refuses a superuser: connect as a plain login role.
	role := testenv.UniqueName("sqlgym_cat")
	admin(t, dsn, "CREATE ROLE "+pgx.Identifier{role}.Sanitize()+" LOGIN")
	t.Cleanup(func() { admin(t, dsn, "DROP ROLE IF EXISTS "+pgx.Identifier{role}.Sanitize()) })
	u.User = url.User(role)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().String()
	ln.Close() // down: connections to port are refused
	u.Host = port
	c := newCatalog(t, "pg="+u.String())
	ctx := context.Background()
	if _, err := c.Engine(ctx, "pg"); err == nil {
		t.Fatal("opened PostgreSQL on a port where nothing listens")
	}
	ln, err = net.Listen("tcp", port)
	if err != nil {
		t.Skipf("port %s was taken meanwhile: %v", port, err)
	}
	t.Cleanup(func() { ln.Close() })
	go forward(ln, real)
	eng, err := c.Engine(ctx, "pg")
	if err != nil {
		t.Fatalf("after the server came back: %v (the outage was kept)", err)
	}
	rs, err := eng.Query(ctx, "SELECT 1", sqlgym.Limits{})
	if err != nil || len(rs.Rows) != 1 {
		t.Fatalf("query: %v, %v", rs, err)
	}
}

func admin(t *testing.T, dsn, q string) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, q); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

// forward relays every connection on ln to addr.
func forward(ln net.Listener, addr string) {
	for {
		in, err := ln.Accept()
		if err != nil {
			return
		}
		go func() {
			defer in.Close()
			out, err := net.Dial("tcp", addr)
			if err != nil {
				return
			}
			defer out.Close()
			go io.Copy(out, in)
			io.Copy(in, out)
		}()
	}
}

// Close while opens are in flight: run with -race. Every engine the
// catalog handed out is closed by the time Close returns, and calls after
// it fail.
func TestCloseRacesOpens(t *testing.T) {
	dir := t.TempDir()
	var refs []string
	for _, n := range []string{"a", "b", "c", "d"} {
		p := filepath.Join(dir, n+".sqlite")
		writeSQLite(t, p)
		refs = append(refs, n+"=sqlite:"+p)
	}
	for round := 0; round < 20; round++ {
		c, err := catalog.New(catalog.Config{Refs: refs, CacheDir: dir})
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		var mu sync.Mutex
		var got []sqlgym.Engine
		for _, n := range []string{"a", "b", "c", "d", "a", "b"} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if eng, err := c.Engine(context.Background(), n); err == nil {
					mu.Lock()
					got = append(got, eng)
					mu.Unlock()
				}
			}()
		}
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
		wg.Wait()
		if _, err := c.Engine(context.Background(), "a"); err == nil {
			t.Fatal("a closed catalog opened an engine")
		}
		for _, eng := range got {
			if _, err := eng.Query(context.Background(), "SELECT 1", sqlgym.Limits{}); err == nil {
				t.Fatal("an engine handed out around Close is still open after Close returned")
			}
		}
	}
}
