package postgres

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/sqlgym/sqlgym/internal/testenv"
)

// sandbox is one test's own schema, loaded with full rights, and its own
// reader role that may only use that schema and read its tables. The
// superuser DSN is used for setup only; engines connect as the reader.
type sandbox struct {
	admin  string
	schema string
	role   string
	reader string
	// digester is a superuser connection kept for digests, which the
	// hostile suite takes after every statement.
	digester *pgx.Conn
}

func newSandbox(t testing.TB, stmts []string) *sandbox {
	t.Helper()
	admin := testenv.Postgres(t)
	s := &sandbox{
		admin:  admin,
		schema: testenv.UniqueName("sqlgym_t"),
		role:   testenv.UniqueName("sqlgym_r"),
	}
	s.reader = withUser(t, admin, s.role)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	t.Cleanup(func() { s.drop(t) })
	if err := Load(ctx, admin, s.schema, false, stmts); err != nil {
		t.Fatalf("load fixture: %v", err)
	}
	sc, role := pgx.Identifier{s.schema}.Sanitize(), pgx.Identifier{s.role}.Sanitize()
	testenv.PostgresExec(t, admin,
		"CREATE ROLE "+role+" LOGIN",
		"GRANT USAGE ON SCHEMA "+sc+" TO "+role,
		"GRANT SELECT ON ALL TABLES IN SCHEMA "+sc+" TO "+role,
		// USAGE lets nextval reach the read-only check rather than stop
		// at the permission check: the stronger test.
		"GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA "+sc+" TO "+role,
	)
	return s
}

func (s *sandbox) drop(t testing.TB) {
	sc, role := pgx.Identifier{s.schema}.Sanitize(), pgx.Identifier{s.role}.Sanitize()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if s.digester != nil {
		s.digester.Close(ctx)
	}
	conn, err := pgx.Connect(ctx, s.admin)
	if err != nil {
		t.Errorf("cleanup: %v", err)
		return
	}
	defer conn.Close(ctx)
	for _, q := range []string{
		"DROP SCHEMA IF EXISTS " + sc + " CASCADE",
		"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = '" + s.role + "'",
		"DO $$ BEGIN IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '" + s.role + "') THEN EXECUTE 'DROP OWNED BY " + strings.ReplaceAll(role, "'", "''") + "'; END IF; END $$",
		"DROP ROLE IF EXISTS " + role,
	} {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Errorf("cleanup %q: %v", q, err)
		}
	}
}

// open connects the sandbox engine as the reader role.
func (s *sandbox) open(t testing.TB, opts Options) *Engine {
	t.Helper()
	opts.Schema = s.schema
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	eng, err := Open(ctx, s.reader, opts)
	if err != nil {
		t.Fatalf("open as reader %s: %v", s.role, err)
	}
	t.Cleanup(func() { eng.Close() })
	return eng
}

func (s *sandbox) digest(t testing.TB) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if s.digester == nil {
		conn, err := pgx.Connect(ctx, s.admin)
		if err != nil {
			t.Fatalf("digest: %v", err)
		}
		s.digester = conn
	}
	d, err := digestConn(ctx, s.digester, s.schema)
	if err != nil {
		t.Fatalf("digest: %v", err)
	}
	return d
}

// adminInt runs a one-value query as the superuser.
func adminInt(t testing.TB, dsn, q string, args ...any) int64 {
	t.Helper()
	n, err := adminIntErr(dsn, q, args...)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// adminIntErr is adminInt for a goroutine other than the test's, which
// must not call t.Fatal.
func adminIntErr(dsn, q string, args ...any) (int64, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return 0, fmt.Errorf("admin connect: %w", err)
	}
	defer conn.Close(ctx)
	var n int64
	if err := conn.QueryRow(ctx, q, args...).Scan(&n); err != nil {
		return 0, fmt.Errorf("admin %q: %w", q, err)
	}
	return n, nil
}

// withUser returns dsn logging in as user instead (the test server trusts
// local connections, so no password is needed).
func withUser(t testing.TB, dsn, user string) string {
	t.Helper()
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		u, err := url.Parse(dsn)
		if err != nil {
			t.Fatalf("parse DSN: %v", err)
		}
		u.User = url.User(user)
		return u.String()
	}
	return dsn + " user=" + user
}

// withDatabase returns dsn connecting to database db instead.
func withDatabase(t testing.TB, dsn, db string) string {
	t.Helper()
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		u, err := url.Parse(dsn)
		if err != nil {
			t.Fatalf("parse DSN: %v", err)
		}
		u.Path = "/" + db
		return u.String()
	}
	return dsn + " dbname=" + db
}
