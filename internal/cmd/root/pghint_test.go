package root

import (
	"net/url"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/internal/testenv"

	"github.com/sqlgym/sqlgym/internal/cmd/cmdkit"
)

// dsnFor is dsn logging in as user (when not "") to database db.
func dsnFor(t *testing.T, dsn, user, db string) string {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	if user != "" {
		u.User = url.User(user)
	}
	u.Path = "/" + db
	return u.String()
}

// The path a new user takes on PostgreSQL, in a scratch database: load the
// shop into schema shop, point sqlgym at the database as the superuser,
// follow the hint. Each step used to end in a hint about schema public and
// then "0 tasks ... gold_error", exit 0.
func TestPostgresHintsNameTheSchema(t *testing.T) {
	admin := testenv.Postgres(t)
	db := testenv.UniqueName("sqlgym_hint")
	role := testenv.UniqueName("sqlgym_hr")
	testenv.PostgresExec(t, admin, "CREATE DATABASE "+db)
	t.Cleanup(func() {
		testenv.PostgresExec(t, admin, "DROP DATABASE IF EXISTS "+db+" WITH (FORCE)", "DROP ROLE IF EXISTS "+role)
	})
	super := dsnFor(t, admin, "", db)

	code, out, errOut := run(t, "db", "create", "shop", "--engine", "postgres", "--dsn", super, "--schema", "shop")
	if code != cmdkit.ExitOK || !strings.Contains(out, "next: --db shop="+super+" --pg-schema shop") {
		t.Fatalf("db create: exit %d, stdout %q, stderr %q; want the --db and --pg-schema to use next", code, out, errOut)
	}

	// db schema runs no model-written SQL: a superuser may read the
	// Catalog, with a note that eval and serve will refuse the role.
	code, out, errOut = run(t, "db", "schema", "shop", "--db", "shop="+super, "--pg-schema", "shop")
	if code != cmdkit.ExitOK || !strings.Contains(out, "orders") || !strings.Contains(errOut, "note: ") || !strings.Contains(errOut, "reader-sql") {
		t.Fatalf("db schema as the superuser: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}

	tasks := writeFile(t, "tasks.jsonl", `{"id":"n","db":"shop","question":"How many orders?","sql":"SELECT count(*) FROM orders"}`+"\n")
	preds := writeFile(t, "preds.jsonl", `{"task_id":"n","sql":"SELECT count(*) FROM orders"}`+"\n")
	verify := func(dsn string, extra ...string) (int, string) {
		args := append([]string{"verify", "--tasks", tasks, "--predictions", preds, "--db", "shop=" + dsn}, extra...)
		code, _, errOut := run(t, args...)
		return code, errOut
	}

	// As the superuser, no --pg-schema: refused, and the hint grants on the
	// schema that holds the tables and names the flag.
	code, errOut = verify(super)
	if code != cmdkit.ExitError || !strings.Contains(errOut, "is a superuser") ||
		!strings.Contains(errOut, `GRANT USAGE ON SCHEMA "shop" TO sqlgym_reader;`) ||
		!strings.Contains(errOut, "--pg-schema shop") || strings.Contains(errOut, `SCHEMA "public"`) {
		t.Fatalf("superuser: exit %d, stderr:\n%s", code, errOut)
	}

	// Following the hint with a reader role but still no --pg-schema: one
	// clear error naming the flag, not a run of gold errors.
	testenv.PostgresExec(t, super, "CREATE ROLE "+role+" LOGIN", "GRANT CONNECT ON DATABASE "+db+" TO "+role,
		"GRANT USAGE ON SCHEMA shop TO "+role, "GRANT SELECT ON ALL TABLES IN SCHEMA shop TO "+role)
	reader := dsnFor(t, admin, role, db)
	code, errOut = verify(reader)
	if code != cmdkit.ExitError || !strings.Contains(errOut, "schema public holds no tables") || !strings.Contains(errOut, "hint: pass --pg-schema shop") {
		t.Fatalf("reader without --pg-schema: exit %d, stderr:\n%s", code, errOut)
	}
	// serve refuses to start on it too, rather than failing per request.
	code, _, errOut = run(t, "serve", "--tasks", tasks, "--db", "shop="+reader, "--addr", "127.0.0.1:0")
	if code != cmdkit.ExitError || !strings.Contains(errOut, "--pg-schema shop") {
		t.Fatalf("serve without --pg-schema: exit %d, stderr:\n%s", code, errOut)
	}

	// With the flag the hint named, it works.
	code, errOut = verify(reader, "--pg-schema", "shop")
	if code != cmdkit.ExitOK {
		t.Fatalf("reader with --pg-schema shop: exit %d, stderr:\n%s", code, errOut)
	}
}

// `db reader-sql` prints SQL that a superuser can run as it is, and the
// role it makes is one sqlgym accepts: the path the README's PostgreSQL
// quickstart takes, in a scratch database.
func TestDBReaderSQLMakesARoleSqlgymAccepts(t *testing.T) {
	admin := testenv.Postgres(t)
	db := testenv.UniqueName("sqlgym_rsql")
	role := testenv.UniqueName("sqlgym_rr")
	testenv.PostgresExec(t, admin, "CREATE DATABASE "+db)
	super := dsnFor(t, admin, "", db)
	t.Cleanup(func() {
		testenv.PostgresExec(t, admin, "DROP DATABASE IF EXISTS "+db+" WITH (FORCE)", "DROP ROLE IF EXISTS "+role)
	})
	if code, _, errOut := run(t, "db", "create", "shop", "--engine", "postgres", "--dsn", super, "--schema", "shop"); code != cmdkit.ExitOK {
		t.Fatalf("db create: exit %d: %s", code, errOut)
	}
	code, sql, errOut := run(t, "db", "reader-sql", "--database", db, "--schema", "shop", "--role", role, "--password", "it's secret")
	if code != cmdkit.ExitOK || !strings.Contains(sql, `GRANT SELECT ON ALL TABLES IN SCHEMA "shop" TO `+role+`;`) ||
		!strings.Contains(sql, "PASSWORD 'it''s secret'") {
		t.Fatalf("reader-sql: exit %d, stderr %q, SQL:\n%s", code, errOut, sql)
	}
	testenv.PostgresExec(t, super, sql)

	tasks := writeFile(t, "tasks.jsonl", `{"id":"n","db":"shop","question":"How many orders?","sql":"SELECT count(*) FROM orders"}`+"\n")
	preds := writeFile(t, "preds.jsonl", `{"task_id":"n","sql":"SELECT count(*) FROM orders"}`+"\n")
	code, out, errOut := run(t, "verify", "--tasks", tasks, "--predictions", preds, "--db", "shop="+dsnFor(t, admin, role, db), "--pg-schema", "shop")
	if code != cmdkit.ExitOK || !strings.Contains(out, "correct") {
		t.Fatalf("verify as the role reader-sql made: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if code, _, _ := run(t, "db", "reader-sql"); code != cmdkit.ExitUsage {
		t.Fatalf("reader-sql without --schema: exit %d, want usage error", code)
	}
}
