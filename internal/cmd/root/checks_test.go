package root

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/internal/cmd/cmdkit"
	runcmd "github.com/sqlgym/sqlgym/internal/cmd/run"
)

// A task whose gold reads a table the database lacks, beside a good one.
const brokenTasks = `{"id":"good","db":"shop","question":"How many orders?","sql":"SELECT count(*) FROM orders"}
{"id":"broken","db":"shop","question":"How many widgets?","sql":"SELECT count(*) FROM widgets"}
`

// verify names the broken gold with the database's error, and a run in
// which every gold fails exits 1 with a hint instead of 0.
func TestVerifyNamesBrokenGoldsAndRefusesNothingScored(t *testing.T) {
	tasks := writeFile(t, "tasks.jsonl", brokenTasks)
	preds := writeFile(t, "preds.jsonl", `{"task_id":"good","sql":"SELECT count(*) FROM orders"}`+"\n"+`{"task_id":"broken","sql":"SELECT 1"}`+"\n")
	code, out, _ := run(t, "verify", "--tasks", tasks, "--predictions", preds, "--out", filepath.Join(t.TempDir(), "r2.jsonl"))
	if code != cmdkit.ExitOK || !strings.Contains(out, "broken golds (1 tasks") || !strings.Contains(out, "  broken: ") || !strings.Contains(out, "no such table: widgets") {
		t.Fatalf("exit %d, summary does not name the broken gold with its error:\n%s", code, out)
	}
	code, out, _ = run(t, "verify", "--tasks", tasks, "--predictions", preds, "--json", "--out", filepath.Join(t.TempDir(), "r3.jsonl"))
	var js struct {
		BrokenGolds []struct {
			TaskID string `json:"task_id"`
			Error  string `json:"error"`
		} `json:"broken_golds"`
	}
	if err := json.Unmarshal([]byte(out), &js); err != nil || code != cmdkit.ExitOK || len(js.BrokenGolds) != 1 || js.BrokenGolds[0].TaskID != "broken" {
		t.Fatalf("--json: exit %d, %v, %s", code, err, out)
	}

	onlyBroken := writeFile(t, "p2.jsonl", `{"task_id":"broken","sql":"SELECT 1"}`+"\n")
	code, _, errOut := run(t, "verify", "--tasks", tasks, "--predictions", onlyBroken, "--out", filepath.Join(t.TempDir(), "r4.jsonl"))
	if code != cmdkit.ExitError || !strings.Contains(errOut, "verify scored nothing: every gold failed") || !strings.Contains(errOut, "hint: check that --db/--db-dir") {
		t.Fatalf("nothing scored: exit %d\n%s", code, errOut)
	}
}

