package prompt_test

import (
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/catalog"
	"github.com/sqlgym/sqlgym/link"
	"github.com/sqlgym/sqlgym/prompt"
	"github.com/sqlgym/sqlgym/schema"
)

// The renderer shows the whole schema by default and the part a link
// source chooses otherwise, and always hands back the whole schema (an
// agent's tools describe every table) and the task's engine.
func TestRendererFullAndLinked(t *testing.T) {
	cat, err := catalog.New(catalog.Config{CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cat.Close() })
	ctx := t.Context()
	task := &sqlgym.Task{ID: "r", DB: "shop", Question: "How many reviews are there?", SQL: "SELECT count(*) FROM reviews"}

	eng, err := cat.Engine(ctx, "shop")
	if err != nil {
		t.Fatal(err)
	}
	sch, err := schema.Load(ctx, eng, prompt.SchemaSamples)
	if err != nil {
		t.Fatal(err)
	}
	want, err := prompt.Default().Render(prompt.InputFor(task, schema.Render(sch, schema.Options{}), eng.Dialect()))
	if err != nil {
		t.Fatal(err)
	}

	full := prompt.NewRenderer(cat, prompt.Default(), nil)
	for range 2 { // the second from the cached schema
		rd, err := full.Open(ctx, task)
		if err != nil {
			t.Fatal(err)
		}
		if rd.Prompt.Hash != want.Hash || rd.Engine == nil || len(rd.Schema.Tables) != len(sch.Tables) {
			t.Fatalf("full: hash %s (want %s), %d tables", rd.Prompt.Hash, want.Hash, len(rd.Schema.Tables))
		}
	}
	if p, err := prompt.NewRenderer(cat, prompt.Default(), link.NewSource(link.ModeFull, link.Options{}, 3)).Render(ctx, task); err != nil || p.Hash != want.Hash {
		t.Errorf("a full link source: hash %s, %v; want the whole schema's %s", p.Hash, err, want.Hash)
	}

	linked := prompt.NewRenderer(cat, prompt.Default(), link.NewSource(link.ModeOracle, link.Options{}, 3))
	rd, err := linked.Open(ctx, task)
	if err != nil {
		t.Fatal(err)
	}
	user := rd.Prompt.Messages[len(rd.Prompt.Messages)-1].Content
	if rd.Prompt.Hash == want.Hash || !strings.Contains(user, "CREATE TABLE reviews") || strings.Contains(user, "CREATE TABLE orders") {
		t.Errorf("oracle schema prompt shows other tables or none:\n%s", user)
	}
	if len(rd.Schema.Tables) != len(sch.Tables) {
		t.Errorf("linked open: %d tables handed back, want the whole schema's %d", len(rd.Schema.Tables), len(sch.Tables))
	}

	if _, err := full.Render(ctx, &sqlgym.Task{ID: "x", DB: "nowhere"}); err == nil || !strings.Contains(err.Error(), "database nowhere") {
		t.Errorf("unknown database: %v", err)
	}
}
