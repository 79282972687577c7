package dataset

import (
	"context"
	"fmt"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/agent"
)

// RenderAgent renders each task's episode opening, the messages POST
// /v1/episodes answers for it, with the opener the episode API starts
// episodes with: a trainer's prompt is the episode's first messages, not a
// second rendering of them.
func RenderAgent(ctx context.Context, op *agent.Opener, tasks []sqlgym.Task) ([]Example, error) {
	out := make([]Example, 0, len(tasks))
	for i := range tasks {
		t := &tasks[i]
		o, err := op.Open(ctx, t)
		if err != nil {
			return nil, fmt.Errorf("task %s: %w", t.ID, err)
		}
		out = append(out, Example{Task: *t, Prompt: o.Messages, PromptHash: o.Hash, Protocol: string(op.Protocol()), Tools: o.Tools})
	}
	return out, nil
}
