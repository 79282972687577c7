package teacher

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

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
}

func newAnthropic(name string, opt Options) (*anthropicBackend, error) {
	if opt.MaxRetries == 0 {
		opt.MaxRetries = model.DefaultMaxRetries
	} else if opt.MaxRetries < 0 {
		opt.MaxRetries = 0
	}
	if opt.AttemptTimeout <= 0 {
		opt.AttemptTimeout = model.DefaultAttemptTimeout
	}
	if opt.BackoffBase <= 0 {
		opt.BackoffBase = model.DefaultBackoffBase
	}
	if opt.BackoffCap <= 0 {
		opt.BackoffCap = model.DefaultBackoffCap
	}
	if opt.Sleep == nil {
		opt.Sleep = sleep
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
	return &anthropicBackend{client: anthropic.NewClient(opts...), model: name, opt: opt, base: base}, nil
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
		case attempt > b.opt.MaxRetries:
			return reply{retries: attempt - 1}, &Error{Provider: ProviderAnthropic, URL: b.base, Status: f.status, Attempts: attempt, Infra: true, Err: err,
				Msg:  fmt.Sprintf("anthropic server %s unavailable after %d attempts: %s", b.base, attempt, f.msg),
				Hint: "the server is overloaded or failing; run again later with --resume: the tasks kept so far stay"}
		}
		wait := backoff(attempt-1, b.opt.BackoffBase, b.opt.BackoffCap)
		if f.hasAfter {
			wait = min(f.after, model.DefaultMaxRetryAfter)
		}
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
		return failure{retry: true, msg: "connection failed: " + err.Error()}
	}
	f := failure{status: ae.StatusCode, msg: fmt.Sprintf("%d %s", ae.StatusCode, http.StatusText(ae.StatusCode))}
	if ae.StatusCode == 529 {
		f.msg = "529 Overloaded"
	}
	if m := ae.Message; m != "" {
		f.msg += ": " + string(ae.Type()) + ": " + m
	}
	switch c := ae.StatusCode; {
	case c == http.StatusRequestTimeout, c == http.StatusConflict, c == http.StatusTooManyRequests,
		c >= 500 && c != http.StatusNotImplemented:
		f.retry = true
	}
	if ae.Response != nil {
		f.after, f.hasAfter = retryAfter(ae.Response.Header)
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

// retryAfter reads retry-after-ms or retry-after (seconds or an HTTP date).
func retryAfter(h http.Header) (time.Duration, bool) {
	if v := strings.TrimSpace(h.Get("Retry-After-Ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms >= 0 {
			return time.Duration(ms * float64(time.Millisecond)), true
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil && s >= 0 {
		return time.Duration(s * float64(time.Second)), true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(time.Until(t), 0), true
	}
	return 0, false
}

// backoff mirrors package model's: exponential from base, capped, drawn
// from the upper half of the step.
func backoff(retry int, base, limit time.Duration) time.Duration {
	d := base
	for i := 0; i < retry && d < limit; i++ {
		d *= 2
	}
	d = min(d, limit)
	half := d / 2
	return half + rand.N(d-half+1)
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
