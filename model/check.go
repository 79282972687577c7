package model

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/internal/retry"
)

// checkTimeout bounds the check before a run: a server that has not
// answered GET /models by then is not going to serve a benchmark.
const checkTimeout = 15 * time.Second

// Check asks the server for GET {base}/models with the API key before a
// run, so a server that is down, failing or refusing the key stops the
// command at once with what to do, instead of costing every sample its
// retries. Only a server that cannot be reached, a 5xx and a 401/403 are
// failures: servers without a /models route (404, 405, other 4xx) are
// let through, since chat completions may still work there. Errors are
// *sqlgym.UserError values naming the URL and the fix.
func (c *Client) Check(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, checkTimeout)
	defer cancel()
	hreq, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+"/models", nil)
	if err != nil {
		return fmt.Errorf("check model server %s: %w", c.base, err)
	}
	c.setHeaders(hreq)
	hresp, err := c.cfg.HTTPClient.Do(hreq)
	if err != nil {
		if ctx.Err() != nil && context.Cause(ctx) != context.DeadlineExceeded {
			return fmt.Errorf("check model server %s: %w", c.base, err)
		}
		return sqlgym.Userf(fmt.Sprintf("is the server running at %s? Start it (e.g. vllm serve MODEL --port 8000) or fix --base-url", c.base),
			"model server %s does not answer (%s): %w", c.base, retry.Cause(err), err)
	}
	defer hresp.Body.Close()
	data, _ := io.ReadAll(io.LimitReader(hresp.Body, 64<<10))
	code := hresp.StatusCode
	switch {
	case code == http.StatusUnauthorized || code == http.StatusForbidden:
		return sqlgym.Userf("set the key in OPENAI_API_KEY, or name the variable that holds it with --api-key-env",
			"model server %s refused the API key (GET /models: %s): %s", c.base, statusLine(code), readableBody(data, contentType(hresp)))
	case code >= 500:
		return sqlgym.Userf(fmt.Sprintf("the server at %s is up but failing: read its log, wait until it has loaded the model (curl %s/models), then run again", c.base, c.base),
			"model server %s fails (GET /models: %s): %s", c.base, statusLine(code), readableBody(data, contentType(hresp)))
	}
	return nil
}
