package prompt

import (
	"context"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/schema"
)

// SchemaSamples is how many distinct real values per column a prompt's
// schema shows.
const SchemaSamples = 3

// SchemaText describes a database and renders its schema as every prompt
// shows it: evaluation and the training exports call this one function,
// so a model is trained on the schema text it is scored with.
func SchemaText(ctx context.Context, eng sqlgym.Engine) (string, error) {
	s, err := schema.Load(ctx, eng, SchemaSamples)
	if err != nil {
		return "", err
	}
	return schema.Render(s, schema.Options{}), nil
}
