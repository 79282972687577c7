package model

import (
	"context"
	"fmt"
	"maps"
	"time"

	"github.com/sqlgym/sqlgym"
)

// Policy turns a rendered prompt into k completions.
type Policy interface {
	Name() string
	Complete(ctx context.Context, p Prompt, k int) ([]Completion, error)
}

// Prompt is a task rendered as chat messages. Hash identifies the rendering
// so results can say which prompt produced them.
type Prompt struct {
	TaskID   string
	Messages []sqlgym.Message
	Hash     string
}

// Completion is one sampled answer. FinishReason "length" means the text
// was cut at the token limit.
type Completion struct {
	Text, Reasoning, FinishReason string
	Latency                       time.Duration
	PromptTokens                  int
	CompletionTokens              int
}

// Decoding holds the sampling settings an OpenAIPolicy sends with every
// prompt. Nil pointers leave the server's defaults.
type Decoding struct {
	Temperature *float64
	TopP        *float64
	Seed        *int
	MaxTokens   int
	Stop        []string
	// Extra is merged into every request body, e.g.
	// {"chat_template_kwargs": {"enable_thinking": false}, "top_k": 20}.
	Extra map[string]any
}

// OpenAIPolicy samples completions from an OpenAI-compatible server.
type OpenAIPolicy struct {
	client   *Client
	name     string
	decoding Decoding
}

// Client is the client the policy samples through.
func (p *OpenAIPolicy) Client() *Client { return p.client }

// NewOpenAIPolicy returns a policy over c. name labels it in reports; empty
// means the client's model name.
func NewOpenAIPolicy(c *Client, name string, d Decoding) *OpenAIPolicy {
	if name == "" {
		name = c.Model()
	}
	d.Extra = maps.Clone(d.Extra)
	return &OpenAIPolicy{client: c, name: name, decoding: d}
}

// Name labels the policy in reports.
func (p *OpenAIPolicy) Name() string { return p.name }

// Complete samples k completions of the prompt. An error is never a
// completion: IsInfra tells whether the server failed (not to be scored).
func (p *OpenAIPolicy) Complete(ctx context.Context, pr Prompt, k int) ([]Completion, error) {
	d := p.decoding
	resp, err := p.client.Sample(ctx, Request{
		Messages:    pr.Messages,
		Temperature: d.Temperature,
		TopP:        d.TopP,
		Seed:        d.Seed,
		MaxTokens:   d.MaxTokens,
		Stop:        d.Stop,
		Extra:       d.Extra,
	}, k)
	if err != nil {
		if pr.TaskID != "" {
			return nil, fmt.Errorf("task %s: %w", pr.TaskID, err)
		}
		return nil, err
	}
	out := make([]Completion, len(resp.Choices))
	for i, ch := range resp.Choices {
		out[i] = Completion{
			Text:             ch.Content,
			Reasoning:        ch.Reasoning,
			FinishReason:     ch.FinishReason,
			Latency:          ch.Latency,
			PromptTokens:     ch.PromptTokens,
			CompletionTokens: ch.CompletionTokens,
		}
	}
	return out, nil
}

var _ Policy = (*OpenAIPolicy)(nil)
