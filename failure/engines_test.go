package failure_test

import (
	"context"
	"database/sql"
	"net/url"
	"path/filepath"
	"slices"
	"testing"
	"time"

	_ "github.com/duckdb/duckdb-go/v2"
	"github.com/jackc/pgx/v5"
	_ "github.com/mattn/go-sqlite3"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/engine/duckdb"
	"github.com/sqlgym/sqlgym/engine/postgres"
	"github.com/sqlgym/sqlgym/engine/sqlite"
	"github.com/sqlgym/sqlgym/failure"
	"github.com/sqlgym/sqlgym/internal/testenv"
)

// fixture is two tables that share a column name, so that an unqualified
// reference to it is ambiguous on every engine.
var fixture = []string{
	"CREATE TABLE a (id INTEGER PRIMARY KEY, name TEXT, amount INTEGER)",
	"CREATE TABLE b (id INTEGER PRIMARY KEY, a_id INTEGER, note TEXT)",
	"INSERT INTO a VALUES (1, 'x', 10), (2, 'y', 20)",
	"INSERT INTO b VALUES (1, 1, 'n1'), (2, 2, 'n2')",
}

// errorCases are answers that do not run, with the class each engine's
// real message must give. The query is written so that it fails for the
// named reason on all three engines.
type errorCase struct {
	sql  string
	want failure.Class
}

var errorCases = []errorCase{
	{"SELECT * FROM no_such_tbl", failure.MissingTable},
	{"SELECT nope FROM a", failure.MissingColumn},
	{"SELECT no_such_fn(name) FROM a", failure.MissingFunction},
	{"SELECT id FROM a JOIN b ON a.id = b.a_id", failure.AmbiguousColumn},
	{"SELEC name FROM a", failure.Syntax},
	{"SELECT name FROM a WHERE", failure.Syntax},
}

func classifyOn(t *testing.T, eng sqlgym.Engine, d sqlgym.Dialect, q string) failure.Failure {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, err := eng.Query(ctx, q, sqlgym.Limits{})
	if err == nil {
		t.Fatalf("%s: %q ran; the case must fail", d, q)
	}
	return failure.Classify(failure.Input{Dialect: d, PredSQL: q, Err: err, Outcome: sqlgym.OutcomeError})
}

// checkErrors runs the shared cases and the engine's own on a real engine.
func checkErrors(t *testing.T, eng sqlgym.Engine, d sqlgym.Dialect, own ...errorCase) {
	t.Helper()
	for _, c := range append(slices.Clone(errorCases), own...) {
		if f := classifyOn(t, eng, d, c.sql); f.Class != c.want {
			t.Errorf("%s %q: class %s (%s), want %s", d, c.sql, f.Class, f.Detail, c.want)
		}
	}
}

func loadFile(t *testing.T, driver, path string, stmts []string) {
	t.Helper()
	db, err := sql.Open(driver, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

func TestEngineErrorsSQLite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f.sqlite")
	loadFile(t, "sqlite3", "file:"+path, fixture)
	eng, err := sqlite.Open(path, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	checkErrors(t, eng, sqlgym.DialectSQLite, errorCase{"SELECT substr() FROM a", failure.TypeError})
	// The step budget: a statement that runs out of it is a timeout.
	ctx := context.Background()
	_, err = eng.Query(ctx, "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM c) SELECT count(*) FROM c", sqlgym.Limits{VMSteps: 100000})
	if f := failure.Classify(failure.Input{Dialect: sqlgym.DialectSQLite, Err: err, Outcome: sqlgym.OutcomeTimeout}); f.Class != failure.Timeout {
		t.Errorf("step budget spent: class %s (%v)", f.Class, err)
	}
	_, err = eng.Query(ctx, "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM c LIMIT 5000) SELECT i FROM c", sqlgym.Limits{MaxRows: 100})
	if f := failure.Classify(failure.Input{Dialect: sqlgym.DialectSQLite, Err: err, Outcome: sqlgym.OutcomeTooLarge}); f.Class != failure.TooLarge {
		t.Errorf("5000 rows under a 100-row cap: class %s (%v)", f.Class, err)
	}
}

func TestEngineErrorsDuckDB(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f.duckdb")
	loadFile(t, "duckdb", path, fixture)
	eng, err := duckdb.Open(path, duckdb.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	checkErrors(t, eng, sqlgym.DialectDuckDB, errorCase{"SELECT name + 1 FROM a", failure.TypeError})
}

func TestEngineErrorsPostgres(t *testing.T) {
	admin := testenv.Postgres(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	schema, role := testenv.UniqueName("sqlgym_fail"), testenv.UniqueName("sqlgym_fail_r")
	if err := postgres.Load(ctx, admin, schema, false, fixture); err != nil {
		t.Fatal(err)
	}
	sc, ro := pgx.Identifier{schema}.Sanitize(), pgx.Identifier{role}.Sanitize()
	exec := func(qs ...string) {
		bg := context.Background()
		conn, err := pgx.Connect(bg, admin)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(bg)
		for _, q := range qs {
			if _, err := conn.Exec(bg, q); err != nil {
				t.Errorf("%s: %v", q, err)
			}
		}
	}
	// The engine refuses a superuser: read as a role that can only SELECT.
	exec("CREATE ROLE "+ro+" LOGIN", "GRANT USAGE ON SCHEMA "+sc+" TO "+ro, "GRANT SELECT ON ALL TABLES IN SCHEMA "+sc+" TO "+ro)
	t.Cleanup(func() {
		exec("DROP SCHEMA IF EXISTS "+sc+" CASCADE", "DROP OWNED BY "+ro, "DROP ROLE IF EXISTS "+ro)
	})
	u, err := url.Parse(admin)
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.User(role)
	eng, err := postgres.Open(ctx, u.String(), postgres.Options{Schema: schema})
	if err != nil {
		t.Fatal(err)
	}
	checkErrors(t, eng, sqlgym.DialectPostgres,
		errorCase{"SELECT name FROM a WHERE amount = 'ten'", failure.TypeError},
		errorCase{"SELECT strftime('%Y', name) FROM a", failure.MissingFunction})
	eng.Close()
}
