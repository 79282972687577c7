package teacher

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/author"
)

// Providers a teacher spec can name.
const (
	ProviderOpenAI    = "openai"
	ProviderAnthropic = "anthropic"
)

// Spec is a parsed --teacher value other than synth.
type Spec struct {
	Provider string
	Model    string
}

// ParseSpec reads "openai:MODEL" or "anthropic:MODEL". ok is false for
// anything that names no model teacher (synth, say); err is set for a
// model teacher written wrong.
func ParseSpec(s string) (spec Spec, ok bool, err error) {
	p, m, found := strings.Cut(strings.TrimSpace(s), ":")
	if !found || p != ProviderOpenAI && p != ProviderAnthropic {
		return Spec{}, false, nil
	}
	if strings.TrimSpace(m) == "" {
		return Spec{}, true, sqlgym.Userf("write --teacher "+p+":MODEL, e.g. "+example(p), "--teacher %q names no model", s)
	}
	return Spec{Provider: p, Model: strings.TrimSpace(m)}, true, nil
}

func example(p string) string {
	if p == ProviderAnthropic {
		return "anthropic:claude-sonnet-4-5"
	}
	return "openai:gpt-4o-mini"
}

// Source is what tasks written by this teacher record as their source.
func (s Spec) Source() string { return "teacher:" + s.Provider + ":" + s.Model }

func (s Spec) String() string { return s.Provider + ":" + s.Model }

// Defaults for Options' zero fields.
const (
	DefaultPerRequest   = 10
	DefaultParallel     = 4
	DefaultMaxTokens    = 8192
	DefaultMaxMalformed = 5
	DefaultAvoid        = 40
)

// Options configure a teacher. Zero fields take the defaults.
type Options struct {
	// BaseURL is the server's root: for openai the OpenAI-compatible base
	// (https://api.openai.com/v1 when empty); for anthropic the API root
	// (the SDK's production URL when empty).
	BaseURL string
	APIKey  string
	// PerRequest is how many pairs one request asks for; a Propose for
	// more makes several requests, Parallel at a time.
	PerRequest int
	Parallel   int
	MaxTokens  int
	// Temperature, when set, is sent; otherwise the server's default.
	Temperature *float64
	// MaxRetries is the retries after a failed attempt (default 6, as
	// package model; negative: none).
	MaxRetries int
	// MaxMalformed stops Propose after that many malformed replies in a
	// row: the model is not following the instructions.
	MaxMalformed int
	// Avoid is how many earlier questions the prompt lists as taken.
	Avoid int
	// Levels limits the complexity levels asked for; none means all.
	Levels []string
	// HTTPClient, AttemptTimeout, BackoffBase and Sleep tune the transport
	// and the retries; tests shorten the waits through them.
	HTTPClient     *http.Client
	AttemptTimeout time.Duration
	BackoffBase    time.Duration
	BackoffCap     time.Duration
	Sleep          func(ctx context.Context, d time.Duration) error
}

// Stats count what a teacher did over its lifetime.
type Stats struct {
	Requests int `json:"requests"`
	// Malformed replies held no readable array; Cut ones were cut off by
	// the token limit and gave their complete items.
	Malformed int `json:"malformed_replies"`
	Cut       int `json:"cut_replies"`
	// BadItems were skipped for a missing field or an unknown level.
	BadItems  int `json:"bad_items"`
	Proposed  int `json:"proposed"`
	Retries   int `json:"retries"`
	Truncated int `json:"truncated"`
}

// reply is one completion.
type reply struct {
	text string
	// truncated: the model stopped at the token limit.
	truncated bool
	retries   int
}

// backend sends one prompt and returns the model's text.
type backend interface {
	complete(ctx context.Context, system, user string, seed int) (reply, error)
}

// Teacher proposes candidates by asking a model. Safe for concurrent use.
type Teacher struct {
	spec Spec
	opt  Options
	be   backend

	mu    sync.Mutex
	stats Stats
	asked []string // questions proposed so far, newest last
}

var _ author.Teacher = (*Teacher)(nil)

