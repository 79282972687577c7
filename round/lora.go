package round

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/sqlgym/sqlgym"
)

// LoRAClient talks to a vLLM server's model list and its runtime LoRA
// endpoint (POST /v1/load_lora_adapter with {"lora_name", "lora_path"},
// enabled by VLLM_ALLOW_RUNTIME_LORA_UPDATING=True and --enable-lora).
type LoRAClient struct {
	BaseURL string // the OpenAI-compatible base, ending in /v1
	APIKey  string
	HTTP    *http.Client
}

func (c *LoRAClient) client() *http.Client {
	if c.HTTP != nil {
		return c.HTTP
	}
	return http.DefaultClient
}

func (c *LoRAClient) do(ctx context.Context, method, path string, body any) (int, []byte, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return 0, nil, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, strings.TrimRight(c.BaseURL, "/")+path, rd)
	if err != nil {
		return 0, nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.APIKey)
	}
	resp, err := c.client().Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return resp.StatusCode, b, err
}

// Served lists the model names the server serves (GET /models).
func (c *LoRAClient) Served(ctx context.Context) ([]string, error) {
	code, b, err := c.do(ctx, http.MethodGet, "/models", nil)
	if err != nil {
		return nil, fmt.Errorf("GET %s/models: %w (is the model server running at %s?)", c.BaseURL, err, c.BaseURL)
	}
	if code != http.StatusOK {
		return nil, fmt.Errorf("GET %s/models: HTTP %d: %.200s", c.BaseURL, code, b)
	}
	var list struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := json.Unmarshal(b, &list); err != nil {
		return nil, fmt.Errorf("GET %s/models: %w", c.BaseURL, err)
	}
	var ids []string
	for _, m := range list.Data {
		ids = append(ids, m.ID)
	}
	return ids, nil
}

// Load loads the adapter at path under name, unless the server already
// serves that name (a resumed round loads nothing twice).
func (c *LoRAClient) Load(ctx context.Context, name, path string) error {
	ids, err := c.Served(ctx)
	if err != nil {
		return err
	}
	for _, id := range ids {
		if id == name {
			return nil
		}
	}
	code, b, err := c.do(ctx, http.MethodPost, "/load_lora_adapter", map[string]string{"lora_name": name, "lora_path": path})
	if err != nil {
		return fmt.Errorf("POST %s/load_lora_adapter: %w", c.BaseURL, err)
	}
	switch {
	case code == http.StatusOK:
		return nil
	case code == http.StatusNotFound || code == http.StatusMethodNotAllowed:
		return sqlgym.Userf("start vLLM with --enable-lora and the environment variable VLLM_ALLOW_RUNTIME_LORA_UPDATING=True, or set serve.command in the round config instead",
			"the model server at %s has no runtime LoRA loading (POST /load_lora_adapter: HTTP %d)", c.BaseURL, code)
	default:
		return fmt.Errorf("POST %s/load_lora_adapter %s: HTTP %d: %.300s", c.BaseURL, name, code, b)
	}
}

// WaitFor waits until the server lists name, for a server command that
// was just started.
func (c *LoRAClient) WaitFor(ctx context.Context, name string, limit time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	for {
		if ids, err := c.Served(ctx); err == nil {
			for _, id := range ids {
				if id == name {
					return nil
				}
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("the server at %s did not list %s within %v: %w", c.BaseURL, name, limit, ctx.Err())
		case <-time.After(2 * time.Second):
		}
	}
}
