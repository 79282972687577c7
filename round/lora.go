package round

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/model"
)

// loadAdapter makes the server serve the adapter at path under name,
// unless it already does (a resumed round loads nothing twice). The HTTP
// side is model.Client's: one client talks to the model server.
func loadAdapter(ctx context.Context, c *model.Client, name, path string) error {
	ids, err := c.Models(ctx)
	if err != nil {
		return fmt.Errorf("%w (is the model server running at %s?)", err, c.BaseURL())
	}
	if slices.Contains(ids, name) {
		return nil
	}
	err = c.LoadLoRAAdapter(ctx, name, path)
	if errors.Is(err, model.ErrNoRuntimeLoRA) {
		return sqlgym.Userf("start vLLM with --enable-lora and the environment variable VLLM_ALLOW_RUNTIME_LORA_UPDATING=True, or set serve.command in the round config instead",
			"the model server at %s has no runtime LoRA loading: %w", c.BaseURL(), err)
	}
	return err
}

// waitFor waits until the server lists name, for a server command that
// was just started.
func waitFor(ctx context.Context, c *model.Client, name string, limit time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	for {
		if ids, err := c.Models(ctx); err == nil && slices.Contains(ids, name) {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("the server at %s did not list %s within %v: %w", c.BaseURL(), name, limit, ctx.Err())
		case <-time.After(2 * time.Second):
		}
	}
}
