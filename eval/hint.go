package eval

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/model"
	"github.com/sqlgym/sqlgym/prompt"
	"github.com/sqlgym/sqlgym/verify"
)

// HintShape is the --hint that shows the expected result's shape.
const HintShape = "shape"

// shapeHint words the gold result's shape for a prompt: how many columns,
// their names, how many rows. It reads the gold through the verifier,
// which runs each gold once and keeps it for judging too.
func shapeHint(ctx context.Context, v *verify.Verifier, t *sqlgym.Task) (string, error) {
	cols, rows, err := v.GoldShape(ctx, t)
	if err != nil {
		return "", fmt.Errorf("task %s: the shape hint needs the gold's result: %w", t.ID, err)
	}
	rowWord := "rows"
	if rows == 1 {
		rowWord = "row"
	}
	return fmt.Sprintf("Hint: the correct result has %d column(s) (%s) and %d %s.",
		len(cols), strings.Join(cols, ", "), rows, rowWord), nil
}

// withHint appends the hint to the prompt's last user message; the hash
// then covers it, so a hinted prompt never passes for a plain one.
func withHint(p model.Prompt, hint string) model.Prompt {
	msgs := slices.Clone(p.Messages)
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == model.RoleUser {
			msgs[i].Content += "\n\n" + hint
			break
		}
	}
	p.Messages, p.Hash = msgs, prompt.HashMessages(msgs)
	return p
}
