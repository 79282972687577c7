package model

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym"
)

func TestChatPlainCompletion(t *testing.T) {
	srv := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, call int, body map[string]any) {
		writeJSON(w, 200, `{"id":"chatcmpl-abc","object":"chat.completion","created":1732900000,"model":"Qwen/Qwen3-8B","choices":[{"index":0,"message":{"role":"assistant","reasoning_content":null,"content":"SELECT count(*) FROM singer;","tool_calls":[]},"logprobs":null,"finish_reason":"stop","stop_reason":null}],"usage":{"prompt_tokens":42,"total_tokens":51,"completion_tokens":9,"prompt_tokens_details":null},"prompt_logprobs":null}`)
	})
	c, sleeps := newTestClient(t, srv.URL, WithAPIKey("sk-test"))
	if c.BaseURL() != srv.URL+"/v1" {
		t.Fatalf("base URL %q, want /v1 appended", c.BaseURL())
	}
	resp, err := c.Chat(context.Background(), Request{Messages: userAsks})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Choices) != 1 {
		t.Fatalf("got %d choices", len(resp.Choices))
	}
	ch := resp.Choices[0]
	if ch.Content != "SELECT count(*) FROM singer;" || ch.FinishReason != FinishStop || ch.Reasoning != "" || ch.Truncated() {
		t.Errorf("choice = %+v", ch)
	}
	if resp.Usage != (Usage{PromptTokens: 42, CompletionTokens: 9}) || ch.PromptTokens != 42 || ch.CompletionTokens != 9 {
		t.Errorf("usage = %+v, choice tokens %d/%d", resp.Usage, ch.PromptTokens, ch.CompletionTokens)
	}
	if resp.ID != "chatcmpl-abc" || resp.Model != "Qwen/Qwen3-8B" || resp.Attempts != 1 || resp.Latency <= 0 || resp.Elapsed < resp.Latency {
		t.Errorf("response = %+v", resp)
	}
	if len(sleeps.waits()) != 0 {
		t.Errorf("slept %v on a success", sleeps.waits())
	}
	if srv.paths[0] != "/v1/chat/completions" {
		t.Errorf("path %q", srv.paths[0])
	}
	h := srv.heads[0]
	if h.Get("Authorization") != "Bearer sk-test" || !strings.HasPrefix(h.Get("Content-Type"), "application/json") {
		t.Errorf("headers = %v", h)
	}
	b := srv.body(0)
	if b["model"] != "Qwen/Qwen3-8B" || b["stream"] != false || b["n"] != 1.0 {
		t.Errorf("body = %v", b)
	}
	for _, k := range []string{"temperature", "top_p", "seed", "max_tokens", "stop", "tools"} {
		if _, ok := b[k]; ok {
			t.Errorf("unset %s was sent: %v", k, b[k])
		}
	}
	msgs := b["messages"].([]any)
	if len(msgs) != 2 || msgs[1].(map[string]any)["content"] != "How many singers are there?" || msgs[0].(map[string]any)["role"] != "system" {
		t.Errorf("messages = %v", msgs)
	}
}

