package model

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// vLLM's runtime LoRA route (vllm/entrypoints/openai: POST
// /v1/load_lora_adapter with {"lora_name", "lora_path"}; 200 with a plain
// text line on success, 400 with an OpenAI error when the path does not
// hold an adapter, 404 when the server was started without
// VLLM_ALLOW_RUNTIME_LORA_UPDATING).
func TestLoadLoRAAdapter(t *testing.T) {
	var (
		mu      sync.Mutex // the handler runs on the server's goroutines
		got     loadLoRARequest
		runtime = true
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		if r.URL.Path != "/v1/load_lora_adapter" || r.Method != http.MethodPost || !runtime {
			http.NotFound(w, r)
			return
		}
		if r.Header.Get("Authorization") != "Bearer k" || r.Header.Get("Content-Type") != "application/json" {
			t.Errorf("headers %v", r.Header)
		}
		if err := json.NewDecoder(r.Body).Decode(&got); err != nil {
			t.Error(err)
		}
		if got.LoRAPath == "/nowhere" {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			w.Write([]byte(`{"object":"error","message":"Loading lora sql failed: No adapter found for /nowhere","type":"BadRequestError","code":400}`))
			return
		}
		w.Write([]byte("Success: LoRA adapter 'sql' added successfully."))
	}))
	defer srv.Close()
	c, err := New(srv.URL+"/v1", WithAPIKey("k"), WithHTTPClient(srv.Client()))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := c.LoadLoRAAdapter(ctx, "sql", "/adapters/sql"); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	sent := got
	mu.Unlock()
	if sent != (loadLoRARequest{LoRAName: "sql", LoRAPath: "/adapters/sql"}) {
		t.Fatalf("sent %+v", sent)
	}
	err = c.LoadLoRAAdapter(ctx, "sql", "/nowhere")
	if err == nil || errors.Is(err, ErrNoRuntimeLoRA) || !strings.Contains(err.Error(), "No adapter found for /nowhere") {
		t.Fatalf("bad path: %v; want the server's message", err)
	}
	mu.Lock()
	runtime = false
	mu.Unlock()
	if err := c.LoadLoRAAdapter(ctx, "sql", "/adapters/sql"); !errors.Is(err, ErrNoRuntimeLoRA) {
		t.Fatalf("no runtime loading: %v; want ErrNoRuntimeLoRA", err)
	}
}
