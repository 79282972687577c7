package root

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/dataset"
	"github.com/sqlgym/sqlgym/engine/sqlite"
	"github.com/sqlgym/sqlgym/link"

	"github.com/sqlgym/sqlgym/internal/cmd/cmdkit"
	datacmd "github.com/sqlgym/sqlgym/internal/cmd/data"
)

func TestLinkCommandJSON(t *testing.T) {
	t.Setenv("SQLGYM_CACHE", t.TempDir())
	tasks := filepath.Join(t.TempDir(), "tasks.jsonl")
	f, _ := os.Create(tasks)
	sqlgym.WriteTasks(f, []sqlgym.Task{
		{ID: "a", DB: "shop", Question: "How many products are in the category named 'Electronics'?",
			SQL: "SELECT count(*) FROM products AS p JOIN categories AS c ON p.category_id = c.category_id WHERE c.name = 'Electronics'"},
		{ID: "b", DB: "shop", Question: "How many reviews are there?", SQL: "SELECT count(*) FROM reviews"},
	})
	f.Close()
	code, stdout, stderr := run(t, "link", "--tasks", tasks, "--json")
	if code != cmdkit.ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var ev link.Evaluation
	if err := json.Unmarshal([]byte(stdout), &ev); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	if ev.Summary.Tasks != 2 || ev.Summary.AllTables != 1 || len(ev.Tasks) != 2 || ev.Mode != link.ModeLinked {
		t.Fatalf("summary %+v", ev.Summary)
	}
	// The value 'Electronics' is found in categories.name, and said so.
	var found bool
	for _, tb := range ev.Tasks[0].Selection.Tables {
		for _, r := range tb.Why {
			if r.Kind == "value" && r.Text == "Electronics" && r.Column == "categories.name" {
				found = true
			}
		}
	}
	if !found {
		t.Fatalf("no value match for Electronics: %s", stdout)
	}
	if g := ev.Tasks[0].Score.GoldTables; len(g) != 2 {
		t.Errorf("gold tables %v", g)
	}

	// The text form names the value match, and --report keeps the summary.
	code, stdout, _ = run(t, "link", "--tasks", tasks, "--task", "a")
	if code != cmdkit.ExitOK || !strings.Contains(stdout, "value 'Electronics' in categories.name") || !strings.Contains(stdout, "every gold table kept  100.0%") {
		t.Fatalf("exit %d:\n%s", code, stdout)
	}
	// The numbers' terms are defined where they are printed.
	code, stdout, _ = run(t, "link", "--tasks", tasks, "--report")
	for _, term := range []string{"terms: a gold table", "table recall           mean share", "precision: mean share",
		"marked: those the linker matched", "MISSED gold tables", "docs/link.md"} {
		if code != cmdkit.ExitOK || !strings.Contains(stdout, term) {
			t.Errorf("link --report: exit %d, output lacks %q:\n%s", code, term, stdout)
		}
	}
	if code, _, stderr := run(t, "link", "--tasks", tasks, "--task", "zz"); code != cmdkit.ExitError || !strings.Contains(stderr, "no task zz") || !strings.Contains(stderr, "hint:") {
		t.Fatalf("unknown task: exit %d %s", code, stderr)
	}
	if code, _, _ := run(t, "link", "--tasks", tasks, "--schema", "everything"); code != cmdkit.ExitUsage {
		t.Fatalf("--schema everything: exit %d", code)
	}
	code, stdout, _ = run(t, "link", "--tasks", tasks, "--schema", "oracle")
	if code != cmdkit.ExitOK || !strings.Contains(stdout, "DIAGNOSTIC") {
		t.Fatalf("oracle is not marked:\n%s", stdout)
	}
}

func TestOracleSchemaRefusedByExportAndServe(t *testing.T) {
	t.Setenv("SQLGYM_CACHE", t.TempDir())
	out := filepath.Join(t.TempDir(), "x.jsonl")
	code, _, stderr := run(t, "export", "--tasks", "shop", "--format", "trl", "--out", out, "--schema", "oracle")
	if code != cmdkit.ExitError || !strings.Contains(stderr, "export refuses --schema oracle") || !strings.Contains(stderr, "hint:") {
		t.Fatalf("export: exit %d %s", code, stderr)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("export wrote a file on the oracle schema")
	}
	code, _, stderr = run(t, "serve", "--tasks", "shop", "--addr", "127.0.0.1:0", "--schema", "oracle")
	if code != cmdkit.ExitError || !strings.Contains(stderr, "serve refuses --schema oracle") {
		t.Fatalf("serve: exit %d %s", code, stderr)
	}
	// The library refuses too, whoever calls it.
	if _, err := dataset.RenderSchema(t.Context(), nil, nil, link.NewSource(link.ModeOracle, link.Options{}, 3), nil); err != dataset.ErrOracle {
		t.Fatalf("RenderSchema oracle: %v", err)
	}
}

