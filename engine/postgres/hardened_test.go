package postgres

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/sqlgym/sqlgym/internal/testenv"
)

// newHardenedSandbox is a sandbox set up by the full reader recipe: a
// database of its own (function privileges belong to one database, so
// the REVOKEs touch no other test), HardeningSQL run in it, the fixture
// in a schema, and a reader role with CONNECT, USAGE and SELECT.
func newHardenedSandbox(t testing.TB, stmts []string) *sandbox {
	t.Helper()
	root := testenv.Postgres(t)
	db := testenv.UniqueName("sqlgym_db")
	role := testenv.UniqueName("sqlgym_r")
	qdb, qrole := pgx.Identifier{db}.Sanitize(), pgx.Identifier{role}.Sanitize()
	testenv.PostgresExec(t, root, "CREATE DATABASE "+qdb, "CREATE ROLE "+qrole+" LOGIN", "GRANT CONNECT ON DATABASE "+qdb+" TO "+qrole)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		conn, err := pgx.Connect(ctx, root)
		if err != nil {
			t.Errorf("cleanup: %v", err)
			return
		}
		defer conn.Close(ctx)
		for _, q := range []string{"DROP DATABASE IF EXISTS " + qdb + " WITH (FORCE)", "DROP ROLE IF EXISTS " + qrole} {
			if _, err := conn.Exec(ctx, q); err != nil {
				t.Errorf("cleanup %q: %v", q, err)
			}
		}
	})
	admin := withDatabase(t, root, db)
	s := &sandbox{admin: admin, schema: testenv.UniqueName("sqlgym_t"), role: role, reader: withUser(t, admin, role)}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := Load(ctx, admin, s.schema, false, stmts); err != nil {
		t.Fatalf("load fixture: %v", err)
	}
	sc := pgx.Identifier{s.schema}.Sanitize()
	testenv.PostgresExec(t, admin, HardeningSQL(),
		"GRANT USAGE ON SCHEMA "+sc+" TO "+qrole,
		"GRANT SELECT ON ALL TABLES IN SCHEMA "+sc+" TO "+qrole)
	t.Cleanup(func() {
		if s.digester != nil {
			s.digester.Close(context.Background())
		}
	})
	return s
}
