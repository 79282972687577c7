package model

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestSampleHonouredN(t *testing.T) {
	srv := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, call int, body map[string]any) {
		writeJSON(w, 200, vllmAnswer(int(body["n"].(float64)), "s"))
	})
	c, _ := newTestClient(t, srv.base())
	resp, err := c.Sample(context.Background(), Request{Messages: userAsks}, 4)
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Choices) != 4 || srv.calls() != 1 || srv.body(0)["n"] != 4.0 || c.IgnoresN() {
		t.Fatalf("%d choices from %d calls (n sent %v), ignoresN %v", len(resp.Choices), srv.calls(), srv.body(0)["n"], c.IgnoresN())
	}
	for i, ch := range resp.Choices {
		if ch.Index != i || ch.Content != fmt.Sprintf("s%d", i) {
			t.Errorf("choice %d = %+v", i, ch)
		}
	}
	if resp.Usage.CompletionTokens != 37 || resp.Attempts != 1 {
		t.Errorf("usage %+v attempts %d", resp.Usage, resp.Attempts)
	}
}

// ollamaAnswer answers one choice whatever n asks, as Ollama does; the
// content names the call and the seed it was given.
func ollamaAnswer(call int, body map[string]any) string {
	return fmt.Sprintf(`{"id":"chatcmpl-%d","object":"chat.completion","created":1732900000,"model":"qwen3:0.6b","system_fingerprint":"fp_ollama","choices":[{"index":0,"message":{"role":"assistant","content":"call%d seed%v"},"finish_reason":"stop"}],"usage":{"prompt_tokens":20,"completion_tokens":5,"total_tokens":25}}`,
		call, call, body["seed"])
}

func TestSampleServerIgnoresN(t *testing.T) {
	srv := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, call int, body map[string]any) {
		writeJSON(w, 200, ollamaAnswer(call, body))
	})
	c, _ := newTestClient(t, srv.base())
	resp, err := c.Sample(context.Background(), Request{Messages: userAsks, Seed: Int(100)}, 4)
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Choices) != 4 || srv.calls() != 4 || !c.IgnoresN() {
		t.Fatalf("%d choices from %d calls, ignoresN %v", len(resp.Choices), srv.calls(), c.IgnoresN())
	}
	if srv.body(0)["n"] != 4.0 {
		t.Errorf("first request asked n=%v", srv.body(0)["n"])
	}
	seeds := map[float64]bool{}
	for i := range srv.calls() {
		b := srv.body(i)
		if i > 0 && b["n"] != 1.0 {
			t.Errorf("follow-up request %d asked n=%v", i, b["n"])
		}
		seeds[b["seed"].(float64)] = true
	}
	if len(seeds) != 4 || !seeds[100] || !seeds[103] {
		t.Errorf("seeds sent = %v, want 100..103", seeds)
	}
	texts := map[string]bool{}
	for i, ch := range resp.Choices {
		texts[ch.Content] = true
		if ch.Index != i || ch.PromptTokens != 20 || ch.CompletionTokens != 5 {
			t.Errorf("choice %d = %+v", i, ch)
		}
	}
	if len(texts) != 4 || resp.Usage != (Usage{PromptTokens: 80, CompletionTokens: 20}) || resp.Attempts != 4 {
		t.Errorf("texts %v usage %+v attempts %d", texts, resp.Usage, resp.Attempts)
	}

	// The client remembers: the next call goes one at a time from the start.
	resp, err = c.Sample(context.Background(), Request{Messages: userAsks}, 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Choices) != 3 || srv.calls() != 7 {
		t.Fatalf("second sample: %d choices, %d calls in all", len(resp.Choices), srv.calls())
	}
	for i := 4; i < 7; i++ {
		if b := srv.body(i); b["n"] != 1.0 {
			t.Errorf("request %d asked n=%v", i, b["n"])
		}
	}
}

