package eval

import (
	"context"
	"fmt"
	"sync"

	"github.com/sqlgym/sqlgym"
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
	mu   sync.Mutex
	dbsc map[string]*schemaEntry
}

type schemaEntry struct {
	once    sync.Once
	text    string
	dialect sqlgym.Dialect
	err     error
}

func newPrompts(dbs Databases, tmpl *prompt.Template, src *link.Source) *prompts {
	return &prompts{dbs: dbs, tmpl: tmpl, src: src, dbsc: map[string]*schemaEntry{}}
}

// render renders a task's prompt. An infrastructure failure while loading
// the schema is not kept, so a later task tries again.
func (p *prompts) render(ctx context.Context, t *sqlgym.Task) (model.Prompt, error) {
	if p.src != nil && p.src.Mode() != link.ModeFull {
		return p.renderLinked(ctx, t)
	}
	p.mu.Lock()
	e := p.dbsc[t.DB]
	if e == nil {
		e = &schemaEntry{}
		p.dbsc[t.DB] = e
	}
	p.mu.Unlock()
	e.once.Do(func() {
		eng, err := p.dbs.Engine(ctx, t.DB)
		if err != nil {
			e.err = err
			return
		}
		text, err := prompt.SchemaText(ctx, eng)
		if err != nil {
			e.err = err
			return
		}
		e.text, e.dialect = text, eng.Dialect()
	})
	if e.err != nil {
		if sqlgym.IsInfra(e.err) || ctx.Err() != nil {
			p.mu.Lock()
			if p.dbsc[t.DB] == e {
				delete(p.dbsc, t.DB)
			}
			p.mu.Unlock()
		}
		return model.Prompt{}, fmt.Errorf("schema of database %s: %w", t.DB, e.err)
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
