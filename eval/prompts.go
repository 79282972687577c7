package eval

import (
	"context"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/link"
	"github.com/sqlgym/sqlgym/model"
	"github.com/sqlgym/sqlgym/prompt"
)

// prompts renders tasks through the one prompt renderer (the export
// renders with the same), adding the shape hint when asked.
type prompts struct {
	r *prompt.Renderer
	// hint, when set, gives the text appended to a task's user message
	// (--hint shape).
	hint func(ctx context.Context, t *sqlgym.Task) (string, error)
}

func newPrompts(dbs Databases, tmpl *prompt.Template, src *link.Source) *prompts {
	return &prompts{r: prompt.NewRenderer(dbs, tmpl, src)}
}

// render renders a task's prompt. An infrastructure failure while loading
// the schema is not kept, so a later task tries again.
func (p *prompts) render(ctx context.Context, t *sqlgym.Task) (model.Prompt, error) {
	pr, err := p.r.Render(ctx, t)
	if err != nil || p.hint == nil {
		return pr, err
	}
	h, err := p.hint(ctx, t)
	if err != nil {
		return model.Prompt{}, err
	}
	return withHint(pr, h), nil
}