func TestChatSendsFieldsAndExtra(t *testing.T) {
	srv := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, call int, body map[string]any) {
		writeJSON(w, 200, vllmAnswer(4, "q"))
	})
	c, _ := newTestClient(t, srv.base()+"/")
	params := json.RawMessage(`{"type":"object","properties":{"sql":{"type":"string"}},"required":["sql"]}`)
	_, err := c.Chat(context.Background(), Request{
		Messages:    userAsks,
		N:           4,
		Temperature: Float(0),
		TopP:        Float(0.95),
		Seed:        Int(7),
		MaxTokens:   512,
		Stop:        []string{"</sql>", ";\n\n"},
		Tools:       []Tool{{Name: "run_sql", Description: "Run a query", Parameters: params}},
		ToolChoice:  "auto",
		Extra: map[string]any{
			"chat_template_kwargs": map[string]any{"enable_thinking": false},
			"top_k":                20,
			"max_tokens":           256, // Extra wins over the standard field
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	b := srv.body(0)
	want := map[string]any{
		"model":                "Qwen/Qwen3-8B",
		"n":                    4.0,
		"temperature":          0.0,
		"top_p":                0.95,
		"seed":                 7.0,
		"max_tokens":           256.0,
		"stop":                 []any{"</sql>", ";\n\n"},
		"chat_template_kwargs": map[string]any{"enable_thinking": false},
		"top_k":                20.0,
		"tool_choice":          "auto",
		"stream":               false,
	}
	for k, v := range want {
		if !reflect.DeepEqual(b[k], v) {
			t.Errorf("body[%q] = %#v, want %#v", k, b[k], v)
		}
	}
	tools := b["tools"].([]any)
	tool := tools[0].(map[string]any)
	fn := tool["function"].(map[string]any)
	if tool["type"] != "function" || fn["name"] != "run_sql" || fn["description"] != "Run a query" ||
		fn["parameters"].(map[string]any)["required"].([]any)[0] != "sql" {
		t.Errorf("tools = %v", tools)
	}
}

func TestChatSendsToolTurns(t *testing.T) {
	srv := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, call int, body map[string]any) {
		writeJSON(w, 200, vllmAnswer(1, "done"))
	})
	c, _ := newTestClient(t, srv.base())
	msgs := append(append([]sqlgym.Message(nil), userAsks...),
		sqlgym.Message{Role: RoleAssistant, ToolCalls: []sqlgym.ToolCall{{ID: "call_1", Name: "run_sql", Arguments: `{"sql":"SELECT count(*) FROM singer"}`}}},
		sqlgym.Message{Role: RoleTool, ToolCallID: "call_1", Name: "run_sql", Content: "count(*)\n6"},
	)
	if _, err := c.Chat(context.Background(), Request{Messages: msgs}); err != nil {
		t.Fatal(err)
	}
	sent := srv.body(0)["messages"].([]any)
	asst := sent[2].(map[string]any)
	if v, ok := asst["content"]; !ok || v != nil {
		t.Errorf("assistant tool-call turn content = %#v, want null", v)
	}
	call := asst["tool_calls"].([]any)[0].(map[string]any)
	fn := call["function"].(map[string]any)
	if call["id"] != "call_1" || call["type"] != "function" || fn["name"] != "run_sql" || fn["arguments"] != `{"sql":"SELECT count(*) FROM singer"}` {
		t.Errorf("tool call sent as %v", call)
	}
	tool := sent[3].(map[string]any)
	if tool["role"] != "tool" || tool["tool_call_id"] != "call_1" || tool["content"] != "count(*)\n6" || tool["name"] != "run_sql" {
		t.Errorf("tool turn sent as %v", tool)
	}
}

