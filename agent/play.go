package agent

import (
	"context"
	"fmt"

	"github.com/sqlgym/sqlgym/model"
)

// Actor writes the assistant's side of an episode: a model server, the
// offline baseline, or a test's script.
type Actor interface {
	// Name labels the actor in run manifests.
	Name() string
	// Act returns the next assistant message of the episode. An error
	// means no message could be had (the model server failed): the
	// episode is abandoned, never scored.
	Act(ctx context.Context, ep *Episode) (Reply, error)
}

// Play runs an episode to its end with an actor and returns the verdict.
func Play(ctx context.Context, ep *Episode, a Actor) error {
	for !ep.Done() {
		if err := ctx.Err(); err != nil {
			return err
		}
		r, err := a.Act(ctx, ep)
		if err != nil {
			return err
		}
		if _, err := ep.Step(ctx, r); err != nil {
			return err
		}
	}
	return nil
}

// ModelActor asks an OpenAI-compatible server for each turn, offering the
// tools under the tools protocol.
type ModelActor struct {
	Client   *model.Client
	Label    string
	Decoding model.Decoding
}

// Name is the label, or the client's model name.
func (m *ModelActor) Name() string {
	if m.Label != "" {
		return m.Label
	}
	return m.Client.Model()
}

// Act sends the conversation so far. With a seed, sample i of a task uses
// seed+i on every turn, so a resumed run asks what an uninterrupted one
// would. The request's max_tokens is cut to what is left of the episode's
// token budget.
func (m *ModelActor) Act(ctx context.Context, ep *Episode) (Reply, error) {
	d := m.Decoding
	req := model.Request{
		Messages: ep.Messages(), Tools: ep.Tools(),
		Temperature: d.Temperature, TopP: d.TopP, MaxTokens: d.MaxTokens, Stop: d.Stop, Extra: d.Extra,
	}
	if d.Seed != nil {
		req.Seed = model.Int(*d.Seed + ep.Sample())
	}
	if left := ep.TokensLeft(); left >= 0 && (req.MaxTokens == 0 || left < req.MaxTokens) {
		req.MaxTokens = max(left, 1)
	}
	resp, err := m.Client.Chat(ctx, req)
	if err != nil {
		return Reply{}, fmt.Errorf("task %s turn %d: %w", ep.Task().ID, ep.Turn()+1, err)
	}
	if len(resp.Choices) == 0 {
		return Reply{}, fmt.Errorf("task %s turn %d: the server returned no choice", ep.Task().ID, ep.Turn()+1)
	}
	ch := resp.Choices[0]
	return Reply{
		Content: ch.Content, Reasoning: ch.Reasoning, ToolCalls: ch.ToolCalls, FinishReason: ch.FinishReason,
		PromptTokens: ch.PromptTokens, CompletionTokens: ch.CompletionTokens, Latency: ch.Latency,
	}, nil
}
