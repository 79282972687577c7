package agent

import (
	"context"
	"fmt"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/link"
	"github.com/sqlgym/sqlgym/model"
	"github.com/sqlgym/sqlgym/prompt"
	"github.com/sqlgym/sqlgym/verify"
)

// Databases gives the agent a task database's sandboxed engine: the one
// the verifier runs answers on. *catalog.Catalog implements it.
type Databases interface {
	Engine(ctx context.Context, name string) (sqlgym.Engine, error)
}

// Env starts episodes: it holds what they share, the verifier, the
// databases and the opener of their first messages (which loads each
// database's schema once). Safe for concurrent use.
type Env struct {
	cfg Config
	v   *verify.Verifier
	op  *Opener
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
	return &Env{cfg: cfg, v: v, op: NewOpener(dbs, tmpl, cfg.Protocol)}, nil
}

// SetSchema makes opening prompts show the schema src chooses for each
// task (nil: every table). Call it before the first episode starts.
func (e *Env) SetSchema(src *link.Source) { e.op.SetSchema(src) }

// Config is the environment's settings, defaults filled in.
func (e *Env) Config() Config { return e.cfg }

// Template is the template opening messages are rendered with.
func (e *Env) Template() *prompt.Template { return e.op.Template() }

// Verifier is the verifier episodes are judged by.
func (e *Env) Verifier() *verify.Verifier { return e.v }

// Start begins an episode of a task. Sample numbers the episode among
// those of the same task (an eval's sample index). An error means the
// episode could not begin: the database or its schema is unavailable.
func (e *Env) Start(ctx context.Context, task *sqlgym.Task, sample int) (*Episode, error) {
	op, err := e.op.Open(ctx, task)
	if err != nil {
		return nil, err
	}
	ep := &Episode{env: e, cfg: e.cfg, task: task, sample: sample, eng: op.Engine, schema: op.Schema, promptHash: op.Hash}
	ep.msgs = append(ep.msgs, op.Messages...)
	ep.opening = len(ep.msgs)
	return ep, nil
}

// Tools is the tool list a model is offered under the environment's
// protocol: the four tools, or none for the text protocol.
func (e *Env) Tools() []model.Tool { return e.op.Tools() }
