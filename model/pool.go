package model

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// Pool spreads one Client's requests over several replicas of the same
// model server (vLLM or SGLang behind no balancer of their own). It is an
// http.RoundTripper, not a second client: the Client keeps its request
// building, retries and error classes, and sends each request to the
// pool's first base URL; the pool sends it to the replica with the fewest
// requests in flight instead. A replica that fails (no connection, or a
// 5xx answer) is taken out for a cool-down and the request goes at once
// to the next replica; when every replica is out, the failure goes back
// to the Client, whose backoff then retries, and the pool tries the
// replica whose cool-down ends first. The answer does not depend on the
// replica that gave it (each request carries its own seed), so a run over
// a pool gives the samples a run over one server gives.
type Pool struct {
	reps     []*poolReplica
	next     http.RoundTripper
	cooldown time.Duration
	now      func() time.Time

	mu sync.Mutex
}

type poolReplica struct {
	base      string // normalized, as Client.BaseURL gives it
	inflight  int
	downUntil time.Time
	stats     ReplicaStats
}

// ReplicaStats counts one replica's requests.
type ReplicaStats struct {
	URL      string `json:"url"`
	Requests int64  `json:"requests"`
	Failures int64  `json:"failures"`
	// TakenOut counts the times the replica was taken out after a failure.
	TakenOut int64 `json:"taken_out"`
}

// DefaultCooldown is how long a failed replica stays out before the pool
// tries it again.
const DefaultCooldown = 10 * time.Second

// PoolOptions configures a Pool. Zero fields take defaults.
type PoolOptions struct {
	// Transport makes the HTTP requests (http.DefaultTransport).
	Transport http.RoundTripper
	// Cooldown is how long a failed replica stays out (DefaultCooldown).
	Cooldown time.Duration
}

// NewPool returns a pool over the base URLs (each normalized as a
// Client's); duplicates are refused, since they would double one
// replica's share.
func NewPool(baseURLs []string, opts PoolOptions) (*Pool, error) {
	if len(baseURLs) == 0 {
		return nil, errors.New("model server pool: no base URL")
	}
	p := &Pool{next: opts.Transport, cooldown: opts.Cooldown, now: time.Now}
	if p.next == nil {
		p.next = http.DefaultTransport
	}
	if p.cooldown <= 0 {
		p.cooldown = DefaultCooldown
	}
	seen := map[string]bool{}
	for _, raw := range baseURLs {
		b, err := normalizeBaseURL(raw)
		if err != nil {
			return nil, err
		}
		if seen[b] {
			return nil, fmt.Errorf("model server %s is given twice: give each replica once", b)
		}
		seen[b] = true
		p.reps = append(p.reps, &poolReplica{base: b, stats: ReplicaStats{URL: b}})
	}
	return p, nil
}

// BaseURL is the URL a Client over the pool is built with (the first
// replica's); the pool rewrites it per request.
func (p *Pool) BaseURL() string { return p.reps[0].base }

// URLs are the replicas' normalized base URLs, in the order given.
func (p *Pool) URLs() []string {
	out := make([]string, len(p.reps))
	for i, r := range p.reps {
		out[i] = r.base
	}
	return out
}

// HTTPClient is an HTTP client that sends through the pool, for
// Config.HTTPClient.
func (p *Pool) HTTPClient() *http.Client { return &http.Client{Transport: p} }

// Stats returns every replica's counts.
func (p *Pool) Stats() []ReplicaStats {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]ReplicaStats, len(p.reps))
	for i, r := range p.reps {
		out[i] = r.stats
	}
	return out
}

// RoundTrip sends req to the least loaded replica that is in, moving on to
// the next one when it fails.
func (p *Pool) RoundTrip(req *http.Request) (*http.Response, error) {
	suffix, ok := strings.CutPrefix(req.URL.String(), p.reps[0].base)
	if !ok {
		return nil, fmt.Errorf("model server pool: request for %s is not under %s", req.URL, p.reps[0].base)
	}
	tried := make([]bool, len(p.reps))
	for n := 0; ; n++ {
		i := p.pick(tried)
		tried[i] = true
		out, err := p.rewrite(req, p.reps[i].base+suffix, n > 0)
		if err != nil {
			p.finish(i, false)
			return nil, err
		}
		resp, err := p.next.RoundTrip(out)
		failed := err != nil || failedStatus(resp.StatusCode)
		if err != nil && req.Context().Err() != nil {
			// The caller stopped: not the replica's failure.
			p.finish(i, true)
			return nil, err
		}
		p.finish(i, !failed)
		last := n == len(p.reps)-1 || (req.Body != nil && req.GetBody == nil)
		if !failed || last {
			if err != nil && len(p.reps) > 1 {
				// The client's message names the pool's first URL: say
				// that every replica was tried.
				err = fmt.Errorf("all %d model server replicas failed, the last (%s): %w", n+1, p.reps[i].base, err)
			}
			return resp, err
		}
		if resp != nil {
			_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
			resp.Body.Close()
		}
	}
}

// failedStatus is a status that says the replica, not the request, is at
// fault: 5xx but 501 and 505, which every replica would give. 429 is not:
// the Client waits the replica's Retry-After and the pool then sends the
// retry to whichever replica has the fewest in flight.
func failedStatus(code int) bool {
	return code >= 500 && code != http.StatusNotImplemented && code != http.StatusHTTPVersionNotSupported
}

// pick takes the untried replica with the fewest requests in flight among
// those that are in (ties: the first given); when all untried ones are
// out, the one whose cool-down ends first.
func (p *Pool) pick(tried []bool) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	best, bestOut := -1, -1
	for i, r := range p.reps {
		if tried[i] {
			continue
		}
		if !r.downUntil.After(now) {
			if best < 0 || r.inflight < p.reps[best].inflight {
				best = i
			}
		} else if bestOut < 0 || r.downUntil.Before(p.reps[bestOut].downUntil) {
			bestOut = i
		}
	}
	if best < 0 {
		best = bestOut
	}
	p.reps[best].inflight++
	p.reps[best].stats.Requests++
	return best
}

func (p *Pool) finish(i int, ok bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	r := p.reps[i]
	r.inflight--
	if ok {
		r.downUntil = time.Time{}
		return
	}
	r.stats.Failures++
	if !r.downUntil.After(p.now()) {
		r.stats.TakenOut++
	}
	r.downUntil = p.now().Add(p.cooldown)
}

// rewrite is req addressed to target, with a fresh copy of its body when
// it is a second try.
func (p *Pool) rewrite(req *http.Request, target string, again bool) (*http.Request, error) {
	u, err := url.Parse(target)
	if err != nil {
		return nil, fmt.Errorf("model server pool: %w", err)
	}
	out := req.Clone(req.Context())
	out.URL, out.Host = u, ""
	if again && req.GetBody != nil {
		if out.Body, err = req.GetBody(); err != nil {
			return nil, fmt.Errorf("model server pool: replay the request body: %w", err)
		}
	}
	return out, nil
}