func TestChatDecodesServerVariants(t *testing.T) {
	cases := []struct {
		name   string
		answer string
		want   []Choice
	}{
		{
			name:   "vLLM reasoning_content",
			answer: `{"id":"chatcmpl-1","object":"chat.completion","created":1732900000,"model":"Qwen/Qwen3-8B","choices":[{"index":0,"message":{"role":"assistant","reasoning_content":"The table singer has one row per singer.","content":"SELECT count(*) FROM singer;","tool_calls":[]},"logprobs":null,"finish_reason":"stop","stop_reason":null}],"usage":{"prompt_tokens":30,"total_tokens":50,"completion_tokens":20}}`,
			want:   []Choice{{Content: "SELECT count(*) FROM singer;", Reasoning: "The table singer has one row per singer.", FinishReason: "stop", PromptTokens: 30, CompletionTokens: 20}},
		},
		{
			name:   "Ollama reasoning",
			answer: `{"id":"chatcmpl-310","object":"chat.completion","created":1732900000,"model":"qwen3:0.6b","system_fingerprint":"fp_ollama","choices":[{"index":0,"message":{"role":"assistant","content":"SELECT 1;","reasoning":"Just select one."},"finish_reason":"stop"}],"usage":{"prompt_tokens":12,"completion_tokens":8,"total_tokens":20}}`,
			want:   []Choice{{Content: "SELECT 1;", Reasoning: "Just select one.", FinishReason: "stop", PromptTokens: 12, CompletionTokens: 8}},
		},
		{
			name:   "newer vLLM sends both, reasoning_content null",
			answer: `{"id":"c","object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"x","reasoning":"think","reasoning_content":null},"finish_reason":"stop"}]}`,
			want:   []Choice{{Content: "x", Reasoning: "think", FinishReason: "stop"}},
		},
		{
			name:   "finish_reason length",
			answer: `{"id":"c","object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"SELECT name FROM singer WHERE"},"logprobs":null,"finish_reason":"length","stop_reason":null}],"usage":{"prompt_tokens":10,"completion_tokens":64,"total_tokens":74}}`,
			want:   []Choice{{Content: "SELECT name FROM singer WHERE", FinishReason: "length", PromptTokens: 10, CompletionTokens: 64}},
		},
		{
			name:   "OpenAI tool_calls",
			answer: `{"id":"chatcmpl-B9","object":"chat.completion","created":1732900000,"model":"gpt-4o-mini-2024-07-18","choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_abc123","type":"function","function":{"name":"run_sql","arguments":"{\"sql\": \"SELECT count(*) FROM singer\"}"}},{"id":"call_def456","type":"function","function":{"name":"list_tables","arguments":"{}"}}],"refusal":null,"annotations":[]},"logprobs":null,"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":80,"completion_tokens":30,"total_tokens":110,"prompt_tokens_details":{"cached_tokens":0,"audio_tokens":0},"completion_tokens_details":{"reasoning_tokens":0,"audio_tokens":0,"accepted_prediction_tokens":0,"rejected_prediction_tokens":0}},"service_tier":"default","system_fingerprint":"fp_0ba0d124f1"}`,
			want: []Choice{{FinishReason: "tool_calls", PromptTokens: 80, CompletionTokens: 30, ToolCalls: []sqlgym.ToolCall{
				{ID: "call_abc123", Name: "run_sql", Arguments: `{"sql": "SELECT count(*) FROM singer"}`},
				{ID: "call_def456", Name: "list_tables", Arguments: `{}`},
			}}},
		},
		{
			name:   "arguments sent as an object",
			answer: `{"id":"c","object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"","tool_calls":[{"id":"call_9","function":{"name":"run_sql","arguments":{"sql":"SELECT 1"}}}]},"finish_reason":"tool_calls"}]}`,
			want:   []Choice{{FinishReason: "tool_calls", ToolCalls: []sqlgym.ToolCall{{ID: "call_9", Name: "run_sql", Arguments: `{"sql":"SELECT 1"}`}}}},
		},
		{
			name:   "content as text parts",
			answer: `{"id":"c","object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":[{"type":"text","text":"SELECT "},{"type":"text","text":"2;"}]},"finish_reason":"stop"}]}`,
			want:   []Choice{{Content: "SELECT 2;", FinishReason: "stop"}},
		},
		{
			name:   "n=4 with usage split evenly",
			answer: vllmAnswer(4, "a"),
			want: []Choice{
				{Index: 0, Content: "a0", FinishReason: "stop", PromptTokens: 42, CompletionTokens: 10},
				{Index: 1, Content: "a1", FinishReason: "stop", PromptTokens: 42, CompletionTokens: 9},
				{Index: 2, Content: "a2", FinishReason: "stop", PromptTokens: 42, CompletionTokens: 9},
				{Index: 3, Content: "a3", FinishReason: "stop", PromptTokens: 42, CompletionTokens: 9},
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, call int, body map[string]any) {
				writeJSON(w, 200, tc.answer)
			})
			c, _ := newTestClient(t, srv.base())
			resp, err := c.Chat(context.Background(), Request{Messages: userAsks, N: len(tc.want)})
			if err != nil {
				t.Fatal(err)
			}
			for i := range resp.Choices {
				if resp.Choices[i].Latency <= 0 {
					t.Errorf("choice %d has no latency", i)
				}
				resp.Choices[i].Latency = 0
			}
			if !reflect.DeepEqual(resp.Choices, tc.want) {
				t.Errorf("choices:\n got %+v\nwant %+v", resp.Choices, tc.want)
			}
		})
	}
}

