package root

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/engine"
	"github.com/sqlgym/sqlgym/engine/postgres"
	"github.com/sqlgym/sqlgym/engine/sqlite"
	"github.com/sqlgym/sqlgym/internal/testenv"
	"github.com/sqlgym/sqlgym/rundir"

	"github.com/sqlgym/sqlgym/internal/cmd/cmdkit"
)

const toyTask = `{"id":"big","db":"toy","question":"How many orders cost more than 40?","sql":"SELECT COUNT(*) FROM orders WHERE amount > 40"%s}` + "\n"

// evalDigests runs the baseline over tasks into a new folder and returns
// the manifest's database digests.
func evalDigests(t *testing.T, tasks string, extra ...string) map[string]string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "run")
	args := append([]string{"eval", "--tasks", tasks, "--policy", "baseline", "--k", "1", "--out", out}, extra...)
	if code, _, errOut := run(t, args...); code != cmdkit.ExitOK {
		t.Fatalf("eval %v: exit %d: %s", extra, code, errOut)
	}
	m, err := rundir.ReadManifest(out)
	if err != nil {
		t.Fatal(err)
	}
	return m.DBDigests
}

// A run judged on variants records each variant's digest: emptying a
// variant changes the manifest (issue 26: byte-identical manifests).
func TestEvalDigestsVariantDatabases(t *testing.T) {
	t.Setenv("SQLGYM_CACHE", t.TempDir())
	db := variantsToy(t)
	v1 := filepath.Join(t.TempDir(), "toy_v1.sqlite")
	if err := sqlite.Create(context.Background(), v1, variantsToyStmts()); err != nil {
		t.Fatal(err)
	}
	tasks := writeFile(t, "tasks.jsonl", fmt.Sprintf(toyTask, `,"db_variants":["sqlite:`+v1+`"]`))
	before := evalDigests(t, tasks, "--db", "toy=sqlite:"+db, "--variants")
	key := "toy variant toy_v1.sqlite"
	if before[key] == "" || before["toy"] == "" {
		t.Fatalf("digests %v: want the variant's under %q", before, key)
	}
	if err := os.Remove(v1); err != nil {
		t.Fatal(err)
	}
	if err := sqlite.Create(context.Background(), v1, variantsToyStmts()[:1]); err != nil { // the table, emptied
		t.Fatal(err)
	}
	after := evalDigests(t, tasks, "--db", "toy=sqlite:"+db, "--variants")
	if after[key] == before[key] || after["toy"] != before["toy"] {
		t.Errorf("emptied variant: digests %v, before %v", after, before)
	}
}

// A PostgreSQL digest comes from the data: localhost and 127.0.0.1 give
// the same digest (issue 26: compare refused them as different
// contents), and a row edited in place changes it.
func TestEvalPostgresDigestIsTheContents(t *testing.T) {
	t.Setenv("SQLGYM_CACHE", t.TempDir())
	admin := testenv.Postgres(t)
	reader, schema := testenv.PostgresReader(t, func(ctx context.Context, dsn, schema string) error {
		return postgres.Load(ctx, dsn, schema, false, variantsToyStmts())
	})
	if !strings.Contains(reader, "127.0.0.1") {
		t.Skipf("SQLGYM_TEST_POSTGRES names no 127.0.0.1 to respell: %s", reader)
	}
	tasks := writeFile(t, "tasks.jsonl", fmt.Sprintf(toyTask, ""))
	a := evalDigests(t, tasks, "--db", "toy="+engine.WithSchema(reader, schema))
	b := evalDigests(t, tasks, "--db", "toy="+engine.WithSchema(strings.Replace(reader, "127.0.0.1", "localhost", 1), schema))
	if a["toy"] == "" || a["toy"] != b["toy"] {
		t.Fatalf("127.0.0.1 %q, localhost %q: want one digest", a["toy"], b["toy"])
	}
	testenv.PostgresExec(t, admin, fmt.Sprintf(`UPDATE %q.orders SET amount = amount + 1 WHERE order_id = 7`, schema))
	if c := evalDigests(t, tasks, "--db", "toy="+engine.WithSchema(reader, schema)); c["toy"] == a["toy"] {
		t.Errorf("a row edited in place kept the digest %q", c["toy"])
	}
}
