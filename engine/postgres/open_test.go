package postgres

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/engine/enginetest"
	"github.com/sqlgym/sqlgym/internal/testenv"
)

// TestOpenRefusesPrivilegedRoles checks that the superuser, members of
// the server-file roles and roles granted the file functions are refused
// with a hint holding the reader-role recipe, while the plain reader is
// accepted.
func TestOpenRefusesPrivilegedRoles(t *testing.T) {
	s := newSandbox(t, []string{`CREATE TABLE t (a int)`})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	// Roles with one dangerous right each, dropped with the sandbox.
	mk := func(suffix string, grants ...string) string {
		role := s.role + "_" + suffix
		q := pgx.Identifier{role}.Sanitize()
		stmts := []string{"CREATE ROLE " + q + " LOGIN", "GRANT USAGE ON SCHEMA " + pgx.Identifier{s.schema}.Sanitize() + " TO " + q}
		for _, g := range grants {
			stmts = append(stmts, strings.ReplaceAll(g, "{R}", q))
		}
		t.Cleanup(func() {
			testenv.PostgresExec(t, s.admin, "DO $$ BEGIN IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '"+role+"') THEN EXECUTE 'DROP OWNED BY "+q+"'; END IF; END $$",
				"DROP ROLE IF EXISTS "+q)
		})
		testenv.PostgresExec(t, s.admin, stmts...)
		return role
	}
	privileged := map[string]string{
		"superuser":                 "",
		"pg_read_server_files":      mk("rsf", "GRANT pg_read_server_files TO {R}"),
		"pg_write_server_files":     mk("wsf", "GRANT pg_write_server_files TO {R}"),
		"pg_execute_server_program": mk("esp", "GRANT pg_execute_server_program TO {R}"),
		"server-file functions":     mk("fn", "GRANT EXECUTE ON FUNCTION pg_catalog.pg_read_file(text) TO {R}"),
		"CREATEROLE":                mk("cr", "ALTER ROLE {R} CREATEROLE"),
		"CREATEDB":                  mk("cdb", "ALTER ROLE {R} CREATEDB"),
		"REPLICATION":               mk("repl", "ALTER ROLE {R} REPLICATION"),
		"BYPASSRLS":                 mk("brls", "ALTER ROLE {R} BYPASSRLS"),
		"pg_signal_backend":         mk("sig", "GRANT pg_signal_backend TO {R}"),
		// Indirect membership counts too.
		"member of pg_signal_backend": mk("sig2", "GRANT "+pgx.Identifier{mk("sig2g", "GRANT pg_signal_backend TO {R}")}.Sanitize()+" TO {R}"),
	}
	for why, role := range privileged {
		dsn := s.admin
		if role != "" {
			dsn = withUser(t, s.admin, role)
		}
		eng, err := Open(ctx, dsn, Options{Schema: s.schema})
		var ue *sqlgym.UserError
		if !errors.As(err, &ue) {
			if eng != nil {
				eng.Close()
			}
			t.Errorf("%s: want *sqlgym.UserError, got %v", why, err)
			continue
		}
		if !strings.Contains(ue.Msg, why) {
			t.Errorf("%s: message does not say why: %s", why, ue.Msg)
		}
		for _, want := range []string{
			"CREATE ROLE sqlgym_reader LOGIN",
			"GRANT CONNECT ON DATABASE \"postgres\" TO sqlgym_reader;",
			"GRANT USAGE ON SCHEMA \"" + s.schema + "\" TO sqlgym_reader;",
			"GRANT SELECT ON ALL TABLES IN SCHEMA \"" + s.schema + "\" TO sqlgym_reader;",
			"CONNECTION LIMIT",
			"NOREPLICATION",
			"REVOKE EXECUTE ON FUNCTION %s FROM PUBLIC",
		} {
			if !strings.Contains(ue.Hint, want) {
				t.Errorf("%s: hint lacks %q:\n%s", why, want, ue.Hint)
			}
		}
	}

	// Tests may opt in; the superuser then runs statements like anyone.
	eng, err := Open(ctx, s.admin, Options{Schema: s.schema, AllowPrivileged: true})
	if err != nil {
		t.Fatalf("AllowPrivileged: %v", err)
	}
	eng.Close()

	eng, err = Open(ctx, s.reader, Options{Schema: s.schema})
	if err != nil {
		t.Fatalf("reader refused: %v", err)
	}
	eng.Close()

	var ue *sqlgym.UserError
	if _, err := Open(ctx, s.reader, Options{Schema: s.schema + "_missing"}); !errors.As(err, &ue) || !strings.Contains(ue.Msg, "does not exist") {
		t.Errorf("missing schema: want a UserError saying so, got %v", err)
	}
	other := testenv.UniqueName("sqlgym_t")
	testenv.PostgresExec(t, s.admin, "CREATE SCHEMA "+other)
	t.Cleanup(func() { testenv.PostgresExec(t, s.admin, "DROP SCHEMA "+other+" CASCADE") })
	if _, err := Open(ctx, s.reader, Options{Schema: other}); !errors.As(err, &ue) || !strings.Contains(ue.Hint, "GRANT USAGE ON SCHEMA") {
		t.Errorf("schema without USAGE: want a UserError with the recipe, got %v", err)
	}
	if _, err := Open(ctx, "postgres://%zz", Options{}); !errors.As(err, &ue) {
		t.Errorf("malformed DSN: want a UserError, got %v", err)
	}
}

// TestWhyPrivilegedRolesAreRefused is the control experiment behind the
// refusal: as a superuser, inside the very same read-only transaction,
// with the screen off, a statement reads server files and writes one.
// If this ever stops working the refusal is still right, but the hostile
// suite's file checks would prove less.
func TestWhyPrivilegedRolesAreRefused(t *testing.T) {
	s := newSandbox(t, enginetest.Fixture())
	dir, err := os.MkdirTemp("", "sqlgym-pg-control-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	eng, err := Open(ctx, s.admin, Options{Schema: s.schema, AllowPrivileged: true})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	eng.unscreened = true
	res, err := eng.Query(ctx, `SELECT current_setting('transaction_read_only') AS ro, length(pg_read_file('PG_VERSION')) > 0 AS read_ok`, sqlgym.Limits{})
	if err != nil {
		t.Fatalf("superuser read: %v", err)
	}
	enginetest.ExpectRows(t, res, []string{"ro", "read_ok"}, [][]sqlgym.Value{{sqlgym.Text("on"), sqlgym.Bool(true)}})
	target := filepath.Join(dir, "written.csv")
	if _, err := eng.Query(ctx, `COPY (SELECT 1) TO '`+target+`'`, sqlgym.Limits{}); err != nil {
		t.Fatalf("superuser COPY TO file in a read-only transaction: %v", err)
	}
	if _, err := os.Stat(target); err != nil {
		t.Errorf("the server could not write into the watched directory: %v", err)
	}
}
