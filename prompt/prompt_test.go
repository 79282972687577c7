package prompt

import (
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym"
)

func TestDefaultRendersEveryPart(t *testing.T) {
	task := &sqlgym.Task{ID: "t1", DB: "shop", Question: "How many orders were delivered?", Evidence: "delivered means status = 'delivered'"}
	ddl := "CREATE TABLE orders (\n  order_id INTEGER, -- e.g. 1, 2\n  status VARCHAR(20) -- e.g. 'delivered'\n);\n"
	p, err := Default().Render(InputFor(task, ddl, sqlgym.DialectSQLite))
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Messages) != 2 || p.Messages[0].Role != "system" || p.Messages[1].Role != "user" {
		t.Fatalf("messages %+v", p.Messages)
	}
	u := p.Messages[1].Content
	for _, want := range []string{"CREATE TABLE orders", "-- e.g. 'delivered'", "External knowledge: delivered means", "Question: How many orders were delivered?", "```sql", "SQLite"} {
		if !strings.Contains(u, want) {
			t.Errorf("user message lacks %q:\n%s", want, u)
		}
	}
	// Same input, same hash; another question, another hash.
	p2, _ := Default().Render(InputFor(task, ddl, sqlgym.DialectSQLite))
	task2 := *task
	task2.Question = "How many orders?"
	p3, _ := Default().Render(InputFor(&task2, ddl, sqlgym.DialectSQLite))
	if p.Hash != p2.Hash || p.Hash == p3.Hash || len(p.Hash) != 16 {
		t.Fatalf("hashes %s %s %s", p.Hash, p2.Hash, p3.Hash)
	}
	// No evidence, no evidence line.
	task2.Evidence = ""
	p4, _ := Default().Render(InputFor(&task2, ddl, sqlgym.DialectSQLite))
	if strings.Contains(p4.Messages[1].Content, "External knowledge") {
		t.Fatalf("empty evidence rendered:\n%s", p4.Messages[1].Content)
	}
}

func TestCustomTemplate(t *testing.T) {
	tmpl, err := Parse("mine", `{{define "user"}}Q: {{.Question}} on {{.DB}}{{end}}`)
	if err != nil {
		t.Fatal(err)
	}
	p, err := tmpl.Render(Input{Question: "why?", DB: "shop"})
	if err != nil || len(p.Messages) != 1 || p.Messages[0].Content != "Q: why? on shop" {
		t.Fatalf("%+v %v", p, err)
	}
	if tmpl.Hash() == Default().Hash() {
		t.Fatal("two templates share a hash")
	}
	if _, err := Parse("bad", `no blocks here`); err == nil || !strings.Contains(err.Error(), `no "user" block`) {
		t.Fatalf("a template without a user block: %v", err)
	}
	if _, err := Parse("bad", `{{define "user"}}{{.Nope}}{{end}}`); err != nil {
		t.Fatal(err)
	} else if _, err := (mustParse(t, `{{define "user"}}{{.Nope}}{{end}}`)).Render(Input{}); err == nil {
		t.Fatal("a template naming an unknown field rendered")
	}
}

func mustParse(t *testing.T, s string) *Template {
	tm, err := Parse("x", s)
	if err != nil {
		t.Fatal(err)
	}
	return tm
}

// TestLoadMissingKeepsCause: the user-facing error for a missing template
// still is fs.ErrNotExist underneath, and still carries its hint.
func TestLoadMissingKeepsCause(t *testing.T) {
	_, err := Load(filepath.Join(t.TempDir(), "none.tmpl"))
	if !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Load of a missing file: %v, want an error wrapping fs.ErrNotExist", err)
	}
	var ue *sqlgym.UserError
	if !errors.As(err, &ue) || ue.Hint == "" {
		t.Fatalf("Load of a missing file: %v, want a UserError with a hint", err)
	}
}
