package model

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"
)

// ErrNoRuntimeLoRA is returned by LoadLoRAAdapter when the server has no
// runtime adapter loading (the route answers 404 or 405): vLLM adds it
// only with --enable-lora and VLLM_ALLOW_RUNTIME_LORA_UPDATING=True.
var ErrNoRuntimeLoRA = errors.New("the model server has no runtime LoRA loading")

// loraTimeout bounds one load: vLLM reads the adapter's weights from disk
// before it answers, which can take minutes for a large adapter.
const loraTimeout = 10 * time.Minute

// LoadLoRAAdapter asks a vLLM server to serve the adapter at path under
// name (POST {base}/load_lora_adapter). It does not check whether the name
// is already served; Models tells that.
func (c *Client) LoadLoRAAdapter(ctx context.Context, name, path string) error {
	body, err := marshal(loadLoRARequest{LoRAName: name, LoRAPath: path})
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, loraTimeout)
	defer cancel()
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+"/load_lora_adapter", bytes.NewReader(body))
	if err != nil {
		return err
	}
	c.setHeaders(hreq)
	hreq.Header.Set("Content-Type", "application/json")
	hresp, err := c.cfg.HTTPClient.Do(hreq)
	if err != nil {
		return fmt.Errorf("load the LoRA adapter %s at %s: %w", name, c.base, err)
	}
	defer hresp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(hresp.Body, 1<<20))
	if err != nil {
		return fmt.Errorf("load the LoRA adapter %s at %s: %w", name, c.base, err)
	}
	switch hresp.StatusCode {
	case http.StatusOK:
		return nil
	case http.StatusNotFound, http.StatusMethodNotAllowed:
		return fmt.Errorf("POST %s/load_lora_adapter: %d %s: %w", c.base, hresp.StatusCode, http.StatusText(hresp.StatusCode), ErrNoRuntimeLoRA)
	}
	return fmt.Errorf("load the LoRA adapter %s at %s: %d %s: %s", name, c.base, hresp.StatusCode,
		http.StatusText(hresp.StatusCode), readableBody(data, contentType(hresp)))
}
