package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/dataset"
	"github.com/sqlgym/sqlgym/link"
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
	if code != ExitOK {
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
	if code != ExitOK || !strings.Contains(stdout, "value 'Electronics' in categories.name") || !strings.Contains(stdout, "every gold table kept  100.0%") {
		t.Fatalf("exit %d:\n%s", code, stdout)
	}
	if code, _, stderr := run(t, "link", "--tasks", tasks, "--task", "zz"); code != ExitError || !strings.Contains(stderr, "no task zz") || !strings.Contains(stderr, "hint:") {
		t.Fatalf("unknown task: exit %d %s", code, stderr)
	}
	if code, _, _ := run(t, "link", "--tasks", tasks, "--schema", "everything"); code != ExitUsage {
		t.Fatalf("--schema everything: exit %d", code)
	}
	code, stdout, _ = run(t, "link", "--tasks", tasks, "--schema", "oracle")
	if code != ExitOK || !strings.Contains(stdout, "DIAGNOSTIC") {
		t.Fatalf("oracle is not marked:\n%s", stdout)
	}
}

func TestOracleSchemaRefusedByExportAndServe(t *testing.T) {
	t.Setenv("SQLGYM_CACHE", t.TempDir())
	out := filepath.Join(t.TempDir(), "x.jsonl")
	code, _, stderr := run(t, "export", "--tasks", "shop", "--format", "trl", "--out", out, "--schema", "oracle")
	if code != ExitError || !strings.Contains(stderr, "export refuses --schema oracle") || !strings.Contains(stderr, "hint:") {
		t.Fatalf("export: exit %d %s", code, stderr)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("export wrote a file on the oracle schema")
	}
	code, _, stderr = run(t, "serve", "--tasks", "shop", "--addr", "127.0.0.1:0", "--schema", "oracle")
	if code != ExitError || !strings.Contains(stderr, "serve refuses --schema oracle") {
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
		if code, _, stderr := run(t, append([]string{"export", "--tasks", "shop", "--format", "trl", "--include-holdout"}, c...)...); code != ExitOK {
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
		if code != ExitOK || !strings.Contains(out, "Examples:") {
			t.Errorf("%s --help: exit %d:\n%s", cmd, code, out)
		}
	}
}
