package sqltext

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/engine/duckdb"
	"github.com/sqlgym/sqlgym/engine/mysql"
	"github.com/sqlgym/sqlgym/engine/postgres"
	"github.com/sqlgym/sqlgym/engine/sqlite"
	"github.com/sqlgym/sqlgym/internal/testenv"
)

// The engines are the oracle of the key tests: sqlgym's own sandboxed
// engines, which are what the verifier runs a cached text on, each on a
// tiny table whose filters all give different rows, so that a statement
// read differently (a comment that ends elsewhere, a string that swallows
// a clause) shows in its result.
var keyFixture = []string{
	"CREATE TABLE t (a INTEGER, b VARCHAR(20))",
	"INSERT INTO t VALUES (1, 'x'), (2, 'y'), (3, 'OR'), (4, NULL), (5, 'x--y')",
}

type keyEngine struct {
	d   sqlgym.Dialect
	eng sqlgym.Engine
}

func sqliteOracle(t testing.TB) keyEngine {
	t.Helper()
	path := filepath.Join(t.TempDir(), "key.sqlite")
	if err := sqlite.Create(context.Background(), path, keyFixture); err != nil {
		t.Fatal(err)
	}
	eng, err := sqlite.Open(path, sqlite.Options{PoolSize: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	return keyEngine{sqlgym.DialectSQLite, eng}
}

func duckdbOracle(t testing.TB) keyEngine {
	t.Helper()
	path := filepath.Join(t.TempDir(), "key.duckdb")
	if err := duckdb.Create(context.Background(), path, keyFixture); err != nil {
		t.Fatal(err)
	}
	// In-process: a test binary is no sqlgym worker.
	eng, err := duckdb.Open(path, duckdb.Options{PoolSize: 1, InProcess: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	return keyEngine{sqlgym.DialectDuckDB, eng}
}

// postgresOracle loads the fixture into a schema of its own on the local
// test server. It refuses any other host: fuzzing sends thousands of
// statements and must never reach a shared server.
func postgresOracle(t testing.TB) keyEngine {
	t.Helper()
	if dsn := os.Getenv("SQLGYM_TEST_POSTGRES"); dsn != "" && !loopbackDSN(dsn) {
		t.Skipf("the key oracle only connects to 127.0.0.1; SQLGYM_TEST_POSTGRES names another host")
	}
	dsn := testenv.Postgres(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	schema := testenv.UniqueName("sqlgym_key")
	if err := postgres.Load(ctx, dsn, schema, false, keyFixture); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if conn, err := pgx.Connect(ctx, dsn); err == nil {
			conn.Exec(ctx, "DROP SCHEMA IF EXISTS "+pgx.Identifier{schema}.Sanitize()+" CASCADE")
			conn.Close(ctx)
		}
	})
	// The test role is a superuser; the statements still run in the
	// engine's read-only transaction, after its screen.
	eng, err := postgres.Open(ctx, dsn, postgres.Options{Schema: schema, AllowPrivileged: true, MaxConns: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	return keyEngine{sqlgym.DialectPostgres, eng}
}

// mysqlOracle loads the fixture into a database of its own on the test
// MySQL or MariaDB server, read by a SELECT-only account. Like the
// PostgreSQL oracle it refuses any server but the local one.
func mysqlOracle(t testing.TB) keyEngine {
	t.Helper()
	if dsn := os.Getenv("SQLGYM_TEST_MYSQL"); dsn != "" && !strings.Contains(dsn, "@unix(") && !strings.Contains(dsn, "@tcp(127.0.0.1:") {
		t.Skipf("the key oracle only connects to the local server; SQLGYM_TEST_MYSQL names another host")
	}
	dsn, _ := testenv.MySQLReader(t, keyFixture)
	eng, err := mysql.Open(context.Background(), dsn, mysql.Options{MaxConns: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	return keyEngine{sqlgym.DialectMySQL, eng}
}

// testingMySQL reports whether a test should include MySQL, saying so
// when it leaves it out.
func testingMySQL(t testing.TB) bool {
	if os.Getenv("SQLGYM_TEST_MYSQL") == "" && os.Getenv("SQLGYM_REQUIRE_MYSQL") != "1" {
		t.Log("MySQL part skipped: set SQLGYM_TEST_MYSQL='root@unix(/run/mysqld/mysqld.sock)/'")
		return false
	}
	return true
}

// loopbackDSN reports whether a postgres:// URL can only reach
// 127.0.0.1: its host is that, and no query parameter names another.
func loopbackDSN(dsn string) bool {
	u, err := url.Parse(dsn)
	if err != nil || u.Hostname() != "127.0.0.1" {
		return false
	}
	q := u.Query()
	return !q.Has("host") && !q.Has("hostaddr") && !q.Has("service")
}

// run returns what the verifier keeps of a statement: its rows, or the
// kind of its failure. Error messages are left out: they quote the text as
// written and where in it the error is, which a merged key shares anyway.
func (k keyEngine) run(t testing.TB, sql string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	rs, err := k.eng.Query(ctx, sql, sqlgym.Limits{Timeout: 2 * time.Second, MaxRows: 100, MaxBytes: 1 << 20})
	var ee *sqlgym.ExecError
	switch {
	case errors.As(err, &ee):
		return "error " + string(ee.Kind)
	case errors.Is(err, sqlgym.ErrTimeout):
		return "timeout"
	case errors.Is(err, sqlgym.ErrTooLarge):
		return "too large"
	case err != nil:
		t.Fatalf("%s: %q: %v", k.d, sql, err)
	}
	var b strings.Builder
	b.WriteString("rows\n")
	for _, r := range rs.Rows {
		for _, v := range r {
			fmt.Fprintf(&b, "%v:%s|", v.Kind, v.String())
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// testingPostgres reports whether a test should include PostgreSQL, saying
// so when it leaves it out; postgresOracle then checks the server itself.
func testingPostgres(t testing.TB) bool {
	if os.Getenv("SQLGYM_TEST_POSTGRES") == "" && os.Getenv("SQLGYM_REQUIRE_POSTGRES") != "1" {
		t.Log("PostgreSQL part skipped: set SQLGYM_TEST_POSTGRES=postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable")
		return false
	}
	return true
}
