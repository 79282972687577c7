package teacher

import (
	"context"
	"errors"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/model"
)

// DefaultOpenAIBaseURL is used when --base-url is not given.
const DefaultOpenAIBaseURL = "https://api.openai.com/v1"

type openaiBackend struct {
	c   *model.Client
	opt Options
}

func newOpenAI(name string, opt Options) (*openaiBackend, error) {
	base := opt.BaseURL
	if base == "" {
		base = DefaultOpenAIBaseURL
	}
	cfg := model.Config{BaseURL: base, APIKey: opt.APIKey, Model: name, HTTPClient: opt.HTTPClient,
		MaxRetries: opt.MaxRetries, AttemptTimeout: opt.AttemptTimeout, Concurrency: opt.Parallel,
		BackoffBase: opt.BackoffBase, BackoffCap: opt.BackoffCap, Sleep: opt.Sleep}
	c, err := model.NewFromConfig(cfg)
	if err != nil {
		return nil, err
	}
	return &openaiBackend{c: c, opt: opt}, nil
}

func (b *openaiBackend) complete(ctx context.Context, system, user string, seed int) (reply, error) {
	resp, err := b.c.Chat(ctx, model.Request{
		Messages:    []sqlgym.Message{{Role: model.RoleSystem, Content: system}, {Role: model.RoleUser, Content: user}},
		MaxTokens:   b.opt.MaxTokens,
		Temperature: b.opt.Temperature,
		Seed:        model.Int(seed),
	})
	if err != nil {
		var me *model.Error
		if errors.As(err, &me) {
			return reply{retries: max(me.Attempts-1, 0)}, err
		}
		return reply{}, err
	}
	ch := resp.Choices[0]
	return reply{text: ch.Content, truncated: ch.Truncated(), retries: resp.Attempts - 1}, nil
}