func TestChatRefusedRequests(t *testing.T) {
	cases := []struct {
		name    string
		status  int
		body    string
		models  string
		model   string
		wantMsg []string
		wantHnt string
	}{
		{
			name:    "401 bad key",
			status:  401,
			body:    `{"error":{"message":"Incorrect API key provided: sk-bad. You can find your API key in your account settings.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`,
			wantMsg: []string{"refused the API key", "401 Unauthorized", "Incorrect API key provided"},
			wantHnt: "set OPENAI_API_KEY, or name the variable that holds the key with --api-key-env",
		},
		{
			name:    "403",
			status:  403,
			body:    `{"error":{"message":"You are not allowed to sample from this model","type":"invalid_request_error","param":null,"code":null}}`,
			wantMsg: []string{"forbids", "not allowed to sample"},
			wantHnt: "OPENAI_API_KEY",
		},
		{
			name:    "404 unknown model, server lists its models",
			status:  404,
			body:    `{"object":"error","message":"The model ` + "`gpt-5`" + ` does not exist.","type":"NotFoundError","param":null,"code":404}`,
			models:  `{"object":"list","data":[{"id":"Qwen/Qwen3-8B","object":"model","created":1732900000,"owned_by":"vllm","root":"Qwen/Qwen3-8B","parent":null,"max_model_len":32768},{"id":"sql-lora","object":"model","owned_by":"vllm"}]}`,
			model:   "gpt-5",
			wantMsg: []string{`no model "gpt-5" on the server at`, "it lists: Qwen/Qwen3-8B, sql-lora"},
			wantHnt: "listed names",
		},
		{
			name:    "404 wrong base URL",
			status:  404,
			body:    "404 page not found\n",
			wantMsg: []string{"404 Not Found", "404 page not found"},
			wantHnt: "check the base URL",
		},
		{
			name:    "400 OpenAI error JSON",
			status:  400,
			body:    `{"error":{"message":"Invalid value for 'temperature': must be between 0 and 2.","type":"invalid_request_error","param":"temperature","code":"invalid_value"}}`,
			wantMsg: []string{"rejected the request (400 Bad Request)", "Invalid value for 'temperature': must be between 0 and 2."},
			wantHnt: "fix the request",
		},
		{
			name:    "400 context overflow from vLLM",
			status:  400,
			body:    `{"error":{"message":"This model's maximum context length is 4096 tokens. However, you requested 5000 tokens (1000 in the messages, 4000 in the completion). Please reduce the length of the messages or completion.","type":"BadRequestError","param":null,"code":400}}`,
			wantMsg: []string{"maximum context length is 4096 tokens"},
			wantHnt: "context window",
		},
		{
			name:    "422 FastAPI detail",
			status:  422,
			body:    `{"detail":[{"type":"missing","loc":["body","messages"],"msg":"Field required","input":{}}]}`,
			wantMsg: []string{"422 Unprocessable Entity", "Field required"},
			wantHnt: "fix the request",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, call int, body map[string]any) {
				if strings.HasPrefix(tc.body, "{") {
					writeJSON(w, tc.status, tc.body)
					return
				}
				w.Header().Set("Content-Type", "text/plain; charset=utf-8")
				w.WriteHeader(tc.status)
				w.Write([]byte(tc.body))
			})
			srv.models = tc.models
			c, sleeps := newTestClient(t, srv.base())
			_, err := c.Chat(context.Background(), Request{Model: tc.model, Messages: userAsks})
			if err == nil {
				t.Fatal("no error")
			}
			if srv.calls() != 1 || len(sleeps.waits()) != 0 {
				t.Errorf("a %d was retried: %d calls, sleeps %v", tc.status, srv.calls(), sleeps.waits())
			}
			if IsInfra(err) {
				t.Errorf("a refused request counts as infra: %v", err)
			}
			for _, m := range tc.wantMsg {
				if !strings.Contains(err.Error(), m) {
					t.Errorf("error %q lacks %q", err, m)
				}
			}
			var ue *sqlgym.UserError
			if !errors.As(err, &ue) || !strings.Contains(ue.Hint, tc.wantHnt) {
				t.Errorf("hint = %+v, want one containing %q", ue, tc.wantHnt)
			}
			var me *Error
			if !errors.As(err, &me) || me.Status != tc.status || me.Attempts != 1 {
				t.Errorf("model error = %+v", me)
			}
		})
	}
}

