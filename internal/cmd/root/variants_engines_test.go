package root

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/engine"
	"github.com/sqlgym/sqlgym/engine/duckdb"
	"github.com/sqlgym/sqlgym/engine/postgres"
	"github.com/sqlgym/sqlgym/internal/testenv"

	"github.com/sqlgym/sqlgym/internal/cmd/cmdkit"
)

// variantsToyStmts is variantsToy's table as portable SQL.
func variantsToyStmts() []string {
	stmts := []string{`CREATE TABLE orders (order_id INTEGER NOT NULL PRIMARY KEY, amount INTEGER NOT NULL, status VARCHAR(10) NOT NULL)`}
	for i := 1; i <= 30; i++ {
		stmts = append(stmts, fmt.Sprintf("INSERT INTO orders VALUES (%d, %d, '%s')", i, 3*i, []string{"paid", "open"}[i%2]))
	}
	return stmts
}

// variantsOnEngine runs `sqlgym variants` on one database (ref is its
// --db NAME=URL), checks the report, the tasks' db_variants (each with
// prefix) and that verify --variants rejects the near miss the original
// rewards; it returns the variant URLs and the command's arguments.
func variantsOnEngine(t *testing.T, name, ref, prefix string, extra ...string) ([]string, []string) {
	t.Helper()
	tasks := writeFile(t, "tasks.jsonl",
		`{"id":"big","db":"`+name+`","question":"How many orders cost more than 40?","sql":"SELECT COUNT(*) FROM orders WHERE amount > 40"}`+"\n")
	out := filepath.Join(t.TempDir(), "v")
	args := append([]string{"variants", "--tasks", tasks, "--db", ref, "--out", out, "--max-variants", "2", "--candidates", "3"}, extra...)
	code, stdout, errOut := run(t, args...)
	if code != cmdkit.ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(stdout, "weak 1 of 1 screened tasks (100.0%) before, 0 (0.0%)") {
		t.Errorf("report:\n%s", stdout)
	}
	got, err := sqlgym.ReadTasks(filepath.Join(out, "tasks.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || len(got[0].DBVariants) == 0 {
		t.Fatalf("tasks %+v: want db_variants", got)
	}
	for _, u := range got[0].DBVariants {
		if !strings.HasPrefix(u, prefix) {
			t.Errorf("db_variants %q: want a URL starting %q", u, prefix)
		}
	}
	manifest, err := os.ReadFile(filepath.Join(out, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range got[0].DBVariants {
		// A file's path is recorded relative to --out (the folder moves).
		rel, _ := filepath.Rel(out, strings.TrimPrefix(u, "duckdb:"))
		if !strings.Contains(string(manifest), fmt.Sprintf("%q", u)) && !strings.Contains(string(manifest), fmt.Sprintf("%q", filepath.ToSlash(rel))) {
			t.Errorf("manifest does not record variant %s", u)
		}
	}
	preds := writeFile(t, "preds.jsonl", `{"task_id":"big","sql":"SELECT COUNT(*) FROM orders WHERE amount >= 40"}`+"\n")
	for _, c := range []struct {
		flags []string
		want  string
	}{{nil, `"outcome":"correct"`}, {[]string{"--variants"}, `"outcome":"wrong"`}} {
		vargs := append([]string{"verify", "--tasks", filepath.Join(out, "tasks.jsonl"), "--db", ref, "--predictions", preds}, c.flags...)
		code, stdout, errOut := run(t, vargs...)
		if !strings.Contains(stdout, c.want) {
			t.Errorf("verify %v: exit %d, want %s in:\n%s%s", c.flags, code, c.want, stdout, errOut)
		}
	}
	return got[0].DBVariants, args
}

func TestVariantsCommandDuckDB(t *testing.T) {
	t.Setenv("SQLGYM_CACHE", t.TempDir())
	db := filepath.Join(t.TempDir(), "toy.duckdb")
	if err := duckdb.Create(context.Background(), db, variantsToyStmts()); err != nil {
		t.Fatal(err)
	}
	urls, args := variantsOnEngine(t, "toy", "toy=duckdb:"+db, "duckdb:")
	out := args[slices.Index(args, "--out")+1]
	for i, u := range urls {
		if want := "duckdb:" + filepath.Join(out, "toy", fmt.Sprintf("toy_v%d.duckdb", i+1)); u != want {
			t.Errorf("variant %d at %s, want %s", i+1, u, want)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "toy", "toy.duckdb")); err != nil {
		t.Errorf("no copy of the original beside the variants: %v", err)
	}
	code, _, errOut := run(t, append(args, "--seed", "9")...)
	if code == cmdkit.ExitOK || !strings.Contains(errOut, "--replace") {
		t.Errorf("second run, another seed: exit %d, stderr %q; want a refusal naming --replace", code, errOut)
	}
}

func TestVariantsCommandPostgres(t *testing.T) {
	t.Setenv("SQLGYM_CACHE", t.TempDir())
	admin := testenv.Postgres(t)
	name := testenv.UniqueName("toy")
	reader, schema := testenv.PostgresReader(t, func(ctx context.Context, dsn, schema string) error {
		return postgres.Load(ctx, dsn, schema, false, variantsToyStmts())
	})
	// Runs before PostgresReader's cleanup: the reader role is dropped
	// only once no schema grants it anything.
	t.Cleanup(func() {
		ctx := context.Background()
		ss, err := postgres.SchemasLike(ctx, admin, "^"+name+"_")
		if err != nil {
			t.Errorf("list schemas: %v", err)
		}
		for _, s := range ss {
			if err := postgres.DropSchema(ctx, admin, s); err != nil {
				t.Errorf("drop %s: %v", s, err)
			}
		}
	})
	// A password with white space, '@' and '%' (the test server trusts
	// local connections, so any password connects): no file the command
	// writes may hold it, and verify finds it again from --db.
	const password = "pa ss\t@x%"
	ru, err := url.Parse(reader)
	if err != nil {
		t.Fatal(err)
	}
	ru.User = url.UserPassword(ru.User.Username(), password)
	ref := name + "=" + engine.WithSchema(ru.String(), schema)
	urls, args := variantsOnEngine(t, name, ref, "postgres://", "--pg-admin", admin)
	out := args[slices.Index(args, "--out")+1]
	for _, f := range []string{"tasks.jsonl", "manifest.json", "report.md", filepath.Join(name, "done.json")} {
		b, err := os.ReadFile(filepath.Join(out, f))
		if err != nil {
			t.Fatal(err)
		}
		for _, form := range []string{password, url.UserPassword("u", password).String()[2:], "pa ss", "pa%20ss"} {
			if strings.Contains(string(b), form) {
				t.Errorf("%s holds the reader's password (%q):\n%s", f, form, b)
			}
		}
	}
	for i, u := range urls {
		loc, err := engine.ParseURL(u)
		if err != nil || loc.Schema != fmt.Sprintf("%s_v%d", name, i+1) {
			t.Errorf("variant %d at %s: want schema %s_v%d (%v)", i+1, u, name, i+1, err)
		}
	}
	// The same command again resumes the finished folder (its schemas'
	// digests as recorded); a folder a stopped run left without
	// done.json is made again, its schemas dropped, without --replace.
	if code, _, errOut := run(t, args...); code != cmdkit.ExitOK || !strings.Contains(errOut, "resumed") {
		t.Errorf("same command again: exit %d, stderr %q; want the folder resumed", code, errOut)
	}
	if err := os.Remove(filepath.Join(out, name, "done.json")); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := run(t, args...); code != cmdkit.ExitOK || !strings.Contains(errOut, "made again") {
		t.Errorf("after a stopped run: exit %d, stderr %q; want the folder made again", code, errOut)
	}
	// Another --out, so that only the schemas stand in the way.
	args[slices.Index(args, "--out")+1] = filepath.Join(t.TempDir(), "v2")
	code, _, errOut := run(t, args...)
	if code == cmdkit.ExitOK || !strings.Contains(errOut, "--replace") || !strings.Contains(errOut, name+"_v1") {
		t.Errorf("second run: exit %d, stderr %q; want a refusal naming the schemas and --replace", code, errOut)
	}
	if code, _, errOut = run(t, append(args, "--replace")...); code != cmdkit.ExitOK {
		t.Errorf("--replace: exit %d: %s", code, errOut)
	}
}