func TestSampleServerRefusesN(t *testing.T) {
	// llama.cpp refuses n != 1 with this body (status 500 in the releases
	// that throw it from the OpenAI-compat parser).
	srv := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, call int, body map[string]any) {
		if body["n"] != 1.0 {
			writeJSON(w, 500, `{"error":{"code":500,"message":"Only one completion choice is allowed","type":"server_error"}}`)
			return
		}
		writeJSON(w, 200, `{"choices":[{"finish_reason":"stop","index":0,"message":{"role":"assistant","reasoning_content":"think","content":"SELECT 1;"}}],"created":1732900000,"model":"gpt-3.5-turbo","system_fingerprint":"b5000-abc","object":"chat.completion","usage":{"completion_tokens":4,"prompt_tokens":20,"total_tokens":24},"id":"chatcmpl-x","timings":{"prompt_n":20,"predicted_n":4}}`)
	})
	c, sleeps := newTestClient(t, srv.base())

	_, err := c.Chat(context.Background(), Request{Messages: userAsks, N: 2})
	if err == nil || IsInfra(err) || !strings.Contains(err.Error(), "one choice per request") || srv.calls() != 1 {
		t.Fatalf("Chat with n=2: err %v after %d calls", err, srv.calls())
	}

	resp, err := c.Sample(context.Background(), Request{Messages: userAsks}, 4)
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Choices) != 4 || resp.Choices[3].Reasoning != "think" || !c.IgnoresN() {
		t.Errorf("%d choices, ignoresN %v", len(resp.Choices), c.IgnoresN())
	}
	if srv.calls() != 1+1+4 || len(sleeps.waits()) != 0 {
		t.Errorf("%d calls, waits %v: the refusal must not be retried", srv.calls(), sleeps.waits())
	}
}

func TestSampleFailureIsReported(t *testing.T) {
	srv := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, call int, body map[string]any) {
		if call == 1 {
			writeJSON(w, 200, ollamaAnswer(call, body))
			return
		}
		writeJSON(w, 503, `{"error":{"message":"node drained","type":"server_error","code":503}}`)
	})
	c, _ := newTestClient(t, srv.base(), WithMaxRetries(1))
	_, err := c.Sample(context.Background(), Request{Messages: userAsks}, 3)
	if !IsInfra(err) || !strings.Contains(err.Error(), "node drained") {
		t.Errorf("err = %v", err)
	}
	if _, err := c.Sample(context.Background(), Request{Messages: userAsks}, 0); err == nil {
		t.Error("n=0 accepted")
	}
}

func TestConcurrencyBound(t *testing.T) {
	const limit = 3
	var inflight, peak atomic.Int32
	full := make(chan struct{})
	var once sync.Once
	srv := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, call int, body map[string]any) {
		cur := inflight.Add(1)
		defer inflight.Add(-1)
		for {
			p := peak.Load()
			if cur <= p || peak.CompareAndSwap(p, cur) {
				break
			}
		}
		if cur >= limit {
			once.Do(func() { close(full) })
		}
		// Hold until the bound is reached, then a little longer so that a
		// client letting more through would be seen doing it.
		select {
		case <-full:
		case <-time.After(5 * time.Second):
		}
		time.Sleep(20 * time.Millisecond)
		writeJSON(w, 200, ollamaAnswer(call, body))
	})
	c, _ := newTestClient(t, srv.base(), WithConcurrency(limit))
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 4 {
		wg.Go(func() {
			if _, err := c.Chat(context.Background(), Request{Messages: userAsks}); err != nil {
				errs <- err
			}
		})
	}
	// Sample's parallel one-choice requests share the same bound.
	wg.Go(func() {
		if _, err := c.Sample(context.Background(), Request{Messages: userAsks}, 8); err != nil {
			errs <- err
		}
	})
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if got := peak.Load(); got != limit {
		t.Errorf("peak in flight = %d, want %d", got, limit)
	}
	if srv.calls() < 4+8 {
		t.Errorf("server saw %d calls", srv.calls())
	}
}

