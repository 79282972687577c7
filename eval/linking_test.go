package eval_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/catalog"
	"github.com/sqlgym/sqlgym/eval"
	"github.com/sqlgym/sqlgym/link"
	"github.com/sqlgym/sqlgym/model"
	"github.com/sqlgym/sqlgym/rundir"
)

// goldPolicy answers each task with its gold and keeps the prompts it saw.
type goldPolicy struct {
	golds   map[string]string
	mu      sync.Mutex
	prompts map[string]string
}

func (p *goldPolicy) Name() string { return "gold" }

func (p *goldPolicy) Complete(_ context.Context, pr model.Prompt, k int) ([]model.Completion, error) {
	p.mu.Lock()
	p.prompts[pr.TaskID] = pr.Messages[len(pr.Messages)-1].Content
	p.mu.Unlock()
	out := make([]model.Completion, k)
	for i := range out {
		out[i] = model.Completion{Text: "```sql\n" + p.golds[pr.TaskID] + "\n```", FinishReason: "stop"}
	}
	return out, nil
}

func linkingConfig(t *testing.T, out string, src *link.Source) (eval.Config, *goldPolicy) {
	t.Helper()
	cat, err := catalog.New(catalog.Config{CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cat.Close() })
	tasks := []sqlgym.Task{
		{ID: "a", DB: "shop", Question: "How many products are in the category named 'Audio'?",
			SQL: "SELECT count(*) FROM products p JOIN categories c ON p.category_id = c.category_id WHERE c.name = 'Audio'"},
		{ID: "b", DB: "shop", Question: "How many reviews are there?", SQL: "SELECT count(*) FROM reviews"},
	}
	p := &goldPolicy{golds: map[string]string{}, prompts: map[string]string{}}
	for _, tk := range tasks {
		p.golds[tk.ID] = tk.SQL
	}
	return eval.Config{Out: out, Tasks: tasks, TasksFile: "tasks.jsonl", TasksHash: "h", Split: "all", DBs: cat,
		Policy: p, PolicyKind: "gold", Decoding: rundir.Decoding{K: 1}, Schema: src, Concurrency: 1}, p
}

func TestLinkedSchemaRunRecordsItsChoice(t *testing.T) {
	out := t.TempDir() + "/run"
	cfg, p := linkingConfig(t, out, link.NewSource(link.ModeLinked, link.Options{}, 3))
	res, err := eval.Run(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	m := res.Manifest
	if m.Schema != "linked" || m.Linking == nil || m.Linking.AllTables != 1 || m.Linking.TablesTotal != 8 || m.Linking.TablesKept >= 8 {
		t.Fatalf("manifest schema %q linking %+v", m.Schema, m.Linking)
	}
	if n := strings.Count(p.prompts["a"], "CREATE TABLE"); n < 2 || n >= 8 || !strings.Contains(p.prompts["a"], "CREATE TABLE categories") {
		t.Fatalf("linked prompt shows %d tables:\n%s", n, p.prompts["a"])
	}
	if res.Summary.Outcomes["correct"] != 2 {
		t.Fatalf("outcomes %v", res.Summary.Outcomes)
	}

	// The same folder with the full schema is another configuration.
	full, _ := linkingConfig(t, out, nil)
	_, err = eval.Run(t.Context(), full)
	if err == nil || !strings.Contains(err.Error(), "--schema") || !strings.Contains(err.Error(), "linked here, full now") {
		t.Fatalf("full on a linked folder: %v", err)
	}
}

func TestFullSchemaKeepsTheHashOfRunsBeforeLinking(t *testing.T) {
	m := rundir.Manifest{TasksHash: "h", Policy: "p", Decoding: rundir.Decoding{K: 1}}
	before := eval.ConfigHash(&m)
	m.Schema = "full"
	if eval.ConfigHash(&m) != before {
		t.Fatal("--schema full changed the configuration hash of an old run")
	}
	m.Schema = "linked"
	linked := eval.ConfigHash(&m)
	m.Schema = "linked,no_values"
	if linked == before || eval.ConfigHash(&m) == linked {
		t.Fatal("the schema setting is not in the configuration hash")
	}
}
