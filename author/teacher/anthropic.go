package teacher

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/sqlgym/sqlgym/internal/retry"
	"github.com/sqlgym/sqlgym/model"
)

// DefaultAnthropicKeyEnv is the variable the anthropic teacher reads its
// key from when --api-key-env is not given.
const DefaultAnthropicKeyEnv = "ANTHROPIC_API_KEY"

type anthropicBackend struct {
	client anthropic.Client
	model  string
	opt    Options
	base   string
	policy retry.Policy
}

func newAnthropic(name string, opt Options) (*anthropicBackend, error) {
	if opt.AttemptTimeout <= 0 {
		opt.AttemptTimeout = model.DefaultAttemptTimeout
	}
	if opt.Sleep == nil {
		opt.Sleep = retry.Sleep
	}
	hc := opt.HTTPClient
	if hc == nil {
		hc = &http.Client{}
	}
	// No environment defaults: the key and URL come from sqlgym's flags
	// only, and the SDK's own retries are off so that ours apply.
	opts := []option.RequestOption{option.WithoutEnvironmentDefaults(), option.WithMaxRetries(0),
		option.WithHTTPClient(hc), option.WithRequestTimeout(opt.AttemptTimeout)}
	if opt.APIKey != "" {
		opts = append(opts, option.WithAPIKey(opt.APIKey))
	}
	base := "https://api.anthropic.com"
	if opt.BaseURL != "" {
		base = strings.TrimRight(opt.BaseURL, "/")
		opts = append(opts, option.WithBaseURL(base))
	}
	pol := retry.Policy{MaxRetries: opt.MaxRetries, Base: opt.BackoffBase, Cap: opt.BackoffCap}.WithDefaults()
	return &anthropicBackend{client: anthropic.NewClient(opts...), model: name, opt: opt, base: base, policy: pol}, nil
}

func (b *anthropicBackend) complete(ctx context.Context, system, user string, _ int) (reply, error) {
	params := anthropic.MessageNewParams{
		Model:     b.model,
		MaxTokens: int64(b.opt.MaxTokens),
		System:    []anthropic.TextBlockParam{{Text: system}},
		Messages:  []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock(user))},
	}
	var extra []option.RequestOption
	if b.opt.Temperature != nil {
		// MessageNewParams has no temperature field in this SDK version;
		// the API still reads it from the body.
		extra = append(extra, option.WithJSONSet("temperature", *b.opt.Temperature))
	}
	for attempt := 1; ; attempt++ {
		msg, err := b.client.Messages.New(ctx, params, extra...)
		if err == nil {
			var text strings.Builder
			for _, blk := range msg.Content {
				if blk.Type == "text" {
					text.WriteString(blk.Text)
				}
			}
			return reply{text: text.String(), truncated: msg.StopReason == anthropic.StopReasonMaxTokens, retries: attempt - 1}, nil
		}
		f := b.classify(ctx, err)
		switch {
		case f.stopped:
			return reply{retries: attempt - 1}, fmt.Errorf("anthropic request stopped after %d attempts: %w", attempt, ctx.Err())
		case !f.retry:
			return reply{retries: attempt - 1}, b.refused(f, err)
		case !b.policy.Again(attempt):
			return reply{retries: attempt - 1}, &Error{Provider: ProviderAnthropic, URL: b.base, Status: f.status, Attempts: attempt, Infra: true, Err: err,
				Msg:  fmt.Sprintf("anthropic server %s unavailable after %d attempts: %s", b.base, attempt, f.msg),
				Hint: "the server is overloaded or failing; run again later with --resume: the tasks kept so far stay"}
		}
		wait := b.policy.Wait(attempt, f.after, f.hasAfter)
		if err := b.opt.Sleep(ctx, wait); err != nil {
			return reply{retries: attempt - 1}, fmt.Errorf("anthropic request stopped after %d attempts: %w", attempt, err)
		}
	}
}

type failure struct {
	status   int
	msg      string
	retry    bool
	stopped  bool
	after    time.Duration
	hasAfter bool
}

// classify tells a retryable failure (overload, a server's error, a lost
// connection) from a refused request.
func (b *anthropicBackend) classify(ctx context.Context, err error) failure {
	if ctx.Err() != nil {
		return failure{stopped: true}
	}
	var ae *anthropic.Error
	if !errors.As(err, &ae) {
		// No answer at all (refused, reset, timed out): worth another attempt.
		return failure{retry: true, msg: retry.Cause(err) + ": " + err.Error()}
	}
	f := failure{status: ae.StatusCode, msg: fmt.Sprintf("%d %s", ae.StatusCode, http.StatusText(ae.StatusCode))}
	if ae.StatusCode == 529 {
		f.msg = "529 Overloaded"
	}
	if m := ae.Message; m != "" {
		f.msg += ": " + string(ae.Type()) + ": " + m
	}
	f.retry = retry.Status(ae.StatusCode)
	if ae.Response != nil {
		f.after, f.hasAfter = retry.After(ae.Response.Header, time.Now())
	}
	return f
}

// refused explains a request the server will not serve, with what to fix.
func (b *anthropicBackend) refused(f failure, err error) error {
	e := &Error{Provider: ProviderAnthropic, URL: b.base, Status: f.status, Attempts: 1, Err: err,
		Msg: fmt.Sprintf("anthropic server %s refused the request (%s)", b.base, f.msg)}
	switch f.status {
	case http.StatusUnauthorized, http.StatusForbidden:
		e.Hint = "set " + DefaultAnthropicKeyEnv + ", or name the variable that holds the key with --api-key-env"
	case http.StatusNotFound:
		e.Hint = fmt.Sprintf("check the model name %q (--teacher anthropic:MODEL) and --base-url", b.model)
	default:
		e.Hint = "fix the request as the server's message says"
	}
	return e
}