func TestModelsLists(t *testing.T) {
	srv := newFakeServer(t, nil)
	srv.models = `{"object":"list","data":[{"id":"Qwen/Qwen3-8B","object":"model"},{"id":"llama3","object":"model"}]}`
	c, _ := newTestClient(t, srv.base())
	names, err := c.Models(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(names, []string{"Qwen/Qwen3-8B", "llama3"}) {
		t.Errorf("models = %v", names)
	}
}

func TestNewRejectsBadURLs(t *testing.T) {
	cases := map[string]string{
		"http://127.0.0.1:8000":                     "http://127.0.0.1:8000/v1",
		"http://127.0.0.1:8000/":                    "http://127.0.0.1:8000/v1",
		"http://localhost:11434/v1/":                "http://localhost:11434/v1",
		"https://api.openai.com/v1":                 "https://api.openai.com/v1",
		"http://h:8080/v1/chat/completions":         "http://h:8080/v1",
		"http://h:30000/openai/v1?x=1":              "http://h:30000/openai/v1",
		"":                                          "",
		"localhost:8000":                            "",
		"ftp://h/v1":                                "",
		"http://":                                   "",
		"http://h:8000/v1/chat/completions/":        "http://h:8000/v1",
		"  http://127.0.0.1:8000/v1  ":              "http://127.0.0.1:8000/v1",
		"http://[::1]:8000":                         "http://[::1]:8000/v1",
		"https://example.invalid/proxy/v1/":         "https://example.invalid/proxy/v1",
		"http://127.0.0.1:8000/v1/chat/completions": "http://127.0.0.1:8000/v1",
	}
	for in, want := range cases {
		c, err := New(in)
		switch {
		case want == "" && err == nil:
			t.Errorf("New(%q) accepted it as %q", in, c.BaseURL())
		case want != "" && err != nil:
			t.Errorf("New(%q): %v", in, err)
		case want != "" && c.BaseURL() != want:
			t.Errorf("New(%q) base = %q, want %q", in, c.BaseURL(), want)
		}
	}
}

func TestChatRejectsEmptyMessages(t *testing.T) {
	c, _ := newTestClient(t, "http://127.0.0.1:9/v1")
	if _, err := c.Chat(context.Background(), Request{}); err == nil || IsInfra(err) {
		t.Errorf("empty request: err = %v", err)
	}
}

func TestAPIKeyFromEnv(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-default")
	t.Setenv("SQLGYM_TEST_KEY", "sk-named")
	if k, err := APIKeyFromEnv(""); err != nil || k != "sk-default" {
		t.Errorf("default: %q %v", k, err)
	}
	if k, err := APIKeyFromEnv("SQLGYM_TEST_KEY"); err != nil || k != "sk-named" {
		t.Errorf("named: %q %v", k, err)
	}
	if _, err := APIKeyFromEnv("SQLGYM_TEST_KEY_UNSET_XYZ"); err == nil || !strings.Contains(err.Error(), "SQLGYM_TEST_KEY_UNSET_XYZ") {
		t.Errorf("unset named variable: %v", err)
	}
}
