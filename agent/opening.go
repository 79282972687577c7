package agent

import (
	"context"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/link"
	"github.com/sqlgym/sqlgym/model"
	"github.com/sqlgym/sqlgym/prompt"
)

// Opener renders the opening messages of episodes: the protocol's
// template on the schema text an episode shows, through the one prompt
// renderer. Env starts every episode with one, and `sqlgym export --agent`
// writes a dataset's prompts with another, so a trainer's prompt is
// exactly what the episode API sends. Safe for concurrent use.
type Opener struct {
	protocol Protocol
	dbs      Databases
	r        *prompt.Renderer
}

// Opening is what an episode starts from.
type Opening struct {
	// Messages are the system and user messages sent to the model first.
	Messages []sqlgym.Message
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
	return &Opener{protocol: p, dbs: dbs, r: prompt.NewRenderer(dbs, tmpl, nil)}
}

// SetSchema makes openings show the schema src chooses for each task
// (nil: every table); the tools still list and describe every table.
// Call it before the first opening.
func (o *Opener) SetSchema(src *link.Source) { o.r = prompt.NewRenderer(o.dbs, o.r.Template(), src) }

// Template is the template openings are rendered with.
func (o *Opener) Template() *prompt.Template { return o.r.Template() }

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
	rd, err := o.r.Open(ctx, task)
	if err != nil {
		return Opening{}, err
	}
	return Opening{Messages: rd.Prompt.Messages, Hash: rd.Prompt.Hash, Tools: o.Tools(), Schema: rd.Schema, Engine: rd.Engine}, nil
}
