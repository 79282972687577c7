package prompt

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"text/template"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/model"
)

//go:embed default.tmpl
var defaultText string

// Template renders tasks into chat messages.
type Template struct {
	tmpl *template.Template
	hash string
	name string
}

// Input is what a template sees.
type Input struct {
	TaskID   string
	Question string
	Evidence string
	// Schema is the rendered DDL (schema.Render).
	Schema  string
	Dialect string
	DB      string
}

// Default is the built-in template: the schema as DDL with foreign keys
// and sample values, the evidence, the question and the instruction to
// answer with one query in a ```sql block.
func Default() *Template {
	t, err := Parse("default", defaultText)
	if err != nil {
		panic(err) // the embedded template is tested
	}
	return t
}

// Load reads a template file.
func Load(path string) (*Template, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, sqlgym.Userf("give a text/template file with {{define \"user\"}}...{{end}} (and optionally \"system\")", "read prompt template: %w", err)
	}
	return Parse(path, string(b))
}

// Parse builds a template from text, which must define "user" and may
// define "system".
func Parse(name, text string) (*Template, error) {
	t, err := template.New(name).Option("missingkey=error").Parse(text)
	if err != nil {
		return nil, sqlgym.Userf("see prompt/default.tmpl for the form", "prompt template %s: %w", name, err)
	}
	if t.Lookup("user") == nil {
		return nil, sqlgym.Userf(`wrap the user message in {{define "user"}}...{{end}}`, "prompt template %s has no \"user\" block", name)
	}
	sum := sha256.Sum256([]byte(text))
	return &Template{tmpl: t, hash: hex.EncodeToString(sum[:8]), name: name}, nil
}

// Hash identifies the template's text.
func (t *Template) Hash() string { return t.hash }

// Render renders one task. The prompt's Hash covers the rendered messages,
// so two samples with the same hash saw exactly the same text.
func (t *Template) Render(in Input) (model.Prompt, error) {
	var msgs []sqlgym.Message
	if t.tmpl.Lookup("system") != nil {
		s, err := t.exec("system", in)
		if err != nil {
			return model.Prompt{}, err
		}
		if s = strings.TrimSpace(s); s != "" {
			msgs = append(msgs, sqlgym.Message{Role: model.RoleSystem, Content: s})
		}
	}
	u, err := t.exec("user", in)
	if err != nil {
		return model.Prompt{}, err
	}
	msgs = append(msgs, sqlgym.Message{Role: model.RoleUser, Content: strings.TrimSpace(u)})
	return model.Prompt{TaskID: in.TaskID, Messages: msgs, Hash: HashMessages(msgs)}, nil
}

func (t *Template) exec(block string, in Input) (string, error) {
	var b bytes.Buffer
	if err := t.tmpl.ExecuteTemplate(&b, block, in); err != nil {
		return "", fmt.Errorf("render prompt %s: %w", block, err)
	}
	return b.String(), nil
}

// HashMessages is a short digest of chat messages.
func HashMessages(msgs []sqlgym.Message) string {
	b, _ := json.Marshal(msgs)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8])
}

// InputFor builds a template's input for a task on a database of the given
// dialect, whose schema is already rendered.
func InputFor(t *sqlgym.Task, schemaText string, d sqlgym.Dialect) Input {
	return Input{TaskID: t.ID, Question: t.Question, Evidence: t.Evidence, Schema: strings.TrimRight(schemaText, "\n"), Dialect: DialectName(d), DB: t.DB}
}

// DialectName is how prompts name a dialect.
func DialectName(d sqlgym.Dialect) string {
	switch d {
	case sqlgym.DialectSQLite:
		return "SQLite"
	case sqlgym.DialectPostgres:
		return "PostgreSQL"
	case sqlgym.DialectDuckDB:
		return "DuckDB"
	case sqlgym.DialectMySQL:
		return "MySQL"
	}
	return string(d)
}
