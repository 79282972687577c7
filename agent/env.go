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
	"github.com/sqlgym/sqlgym/verify"
)

// Databases gives the agent a task database's sandboxed engine: the one
// the verifier runs answers on. *catalog.Catalog implements it.
type Databases interface {
	Engine(ctx context.Context, name string) (sqlgym.Engine, error)
}

// Env starts episodes: it holds what they share, the verifier, the
// databases, the prompt template and each database's schema, loaded once.
// Safe for concurrent use.
type Env struct {
	cfg  Config
	v    *verify.Verifier
	dbs  Databases
	tmpl *prompt.Template
	// src, when set, chooses the opening prompt's schema (--schema); the
	// tools still list and describe every table.
	src *link.Source

	schemas memo.Map[string, *schemaEntry]
}

type schemaEntry struct {
	schema *sqlgym.Schema
	text   string
}

// NewEnv builds an environment. tmpl nil means the protocol's built-in
// template (DefaultTemplate).
func NewEnv(v *verify.Verifier, dbs Databases, tmpl *prompt.Template, cfg Config) (*Env, error) {
	cfg, err := cfg.WithDefaults()
	if err != nil {
		return nil, err
	}
	if v == nil || dbs == nil {
		return nil, fmt.Errorf("agent: a verifier and databases are required")
	}
	if tmpl == nil {
		tmpl = DefaultTemplate(cfg.Protocol)
	}
	return &Env{cfg: cfg, v: v, dbs: dbs, tmpl: tmpl}, nil
}

// SetSchema makes opening prompts show the schema src chooses for each
// task (nil: every table). Call it before the first episode starts.
func (e *Env) SetSchema(src *link.Source) { e.src = src }

// Config is the environment's settings, defaults filled in.
func (e *Env) Config() Config { return e.cfg }

// Template is the template opening messages are rendered with.
func (e *Env) Template() *prompt.Template { return e.tmpl }

// Verifier is the verifier episodes are judged by.
func (e *Env) Verifier() *verify.Verifier { return e.v }

// schemaOf loads a database's schema once, with the sample values prompts
// show. A failure of the database itself is not kept, so the next episode
// tries again.
func (e *Env) schemaOf(ctx context.Context, db string, eng sqlgym.Engine) (*schemaEntry, error) {
	se, err := e.schemas.Do(ctx, db, func() (*schemaEntry, error) {
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

// Start begins an episode of a task. Sample numbers the episode among
// those of the same task (an eval's sample index). An error means the
// episode could not begin: the database or its schema is unavailable.
func (e *Env) Start(ctx context.Context, task *sqlgym.Task, sample int) (*Episode, error) {
	eng, err := e.dbs.Engine(ctx, task.DB)
	if err != nil {
		return nil, fmt.Errorf("database %s: %w", task.DB, err)
	}
	full, text, err := e.opening(ctx, task, eng)
	if err != nil {
		return nil, err
	}
	pr, err := e.tmpl.Render(prompt.InputFor(task, text, eng.Dialect()))
	if err != nil {
		return nil, err
	}
	ep := &Episode{env: e, cfg: e.cfg, task: task, sample: sample, eng: eng, schema: full, promptHash: pr.Hash}
	ep.msgs = append(ep.msgs, pr.Messages...)
	ep.opening = len(ep.msgs)
	return ep, nil
}

// opening is a task's whole schema (for the tools) and the schema text its
// opening prompt shows.
func (e *Env) opening(ctx context.Context, task *sqlgym.Task, eng sqlgym.Engine) (*sqlgym.Schema, string, error) {
	if e.src != nil && e.src.Mode() != link.ModeFull {
		text, db, err := e.src.Text(ctx, eng, task)
		if err != nil {
			return nil, "", fmt.Errorf("schema of database %s: %w", task.DB, err)
		}
		return db.Schema, text, nil
	}
	se, err := e.schemaOf(ctx, task.DB, eng)
	if err != nil {
		return nil, "", err
	}
	return se.schema, se.text, nil
}

// Tools is the tool list a model is offered under the environment's
// protocol: the four tools, or none for the text protocol.
func (e *Env) Tools() []model.Tool {
	if e.cfg.Protocol == ProtocolTools {
		return Tools()
	}
	return nil
}