func TestOpenAIPolicyComplete(t *testing.T) {
	srv := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, call int, body map[string]any) {
		n := int(body["n"].(float64))
		var choices []string
		for i := range n {
			finish := "stop"
			if i == 1 {
				finish = "length"
			}
			choices = append(choices, fmt.Sprintf(`{"index":%d,"message":{"role":"assistant","reasoning_content":"r%d","content":"SELECT %d;","tool_calls":[]},"logprobs":null,"finish_reason":"%s","stop_reason":null}`, i, i, i, finish))
		}
		writeJSON(w, 200, `{"id":"chatcmpl-p","object":"chat.completion","created":1732900000,"model":"Qwen/Qwen3-8B","choices":[`+strings.Join(choices, ",")+`],"usage":{"prompt_tokens":50,"total_tokens":80,"completion_tokens":30}}`)
	})
	c, _ := newTestClient(t, srv.base())
	p := NewOpenAIPolicy(c, "", Decoding{
		Temperature: Float(0.6),
		TopP:        Float(0.95),
		MaxTokens:   1024,
		Extra:       map[string]any{"chat_template_kwargs": map[string]any{"enable_thinking": false}},
	})
	if p.Name() != "Qwen/Qwen3-8B" {
		t.Errorf("name %q", p.Name())
	}
	var pol Policy = p
	comps, err := pol.Complete(context.Background(), Prompt{TaskID: "spider-1", Messages: userAsks, Hash: "h1"}, 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(comps) != 3 {
		t.Fatalf("%d completions", len(comps))
	}
	var tokens int
	for i, cp := range comps {
		tokens += cp.CompletionTokens
		want := Completion{Text: fmt.Sprintf("SELECT %d;", i), Reasoning: fmt.Sprintf("r%d", i), FinishReason: "stop", PromptTokens: 50}
		if i == 1 {
			want.FinishReason = FinishLength
		}
		if cp.Text != want.Text || cp.Reasoning != want.Reasoning || cp.FinishReason != want.FinishReason || cp.PromptTokens != 50 || cp.Latency <= 0 {
			t.Errorf("completion %d = %+v", i, cp)
		}
	}
	if tokens != 30 {
		t.Errorf("completion tokens sum to %d, want 30", tokens)
	}
	b := srv.body(0)
	if b["temperature"] != 0.6 || b["top_p"] != 0.95 || b["max_tokens"] != 1024.0 || b["n"] != 3.0 ||
		b["chat_template_kwargs"].(map[string]any)["enable_thinking"] != false {
		t.Errorf("body = %v", b)
	}

	// A failing server: the error names the task and stays an infra error.
	bad := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, call int, body map[string]any) {
		writeJSON(w, 502, `{"error":{"message":"bad gateway","type":"server_error","code":502}}`)
	})
	bc, _ := newTestClient(t, bad.base(), WithMaxRetries(1))
	_, err = NewOpenAIPolicy(bc, "qwen", Decoding{}).Complete(context.Background(), Prompt{TaskID: "spider-2", Messages: userAsks}, 2)
	if !IsInfra(err) || !strings.Contains(err.Error(), "task spider-2") {
		t.Errorf("err = %v", err)
	}
}

func TestRefusesN(t *testing.T) {
	yes := []string{
		"Only one completion choice is allowed",
		"Illegal param: only one completion choice is allowed",
		"Unsupported value: 'n' does not support 4 with this model.",
		"parameter n is not supported",
	}
	no := []string{"Service Unavailable", "The model `n` does not exist.", "Invalid value for 'temperature'", ""}
	for _, s := range yes {
		if !refusesN(s) {
			t.Errorf("refusesN(%q) = false", s)
		}
	}
	for _, s := range no {
		if refusesN(s) {
			t.Errorf("refusesN(%q) = true", s)
		}
	}
}

// BenchmarkChatParallel measures the client's own cost per request against
// a local server that answers at once.
func BenchmarkChatParallel(b *testing.B) {
	answer := vllmAnswer(1, "SELECT ")
	srv := httptestServer(b, answer)
	c, err := New(srv, WithModel("Qwen/Qwen3-8B"))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := c.Chat(context.Background(), Request{Messages: userAsks, Temperature: Float(0)}); err != nil {
				b.Error(err)
				return
			}
		}
	})
}