// screen names the tasks it could not screen because their gold fails.
func TestScreenNamesBrokenGolds(t *testing.T) {
	tasks := writeFile(t, "tasks.jsonl", brokenTasks)
	code, out, errOut := run(t, "screen", "--tasks", tasks)
	if code != cmdkit.ExitOK || !strings.Contains(out, "broken golds (1 tasks") || !strings.Contains(out, "  broken: ") || !strings.Contains(out, "widgets") {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	only := writeFile(t, "only.jsonl", `{"id":"broken","db":"shop","question":"q","sql":"SELECT count(*) FROM widgets"}`+"\n")
	if code, _, errOut := run(t, "screen", "--tasks", only); code != cmdkit.ExitError || !strings.Contains(errOut, "screen scored nothing") {
		t.Fatalf("every gold broken: exit %d\n%s", code, errOut)
	}
}

// serve --warm refuses to start when every gold fails, naming them.
func TestServeWarmRefusesWhenEveryGoldFails(t *testing.T) {
	only := writeFile(t, "only.jsonl", `{"id":"broken","db":"shop","question":"q","sql":"SELECT count(*) FROM widgets"}`+"\n")
	code, out, errOut := run(t, "serve", "--tasks", only, "--warm", "--addr", "127.0.0.1:0")
	if code != cmdkit.ExitError || !strings.Contains(errOut, "broken: ") || !strings.Contains(errOut, "every gold failed") || strings.Contains(out, "serving rewards") {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
}

// Without --warm, serve still refuses to start when every gold fails
// (it runs golds until one works), instead of answering gold_error to
// every trainer request.
func TestServeRefusesWhenEveryGoldFailsWithoutWarm(t *testing.T) {
	only := writeFile(t, "only.jsonl", `{"id":"broken","db":"shop","question":"q","sql":"SELECT count(*) FROM widgets"}`+"\n"+
		`{"id":"broken2","db":"shop","question":"q","sql":"SELECT nope FROM orders"}`+"\n")
	code, out, errOut := run(t, "serve", "--tasks", only, "--addr", "127.0.0.1:0")
	if code != cmdkit.ExitError || !strings.Contains(errOut, "broken2: ") || !strings.Contains(errOut, "every gold failed") || strings.Contains(out, "serving rewards") {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
}

// Each error the README promises a hint for has one, after the whole
// chain of the error.
func TestErrorsHaveHints(t *testing.T) {
	dir := t.TempDir()
	sq, dk := filepath.Join(dir, "shop.sqlite"), filepath.Join(dir, "shop.duckdb")
	for _, c := range [][]string{{"sqlite", sq}, {"duckdb", dk}} {
		if code, _, errOut := run(t, "db", "create", "shop", "--engine", c[0], "--out", c[1]); code != cmdkit.ExitOK {
			t.Fatalf("db create %s: %s", c[0], errOut)
		}
	}
	// Spider's layout one level too high: DATA/database/shop/shop.sqlite.
	data := filepath.Join(dir, "spider")
	if err := os.MkdirAll(filepath.Join(data, "database", "shop"), 0o755); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(sq)
	if err := os.WriteFile(filepath.Join(data, "database", "shop", "shop.sqlite"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	tasks := writeFile(t, "t.jsonl", `{"id":"a","db":"shop","question":"q","sql":"SELECT count(*) FROM orders"}`+"\n")
	// shop resolves to the built-in database unless named: name it.
	for _, c := range []struct {
		args      []string
		msg, hint string
	}{
		{[]string{"--tasks", filepath.Join(dir, "missing.jsonl")}, "no such file or directory", "hint: give --tasks a JSONL task file"},
		{[]string{"--tasks", dir}, "is a folder", "hint: give --tasks a JSONL task file"},
		{[]string{"--tasks", tasks, "--db", "shop=sqlite:" + filepath.Join(dir, "nope.sqlite")}, "task a: database shop: sqlite database file", "hint: check the path"},
		{[]string{"--tasks", tasks, "--db", "shop=sqlite:" + dir}, "is a folder, not a database file", "hint: name the database file inside it"},
		{[]string{"--tasks", tasks, "--db", "shop=sqlite:" + dk}, "is a duckdb database file, but its URL says sqlite:", "hint: write duckdb:" + dk},
		{[]string{"--tasks", tasks, "--db", "shop=duckdb:" + sq}, "is a sqlite database file, but its URL says duckdb:", "hint: write sqlite:" + sq},
	} {
		code, _, errOut := run(t, append([]string{"screen"}, c.args...)...)
		if code != cmdkit.ExitError || !strings.Contains(errOut, c.msg) || !strings.Contains(errOut, c.hint) {
			t.Errorf("%v: exit %d, stderr:\n%s\nwant %q and %q", c.args, code, errOut, c.msg, c.hint)
		}
	}
	other := writeFile(t, "o.jsonl", `{"id":"a","db":"concert","question":"q","sql":"SELECT 1"}`+"\n")
	if err := os.MkdirAll(filepath.Join(data, "database", "concert"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(data, "database", "concert", "concert.sqlite"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := run(t, "screen", "--tasks", other, "--db-dir", data)
	if code != cmdkit.ExitError || !strings.Contains(errOut, "hint: --db-dir is one level too high: pass --db-dir "+filepath.Join(data, "database")) {
		t.Errorf("--db-dir too high: exit %d\n%s", code, errOut)
	}
}

// demo --json is one JSON document; at k=1 eval's summary names pass@1 once.
func TestDemoJSONAndKOne(t *testing.T) {
	code, out, errOut := run(t, "demo", "--k", "1", "--json", "--out", filepath.Join(t.TempDir(), "demo"))
	var js runcmd.DemoJSON
	if err := json.Unmarshal([]byte(out), &js); code != cmdkit.ExitOK || err != nil || js.Summary.K != 1 || js.Summary.Tasks == 0 || js.HTML == "" {
		t.Fatalf("exit %d, %v\nstdout:\n%s\nstderr:\n%s", code, err, out, errOut)
	}
	code, out, errOut = run(t, "eval", "--tasks", "shop", "--split", "holdout", "--policy", "baseline", "--k", "1",
		"--out", filepath.Join(t.TempDir(), "run"))
	if code != cmdkit.ExitOK || strings.Count(out, "pass@1") != 1 || strings.Contains(out, "pass^1") {
		t.Fatalf("exit %d, want pass@1 once:\n%s\n%s", code, out, errOut)
	}
}
