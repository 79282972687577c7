package model

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/sqlgym/sqlgym/internal/retry"
)

// Defaults for a Config's zero fields.
const (
	DefaultMaxRetries     = retry.DefaultMaxRetries
	DefaultAttemptTimeout = 10 * time.Minute
	DefaultConcurrency    = 64
	DefaultBackoffBase    = retry.DefaultBase
	DefaultBackoffCap     = retry.DefaultCap
	DefaultMaxRetryAfter  = retry.DefaultMaxAfter
	// DefaultAPIKeyEnv is the variable APIKeyFromEnv reads when given no name.
	DefaultAPIKeyEnv = "OPENAI_API_KEY"
)

// Config configures a Client. Zero fields take the defaults above.
type Config struct {
	// BaseURL is the OpenAI-compatible root, e.g. http://127.0.0.1:8000/v1.
	// A URL with no path gets /v1; a trailing /chat/completions is dropped.
	BaseURL string
	// APIKey is sent as a bearer token when set. Local servers need none.
	APIKey string
	// Model is the model name sent with every request that names none.
	Model      string
	HTTPClient *http.Client
	// MaxRetries is the number of retries after the first attempt; 0 means
	// DefaultMaxRetries and a negative value means none.
	MaxRetries int
	// AttemptTimeout bounds one HTTP attempt, body included.
	AttemptTimeout time.Duration
	// Concurrency bounds the requests in flight over all calls of the client.
	Concurrency int
	// BackoffBase and BackoffCap shape the jittered exponential backoff.
	BackoffBase time.Duration
	BackoffCap  time.Duration
	// MaxRetryAfter caps a server's Retry-After.
	MaxRetryAfter time.Duration
	// Sleep waits between attempts; tests replace it to record the delays.
	// It must return early with ctx's error when ctx ends.
	Sleep func(ctx context.Context, d time.Duration) error
	// OnRetry, when set, hears of every retry before its wait, so a
	// progress line can say that the server is failing and why. It is
	// called from the requesting goroutines and must be safe for that.
	OnRetry func(Retry)
	// BreakAfter and BreakSpan set the circuit breaker: after BreakAfter
	// connection failures in a row spanning at least BreakSpan, every
	// call fails at once with ErrServerGone. Zero takes the defaults; a
	// negative BreakAfter turns the breaker off.
	BreakAfter int
	BreakSpan  time.Duration
}

// Option changes a Config, for New.
type Option func(*Config)

// WithAPIKey sets the bearer token.
func WithAPIKey(key string) Option { return func(c *Config) { c.APIKey = key } }

// WithModel sets the default model name.
func WithModel(name string) Option { return func(c *Config) { c.Model = name } }

// WithHTTPClient sets the HTTP client; its Timeout, if any, applies on top
// of the per-attempt timeout.
func WithHTTPClient(hc *http.Client) Option { return func(c *Config) { c.HTTPClient = hc } }

// WithMaxRetries sets the retries after the first attempt; 0 means none.
func WithMaxRetries(n int) Option {
	return func(c *Config) {
		if n <= 0 {
			n = -1
		}
		c.MaxRetries = n
	}
}

// WithAttemptTimeout bounds each HTTP attempt.
func WithAttemptTimeout(d time.Duration) Option { return func(c *Config) { c.AttemptTimeout = d } }

// WithConcurrency bounds the requests in flight.
func WithConcurrency(n int) Option { return func(c *Config) { c.Concurrency = n } }

// WithBackoff sets the base and cap of the retry backoff.
func WithBackoff(base, limit time.Duration) Option {
	return func(c *Config) { c.BackoffBase, c.BackoffCap = base, limit }
}

// WithSleep replaces the wait between attempts.
func WithSleep(sleep func(ctx context.Context, d time.Duration) error) Option {
	return func(c *Config) { c.Sleep = sleep }
}

// APIKeyFromEnv reads the API key from the named variable, or from
// OPENAI_API_KEY when name is empty. An unset default variable yields ""
// (local servers need no key); an unset named variable is an error, since
// naming it says a key is expected.
func APIKeyFromEnv(name string) (string, error) {
	if name == "" {
		return os.Getenv(DefaultAPIKeyEnv), nil
	}
	v, ok := os.LookupEnv(name)
	if !ok || v == "" {
		return "", fmt.Errorf("environment variable %s, named for the API key, is not set", name)
	}
	return v, nil
}

func (c Config) withDefaults() Config {
	// The retry fields take the shared policy's defaults.
	p := retry.Policy{MaxRetries: c.MaxRetries, Base: c.BackoffBase, Cap: c.BackoffCap, MaxAfter: c.MaxRetryAfter}.WithDefaults()
	c.MaxRetries, c.BackoffBase, c.BackoffCap, c.MaxRetryAfter = p.MaxRetries, p.Base, p.Cap, p.MaxAfter
	if c.AttemptTimeout <= 0 {
		c.AttemptTimeout = DefaultAttemptTimeout
	}
	if c.Concurrency <= 0 {
		c.Concurrency = DefaultConcurrency
	}
	if c.Sleep == nil {
		c.Sleep = retry.Sleep
	}
	if c.BreakAfter == 0 {
		c.BreakAfter = DefaultBreakAfter
	}
	if c.BreakSpan <= 0 {
		c.BreakSpan = DefaultBreakSpan
	}
	if c.HTTPClient == nil {
		// The default transport keeps 2 idle connections per host; with
		// dozens of requests in flight to one server that churns sockets.
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.MaxIdleConnsPerHost = c.Concurrency
		tr.MaxConnsPerHost = 0
		c.HTTPClient = &http.Client{Transport: tr}
	}
	return c
}

// normalizeBaseURL checks raw and returns it without a trailing slash.
func normalizeBaseURL(raw string) (string, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return "", fmt.Errorf("model server URL is empty: give the OpenAI-compatible base URL, e.g. http://127.0.0.1:8000/v1")
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "", fmt.Errorf("model server URL %q: %w", raw, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return "", fmt.Errorf("model server URL %q must start with http:// or https:// and name a host", raw)
	}
	p := strings.TrimRight(u.Path, "/")
	p = strings.TrimSuffix(p, "/chat/completions")
	if p == "" {
		p = "/v1"
	}
	u.Path = p
	u.RawQuery, u.Fragment = "", ""
	return u.String(), nil
}
