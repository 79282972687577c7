package testenv

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// PostgresReader gives a test its own schema on the test server, filled by
// load (called with the superuser DSN and the schema's name), and a login
// role that may only use that schema and read its tables, as sqlgym
// requires of the role model SQL runs as. It returns the reader's DSN and
// the schema; both are dropped when the test ends. It skips like Postgres.
func PostgresReader(t testing.TB, load func(ctx context.Context, adminDSN, schema string) error) (readerDSN, schema string) {
	t.Helper()
	admin := Postgres(t)
	schema, role := UniqueName("sqlgym_t"), UniqueName("sqlgym_r")
	sc, qr := pgx.Identifier{schema}.Sanitize(), pgx.Identifier{role}.Sanitize()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	t.Cleanup(func() {
		PostgresExec(t, admin, "DROP SCHEMA IF EXISTS "+sc+" CASCADE",
			"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = '"+role+"'",
			"DROP ROLE IF EXISTS "+qr)
	})
	if err := load(ctx, admin, schema); err != nil {
		t.Fatalf("load schema %s: %v", schema, err)
	}
	PostgresExec(t, admin, "CREATE ROLE "+qr+" LOGIN",
		"GRANT USAGE ON SCHEMA "+sc+" TO "+qr,
		"GRANT SELECT ON ALL TABLES IN SCHEMA "+sc+" TO "+qr)
	u, err := url.Parse(admin)
	if err != nil || !strings.HasPrefix(admin, "postgres") {
		t.Fatalf("SQLGYM_TEST_POSTGRES must be a postgres:// URL for a reader role: %v", err)
	}
	u.User = url.User(role)
	return u.String(), schema
}

// PostgresExec runs statements on dsn (an administrator's, as a test
// sets up databases, schemas and roles), failing the test on the first
// error. DROP DATABASE waits for a checkpoint and for terminated backends
// to exit, which a machine running the whole suite can make slow: hence
// the long bound.
func PostgresExec(t testing.TB, dsn string, stmts ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer conn.Close(ctx)
	for _, q := range stmts {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}
