package root

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/shopdb"

	"github.com/sqlgym/sqlgym/internal/cmd/cmdkit"
	datacmd "github.com/sqlgym/sqlgym/internal/cmd/data"
)

// Every command that takes a task file reads it by shopdb.LoadTasks, so the
// name "shop" means the built-in set in each (issue 15: split, --band and
// author --screen read files by another function). split is tested in
// split_test.go.
func TestBandFileMayBeTheBuiltInSet(t *testing.T) {
	t.Setenv("SQLGYM_CACHE", t.TempDir())
	out := filepath.Join(t.TempDir(), "trl.jsonl")
	code, stdout, errOut := run(t, "export", "--tasks", "shop", "--band", "shop", "--include-holdout", "--format", "trl", "--out", out, "--json")
	if code != cmdkit.ExitOK {
		t.Fatalf("export --band shop: exit %d: %s", code, errOut)
	}
	var res datacmd.ExportResult
	if err := json.Unmarshal([]byte(stdout), &res); err != nil {
		t.Fatal(err)
	}
	all, err := sqlgym.ReadTasks(writeShopFile(t))
	if err != nil {
		t.Fatal(err)
	}
	if !res.BandSelected || res.Examples != len(all) {
		t.Fatalf("exported %+v, want every one of the %d built-in tasks", res, len(all))
	}
}

func writeShopFile(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "shop.jsonl")
	if code, _, errOut := run(t, "split", "--tasks", "shop", "--out", p, "--group-by", "none"); code != cmdkit.ExitOK {
		t.Fatalf("split --tasks shop: %s", errOut)
	}
	return p
}

func TestAuthorScreenReadsItsOutput(t *testing.T) {
	t.Setenv("SQLGYM_CACHE", t.TempDir())
	// An --out named like the built-in set is still the file author wrote,
	// not the built-in set.
	dir := t.TempDir()
	wd, _ := os.Getwd()
	t.Cleanup(func() { os.Chdir(wd) })
	if err := os.Chdir(dir); err != nil {
		t.Fatal(err)
	}
	code, stdout, errOut := run(t, "author", "--teacher", "synth", "--db", "shop", "--n", "12", "--out", "shop", "--screen", "--json")
	if code != cmdkit.ExitOK {
		t.Fatalf("author --screen: exit %d: %s", code, errOut)
	}
	var res datacmd.AuthorResult
	if err := json.Unmarshal([]byte(stdout), &res); err != nil {
		t.Fatal(err)
	}
	if res.Screen == nil || res.Screen.Tasks != 12 || !strings.Contains(errOut, "screen (mode multiset)") {
		t.Fatalf("screen report %+v, stderr %q", res.Screen, errOut)
	}
	got, err := sqlgym.ReadTasks(filepath.Join(dir, "shop"))
	if err != nil || len(got) != 12 {
		t.Fatalf("%d tasks in ./shop: %v", len(got), err)
	}
}

// export hands on the gold for the engine the database is on: the shop
// tasks' julianday golds become DuckDB SQL on the shop in DuckDB.
func TestExportGivesTheEnginesGold(t *testing.T) {
	t.Setenv("SQLGYM_CACHE", t.TempDir())
	dir := t.TempDir()
	duck := duckShop(t, dir)
	for _, tc := range []struct{ db, want, not string }{
		{"sqlite", "julianday(", "EXTRACT(EPOCH"},
		{"duckdb", "EXTRACT(EPOCH", "julianday("},
	} {
		out := filepath.Join(dir, tc.db+".jsonl")
		args := []string{"export", "--tasks", "shop", "--format", "trl", "--out", out}
		if tc.db == "duckdb" {
			args = append(args, "--db", "shop=duckdb:"+duck)
		}
		if code, _, errOut := run(t, args...); code != cmdkit.ExitOK {
			t.Fatalf("%s: export: exit %d: %s", tc.db, code, errOut)
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), tc.want) || strings.Contains(string(b), tc.not) {
			t.Errorf("%s: the exported golds do not use %s only", tc.db, tc.want)
		}
	}
}

// screen runs, and mutates, the gold of the engine the database is on:
// the shop tasks with a per-engine gold screen on the shop in DuckDB with
// no gold failing (their sql, SQLite's, has julianday, which DuckDB lacks).
func TestScreenUsesTheEnginesGold(t *testing.T) {
	t.Setenv("SQLGYM_CACHE", t.TempDir())
	dir := t.TempDir()
	duck := duckShop(t, dir)
	all, err := shopdb.Tasks()
	if err != nil {
		t.Fatal(err)
	}
	var some []sqlgym.Task
	for _, tk := range all {
		if strings.Contains(tk.SQL, "julianday") {
			some = append(some, tk)
		}
	}
	if len(some) == 0 {
		t.Fatal("no julianday gold in the shop set: the test proves nothing")
	}
	var b strings.Builder
	if err := sqlgym.WriteTasks(&b, some); err != nil {
		t.Fatal(err)
	}
	tasks := writeFile(t, "dated.jsonl", b.String())
	code, stdout, errOut := run(t, "screen", "--tasks", tasks, "--db", "shop=duckdb:"+duck, "--json")
	if code != cmdkit.ExitOK {
		t.Fatalf("screen: exit %d: %s", code, errOut)
	}
	var res datacmd.ScreenJSON
	if err := json.Unmarshal([]byte(stdout), &res); err != nil {
		t.Fatal(err)
	}
	if res.GoldErrors != 0 || res.Screened != len(some) {
		t.Fatalf("screened %d of %d, %d gold errors", res.Screened, len(some), res.GoldErrors)
	}
}

// duckShop creates the shop database as a DuckDB file in dir.
func duckShop(t *testing.T, dir string) string {
	t.Helper()
	duck := filepath.Join(dir, "shop.duckdb")
	if code, _, errOut := run(t, "db", "create", "shop", "--engine", "duckdb", "--out", duck); code != cmdkit.ExitOK {
		t.Fatalf("db create: %s", errOut)
	}
	return duck
}
