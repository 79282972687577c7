package prompt

import (
	"context"
	"fmt"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/internal/memo"
	"github.com/sqlgym/sqlgym/link"
	"github.com/sqlgym/sqlgym/model"
	"github.com/sqlgym/sqlgym/schema"
)

// Engines opens a task's database by name (*catalog.Catalog does).
type Engines interface {
	Engine(ctx context.Context, name string) (sqlgym.Engine, error)
}

// Renderer renders "this task's prompt on this schema": a template on the
// full schema of the task's database, or on the part a link source
// chooses for the task (linked, oracle). Evaluation, the training exports
// and the agent's openings all render through one, so the text a model is
// trained on is the text it is scored on by construction. Each
// database's schema is loaded once. Safe for concurrent use.
type Renderer struct {
	dbs  Engines
	tmpl *Template
	// src chooses a task's schema; nil when every table is shown.
	src     *link.Source
	schemas memo.Map[string, *fullSchema]
}

// fullSchema is a database's whole schema, with the sample values
// prompts show, and its text.
type fullSchema struct {
	schema *sqlgym.Schema
	text   string
}

// NewRenderer renders with tmpl on the schema src chooses for each task
// (nil or link.ModeFull: every table).
func NewRenderer(dbs Engines, tmpl *Template, src *link.Source) *Renderer {
	if src != nil && src.Mode() == link.ModeFull {
		src = nil
	}
	return &Renderer{dbs: dbs, tmpl: tmpl, src: src}
}

// Template is the template the renderer renders with.
func (r *Renderer) Template() *Template { return r.tmpl }

// Rendered is a task's prompt with what it was rendered on: the task
// database's engine and its whole schema (an agent's tools describe every
// table, whatever the prompt shows).
type Rendered struct {
	Prompt model.Prompt
	Schema *sqlgym.Schema
	Engine sqlgym.Engine
}

// Render renders a task's prompt.
func (r *Renderer) Render(ctx context.Context, t *sqlgym.Task) (model.Prompt, error) {
	rd, err := r.Open(ctx, t)
	return rd.Prompt, err
}

// Open renders a task's prompt and returns it with its engine and the
// database's whole schema. An error means the database or its schema is
// unavailable, or the template failed.
func (r *Renderer) Open(ctx context.Context, t *sqlgym.Task) (Rendered, error) {
	eng, err := r.dbs.Engine(ctx, t.DB)
	if err != nil {
		return Rendered{}, fmt.Errorf("database %s: %w", t.DB, err)
	}
	var text string
	var whole *sqlgym.Schema
	if r.src != nil {
		var db *link.Database
		text, db, err = r.src.Text(ctx, eng, t)
		if err != nil {
			return Rendered{}, fmt.Errorf("schema of database %s: %w", t.DB, err)
		}
		whole = db.Schema
	} else {
		fs, err := r.full(ctx, t.DB, eng)
		if err != nil {
			return Rendered{}, err
		}
		text, whole = fs.text, fs.schema
	}
	p, err := r.tmpl.Render(InputFor(t, text, eng.Dialect()))
	if err != nil {
		return Rendered{}, fmt.Errorf("task %s: %w", t.ID, err)
	}
	return Rendered{Prompt: p, Schema: whole, Engine: eng}, nil
}

// full loads a database's whole schema once for every task that asks
// meanwhile. An infrastructure failure is not kept, so a later task tries
// again; the load does not end with one caller's context, since others
// wait on it.
func (r *Renderer) full(ctx context.Context, db string, eng sqlgym.Engine) (*fullSchema, error) {
	fs, err := r.schemas.Do(ctx, db, func() (*fullSchema, error) {
		s, err := schema.Load(context.WithoutCancel(ctx), eng, SchemaSamples)
		if err != nil {
			return nil, err
		}
		return &fullSchema{schema: s, text: schema.Render(s, schema.Options{})}, nil
	}, func(_ *fullSchema, err error) bool { return !sqlgym.IsInfra(err) })
	if err != nil {
		return nil, fmt.Errorf("schema of database %s: %w", db, err)
	}
	return fs, nil
}

// SchemaSamples is how many distinct real values per column a prompt's
// schema shows.
const SchemaSamples = 3
