package model

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// Sample returns exactly n completions of req (req.N is ignored). It asks
// for n in one request; when the server makes fewer (llama.cpp and Ollama
// ignore n or refuse it), it asks for the rest one per request in parallel,
// and remembers that for the client's later calls. Each one-choice request
// gets its own seed (req.Seed plus the choice's number) so a seeded run
// does not return n copies of one sample.
func (c *Client) Sample(ctx context.Context, req Request, n int) (*Response, error) {
	if n < 1 {
		return nil, fmt.Errorf("sample: n must be at least 1, got %d", n)
	}
	start := time.Now()
	out := &Response{}
	if n == 1 || !c.nIgnored.Load() {
		r := req
		r.N = n
		resp, err := c.Chat(ctx, r)
		switch {
		case err == nil:
			out.add(resp)
			if len(resp.Choices) < n {
				c.nIgnored.Store(true)
			}
		case errors.Is(err, ErrNUnsupported):
			c.nIgnored.Store(true)
			var me *Error
			if errors.As(err, &me) {
				out.Attempts += me.Attempts
			}
		default:
			return nil, err
		}
	}
	if missing := n - len(out.Choices); missing > 0 {
		rest, err := c.singles(ctx, req, len(out.Choices), missing)
		if err != nil {
			return nil, err
		}
		for _, r := range rest {
			out.add(r)
		}
	}
	out.Choices = out.Choices[:n]
	for i := range out.Choices {
		out.Choices[i].Index = i
	}
	out.Elapsed = time.Since(start)
	return out, nil
}

// singles makes count one-choice requests in parallel; the client's
// semaphore bounds them. The first failure cancels the rest.
func (c *Client) singles(ctx context.Context, req Request, first, count int) ([]*Response, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	results := make([]*Response, count)
	errs := make([]error, count)
	var wg sync.WaitGroup
	for i := range count {
		r := req
		r.N = 1
		if req.Seed != nil {
			r.Seed = Int(*req.Seed + first + i)
		}
		wg.Go(func() {
			results[i], errs[i] = c.Chat(ctx, r)
			if errs[i] != nil {
				cancel()
			}
		})
	}
	wg.Wait()
	// Report the failure that caused the others' cancellation, not theirs.
	var firstErr error
	for _, err := range errs {
		if err == nil {
			continue
		}
		if firstErr == nil || isCanceled(firstErr) && !isCanceled(err) {
			firstErr = err
		}
	}
	if firstErr != nil {
		return nil, firstErr
	}
	return results, nil
}

func isCanceled(err error) bool { return errors.Is(err, context.Canceled) }

func (r *Response) add(o *Response) {
	if r.ID == "" {
		r.ID, r.Model = o.ID, o.Model
	}
	r.Choices = append(r.Choices, o.Choices...)
	r.Usage.PromptTokens += o.Usage.PromptTokens
	r.Usage.CompletionTokens += o.Usage.CompletionTokens
	r.Latency = max(r.Latency, o.Latency)
	r.Attempts += o.Attempts
}
