package agent

import (
	"context"
	"fmt"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/internal/memo"
	"github.com/sqlgym/sqlgym/link"
	"github.com/sqlgym/sqlgym/model"
	"github.com/sqlgym/sqlgym/prompt"
	"github.com/sqlgym/sqlgym/schema"
)

// Opener renders the opening messages of episodes: the protocol's
// template on the schema text an episode shows. Env starts every episode
// with one, and `sqlgym export --agent` writes a dataset's prompts with
// another, so a trainer's prompt is exactly what the episode API sends.
// Safe for concurrent use.
type Opener struct {
	protocol Protocol
	dbs      Databases
	tmpl     *prompt.Template
	// src, when set, chooses the opening prompt's schema (--schema); the
	// tools still list and describe every table.
	src *link.Source

	schemas memo.Map[string, *schemaEntry]
}

type schemaEntry struct {
	schema *sqlgym.Schema
	text   string
}

// Opening is what an episode starts from.
type Opening struct {
	// Messages are the system and user messages sent to the model first.
	Messages []model.Message
	// Hash identifies the messages' text.
	Hash string
	// Tools are offered with every request: the four tools, or none for
	// the text protocol.
	Tools []model.Tool
	// Schema is the task database's whole schema (the tools see it all);
	// Engine runs the episode's queries.
	Schema *sqlgym.Schema
	Engine sqlgym.Engine
}

// NewOpener renders openings of protocol p with tmpl (nil: the protocol's
// built-in template, DefaultTemplate).
func NewOpener(dbs Databases, tmpl *prompt.Template, p Protocol) *Opener {
	if tmpl == nil {
		tmpl = DefaultTemplate(p)
	}
	return &Opener{protocol: p, dbs: dbs, tmpl: tmpl}
}

// SetSchema makes openings show the schema src chooses for each task
// (nil: every table). Call it before the first opening.
func (o *Opener) SetSchema(src *link.Source) { o.src = src }

// Template is the template openings are rendered with.
func (o *Opener) Template() *prompt.Template { return o.tmpl }

// Protocol is the protocol the openings instruct.
func (o *Opener) Protocol() Protocol { return o.protocol }

// Tools is the tool list of the opener's protocol.
func (o *Opener) Tools() []model.Tool {
	if o.protocol == ProtocolTools {
		return Tools()
	}
	return nil
}

// Open renders a task's opening. An error means the database or its
// schema is unavailable, or the template failed.
func (o *Opener) Open(ctx context.Context, task *sqlgym.Task) (Opening, error) {
	eng, err := o.dbs.Engine(ctx, task.DB)
	if err != nil {
		return Opening{}, fmt.Errorf("database %s: %w", task.DB, err)
	}
	full, text, err := o.schemaText(ctx, task, eng)
	if err != nil {
		return Opening{}, err
	}
	pr, err := o.tmpl.Render(prompt.InputFor(task, text, eng.Dialect()))
	if err != nil {
		return Opening{}, err
	}
	return Opening{Messages: pr.Messages, Hash: pr.Hash, Tools: o.Tools(), Schema: full, Engine: eng}, nil
}

// schemaText is a task's whole schema (for the tools) and the schema text
// its opening shows.
func (o *Opener) schemaText(ctx context.Context, task *sqlgym.Task, eng sqlgym.Engine) (*sqlgym.Schema, string, error) {
	if o.src != nil && o.src.Mode() != link.ModeFull {
		text, db, err := o.src.Text(ctx, eng, task)
		if err != nil {
			return nil, "", fmt.Errorf("schema of database %s: %w", task.DB, err)
		}
		return db.Schema, text, nil
	}
	se, err := o.schemaOf(ctx, task.DB, eng)
	if err != nil {
		return nil, "", err
	}
	return se.schema, se.text, nil
}

// schemaOf loads a database's schema once, with the sample values prompts
// show. A failure of the database itself is not kept, so the next episode
// tries again.
func (o *Opener) schemaOf(ctx context.Context, db string, eng sqlgym.Engine) (*schemaEntry, error) {
	se, err := o.schemas.Do(ctx, db, func() (*schemaEntry, error) {
		sch, err := schema.Load(context.WithoutCancel(ctx), eng, prompt.SchemaSamples)
		if err != nil {
			return nil, err
		}
		return &schemaEntry{schema: sch, text: schema.Render(sch, schema.Options{})}, nil
	}, func(_ *schemaEntry, err error) bool { return err == nil })
	if err != nil {
		return nil, fmt.Errorf("schema of database %s: %w", db, err)
	}
	return se, nil
}