func TestExportLinkedShowsFewerTables(t *testing.T) {
	t.Setenv("SQLGYM_CACHE", t.TempDir())
	dir := t.TempDir()
	full, linked := filepath.Join(dir, "full.jsonl"), filepath.Join(dir, "linked.jsonl")
	for _, c := range [][]string{{"--schema", "full", "--out", full}, {"--schema", "linked", "--out", linked}} {
		if code, _, stderr := run(t, append([]string{"export", "--tasks", "shop", "--format", "trl", "--include-holdout"}, c...)...); code != cmdkit.ExitOK {
			t.Fatalf("%v: exit %d %s", c, code, stderr)
		}
	}
	first := func(path string) dataset.TRLRow {
		b, _ := os.ReadFile(path)
		var row dataset.TRLRow
		if err := json.Unmarshal([]byte(strings.SplitN(string(b), "\n", 2)[0]), &row); err != nil {
			t.Fatal(err)
		}
		return row
	}
	f, l := first(full), first(linked)
	nf, nl := strings.Count(f.Prompt[1].Content, "CREATE TABLE"), strings.Count(l.Prompt[1].Content, "CREATE TABLE")
	if nf != 8 || nl >= nf || nl < 1 || f.PromptHash == l.PromptHash {
		t.Fatalf("full shows %d tables, linked %d", nf, nl)
	}
}

func TestLinkHelpShowsExamples(t *testing.T) {
	for _, cmd := range []string{"link", "link merge"} {
		code, out, _ := run(t, append(strings.Fields(cmd), "--help")...)
		if code != cmdkit.ExitOK || !strings.Contains(out, "Examples:") {
			t.Errorf("%s --help: exit %d:\n%s", cmd, code, out)
		}
	}
}

func TestLinkMergeCommand(t *testing.T) {
	dir := t.TempDir()
	mk := func(name string, stmts ...string) string {
		p := filepath.Join(dir, name+".sqlite")
		if err := sqlite.Create(t.Context(), p, stmts); err != nil {
			t.Fatal(err)
		}
		return p
	}
	a := mk("zoo", `CREATE TABLE animal (animal_id INTEGER PRIMARY KEY, name TEXT, keeper_id INTEGER REFERENCES keeper (keeper_id))`,
		`CREATE TABLE keeper (keeper_id INTEGER PRIMARY KEY, name TEXT)`,
		`INSERT INTO keeper VALUES (1, 'Ada')`, `INSERT INTO animal VALUES (1, 'Zebra', 1), (2, 'Lion', 1)`)
	b := mk("farm", `CREATE TABLE animal (id INTEGER PRIMARY KEY, kind TEXT)`, `INSERT INTO animal VALUES (1, 'cow')`)
	tasks := filepath.Join(dir, "tasks.jsonl")
	f, _ := os.Create(tasks)
	sqlgym.WriteTasks(f, []sqlgym.Task{
		{ID: "z", DB: "zoo", Question: "Who keeps the Zebra?", SQL: "SELECT k.name FROM animal AS a JOIN keeper AS k ON a.keeper_id = k.keeper_id WHERE a.name = 'Zebra'"},
		{ID: "f", DB: "farm", Question: "How many animals are on the farm?", SQL: "SELECT count(*) FROM animal"},
	})
	f.Close()
	wide, wideTasks := filepath.Join(dir, "wide.sqlite"), filepath.Join(dir, "wide.jsonl")
	code, stdout, stderr := run(t, "link", "merge", "--tasks", tasks, "--db", "zoo=sqlite:"+a, "--db", "farm=sqlite:"+b,
		"--out", wide, "--tasks-out", wideTasks, "--name", "wide", "--json")
	if code != cmdkit.ExitOK {
		t.Fatalf("merge: exit %d %s", code, stderr)
	}
	var res datacmd.LinkMergeResult
	if err := json.Unmarshal([]byte(stdout), &res); err != nil || res.Tables != 3 || res.Databases != 2 || res.Tasks != 2 {
		t.Fatalf("%s %v", stdout, err)
	}
	merged, err := sqlgym.ReadTasks(wideTasks)
	if err != nil {
		t.Fatal(err)
	}
	if merged[0].DB != "wide" || merged[0].SQL != "SELECT k.name FROM zoo__animal AS a JOIN zoo__keeper AS k ON a.keeper_id = k.keeper_id WHERE a.name = 'Zebra'" ||
		merged[1].SQL != "SELECT count(*) FROM farm__animal" {
		t.Fatalf("merged tasks %+v", merged)
	}
	// The merged golds run, and the linker finds 'Zebra' in zoo__animal.name.
	code, stdout, stderr = run(t, "link", "--tasks", wideTasks, "--db", "wide=sqlite:"+wide, "--task", "z")
	if code != cmdkit.ExitOK || !strings.Contains(stdout, "value 'Zebra' in zoo__animal.name") || !strings.Contains(stdout, "keep zoo__keeper") {
		t.Fatalf("link on the merged database: exit %d %s\n%s", code, stderr, stdout)
	}
	if code, _, stderr := run(t, "link", "merge", "--tasks", tasks, "--db", "zoo=sqlite:"+a, "--db", "farm=sqlite:"+b,
		"--out", wide, "--tasks-out", wideTasks); code != cmdkit.ExitError || !strings.Contains(stderr, "hint:") {
		t.Fatalf("merge onto an existing file: exit %d %s", code, stderr)
	}
}