// New returns the teacher for spec.
func New(spec Spec, opt Options) (*Teacher, error) {
	if opt.PerRequest <= 0 {
		opt.PerRequest = DefaultPerRequest
	}
	if opt.Parallel <= 0 {
		opt.Parallel = DefaultParallel
	}
	if opt.MaxTokens <= 0 {
		opt.MaxTokens = DefaultMaxTokens
	}
	if opt.MaxMalformed <= 0 {
		opt.MaxMalformed = DefaultMaxMalformed
	}
	if opt.Avoid == 0 {
		opt.Avoid = DefaultAvoid
	}
	if len(opt.Levels) == 0 {
		opt.Levels = author.Levels
	}
	for _, l := range opt.Levels {
		if normalizeLevel(l) != l {
			return nil, fmt.Errorf("teacher: unknown complexity level %q (known: %s)", l, strings.Join(author.Levels, ", "))
		}
	}
	t := &Teacher{spec: spec, opt: opt}
	var err error
	switch spec.Provider {
	case ProviderOpenAI:
		t.be, err = newOpenAI(spec.Model, opt)
	case ProviderAnthropic:
		t.be, err = newAnthropic(spec.Model, opt)
	default:
		err = fmt.Errorf("teacher: unknown provider %q (openai or anthropic)", spec.Provider)
	}
	if err != nil {
		return nil, err
	}
	return t, nil
}

// Spec is the teacher's provider and model.
func (t *Teacher) Spec() Spec { return t.spec }

// Stats returns the counts so far.
func (t *Teacher) Stats() Stats {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.stats
}

// Propose asks the model for n pairs, in requests of PerRequest pairs,
// Parallel at a time. A model does not repeat itself for a seed the way
// synth does: rng only picks the spread over levels and the seed sent.
// Malformed replies are counted and asked again, up to MaxMalformed in a
// row. A failure of the server (after the retries) or a refused request
// ends the call with the error; what earlier calls returned stands.
func (t *Teacher) Propose(ctx context.Context, s *sqlgym.Schema, n int, rng *rand.Rand) ([]author.Candidate, error) {
	if n <= 0 {
		return nil, nil
	}
	var out []author.Candidate
	malformed := 0
	for len(out) < n {
		want := n - len(out)
		reqs := min((want+t.opt.PerRequest-1)/t.opt.PerRequest, t.opt.Parallel)
		type job struct {
			user string
			seed int
		}
		avoid := t.recent()
		jobs := make([]job, reqs)
		for i := range jobs {
			size := min(t.opt.PerRequest, want-i*t.opt.PerRequest)
			jobs[i] = job{userPrompt(s, plan(size, t.opt.Levels, rng), t.opt.Levels, avoid), rng.IntN(1 << 30)}
		}
		replies := make([]reply, reqs)
		errs := make([]error, reqs)
		var wg sync.WaitGroup
		for i, j := range jobs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				replies[i], errs[i] = t.be.complete(ctx, systemPrompt, j.user, j.seed)
			}()
		}
		wg.Wait()
		for i, r := range replies {
			t.count(func(st *Stats) { st.Requests++; st.Retries += r.retries })
			if errs[i] != nil {
				return out, fmt.Errorf("teacher %s: %w", t.spec, errs[i])
			}
			p, err := parseReply(r.text)
			t.count(func(st *Stats) {
				st.BadItems += p.bad
				if r.truncated {
					st.Truncated++
				}
				if p.cut {
					st.Cut++
				}
				if err != nil {
					st.Malformed++
				}
			})
			if err != nil || len(p.pairs) == 0 {
				// An array of only bad items counts too, or a model
				// that never gets the fields right would loop forever.
				malformed++
				if malformed >= t.opt.MaxMalformed {
					return out, sqlgym.Userf("check that the model can follow instructions for JSON output; the tasks kept so far stay",
						"teacher %s: %d malformed replies in a row (the last begins %q)", t.spec, malformed, snippet(r.text, 80))
				}
				continue
			}
			malformed = 0
			for _, pr := range p.pairs {
				if len(out) >= n {
					break
				}
				out = append(out, author.Candidate{Question: pr.Question, SQL: pr.SQL, Complexity: pr.Complexity, Source: t.spec.Source()})
				t.remember(pr.Question)
			}
		}
		if err := ctx.Err(); err != nil {
			return out, err
		}
	}
	t.count(func(st *Stats) { st.Proposed += len(out) })
	return out, nil
}

func (t *Teacher) count(f func(*Stats)) {
	t.mu.Lock()
	f(&t.stats)
	t.mu.Unlock()
}

func (t *Teacher) remember(q string) {
	t.mu.Lock()
	t.asked = append(t.asked, q)
	if over := len(t.asked) - 4*max(t.opt.Avoid, 1); over > 0 {
		t.asked = append([]string(nil), t.asked[over:]...)
	}
	t.mu.Unlock()
}

// recent returns up to Avoid of the latest questions asked.
func (t *Teacher) recent() []string {
	if t.opt.Avoid < 0 {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	k := max(len(t.asked)-t.opt.Avoid, 0)
	return append([]string(nil), t.asked[k:]...)
}

func snippet(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
}
