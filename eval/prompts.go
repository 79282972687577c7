package eval

import (
	"context"
	"fmt"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/internal/memo"
	"github.com/sqlgym/sqlgym/link"
	"github.com/sqlgym/sqlgym/model"
	"github.com/sqlgym/sqlgym/prompt"
)

// prompts renders tasks, loading each database's schema once.
type prompts struct {
	dbs  Databases
	tmpl *prompt.Template
	// src, when set, chooses each task's schema (--schema linked|oracle).
	src  *link.Source
	dbsc memo.Map[string, schemaEntry]
	// hint, when set, gives the text appended to a task's user message
	// (--hint shape).
	hint func(ctx context.Context, t *sqlgym.Task) (string, error)
}

type schemaEntry struct {
	text    string
	dialect sqlgym.Dialect
}

func newPrompts(dbs Databases, tmpl *prompt.Template, src *link.Source) *prompts {
	return &prompts{dbs: dbs, tmpl: tmpl, src: src}
}

// render renders a task's prompt. An infrastructure failure while loading
// the schema is not kept, so a later task tries again.
func (p *prompts) render(ctx context.Context, t *sqlgym.Task) (model.Prompt, error) {
	pr, err := p.renderPlain(ctx, t)
	if err != nil || p.hint == nil {
		return pr, err
	}
	h, err := p.hint(ctx, t)
	if err != nil {
		return model.Prompt{}, err
	}
	return withHint(pr, h), nil
}

func (p *prompts) renderPlain(ctx context.Context, t *sqlgym.Task) (model.Prompt, error) {
	if p.src != nil && p.src.Mode() != link.ModeFull {
		return p.renderLinked(ctx, t)
	}
	// Loaded once per database for every task that asks meanwhile; an
	// infrastructure failure is not kept, so a later task tries again.
	e, err := p.dbsc.Do(ctx, t.DB, func() (schemaEntry, error) {
		lctx := context.WithoutCancel(ctx)
		eng, err := p.dbs.Engine(lctx, t.DB)
		if err != nil {
			return schemaEntry{}, err
		}
		text, err := prompt.SchemaText(lctx, eng)
		if err != nil {
			return schemaEntry{}, err
		}
		return schemaEntry{text: text, dialect: eng.Dialect()}, nil
	}, func(_ schemaEntry, err error) bool { return !sqlgym.IsInfra(err) })
	if err != nil {
		return model.Prompt{}, fmt.Errorf("schema of database %s: %w", t.DB, err)
	}
	return p.tmpl.Render(prompt.InputFor(t, e.text, e.dialect))
}

// renderLinked renders a task on the schema its source chooses for it;
// the source prepares each database once.
func (p *prompts) renderLinked(ctx context.Context, t *sqlgym.Task) (model.Prompt, error) {
	eng, err := p.dbs.Engine(ctx, t.DB)
	if err != nil {
		return model.Prompt{}, fmt.Errorf("schema of database %s: %w", t.DB, err)
	}
	text, _, err := p.src.Text(ctx, eng, t)
	if err != nil {
		return model.Prompt{}, fmt.Errorf("schema of database %s: %w", t.DB, err)
	}
	return p.tmpl.Render(prompt.InputFor(t, text, eng.Dialect()))
}
