package model

import (
	"bytes"
	"encoding/json"
	"strings"
)

// The JSON of POST {base}/chat/completions and of GET {base}/models, as the
// OpenAI API defines it and as vLLM, SGLang, llama.cpp and Ollama answer it.
// Nothing here has logic beyond decoding the variants those servers send.

type chatRequest struct {
	Model       string        `json:"model,omitempty"`
	Messages    []wireMessage `json:"messages"`
	N           int           `json:"n,omitempty"`
	Temperature *float64      `json:"temperature,omitempty"`
	TopP        *float64      `json:"top_p,omitempty"`
	Seed        *int          `json:"seed,omitempty"`
	MaxTokens   int           `json:"max_tokens,omitempty"`
	Stop        []string      `json:"stop,omitempty"`
	Tools       []wireTool    `json:"tools,omitempty"`
	ToolChoice  string        `json:"tool_choice,omitempty"`
	// Stream is sent as false on purpose: some servers default to streaming
	// when the field is absent.
	Stream bool `json:"stream"`
}

type wireMessage struct {
	Role string `json:"role"`
	// Content is null only for an assistant turn that just calls tools:
	// OpenAI rejects an empty string there for some models.
	Content    *string        `json:"content"`
	Name       string         `json:"name,omitempty"`
	ToolCalls  []wireToolCall `json:"tool_calls,omitempty"`
	ToolCallID string         `json:"tool_call_id,omitempty"`
}

type wireTool struct {
	Type     string       `json:"type"` // "function"
	Function wireFunction `json:"function"`
}

type wireFunction struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
}

type wireToolCall struct {
	ID       string           `json:"id,omitempty"`
	Type     string           `json:"type"` // "function"
	Function wireFunctionCall `json:"function"`
}

type wireFunctionCall struct {
	Name string `json:"name"`
	// Arguments is a JSON document encoded as a string on the OpenAI wire;
	// a few servers send the object itself, which flexText accepts.
	Arguments flexText `json:"arguments"`
}

type chatResponse struct {
	ID      string       `json:"id"`
	Object  string       `json:"object"`
	Model   string       `json:"model"`
	Choices []wireChoice `json:"choices"`
	Usage   *wireUsage   `json:"usage"`
	// Error is set by servers that report a failure inside a 200 answer.
	Error json.RawMessage `json:"error"`
}

type wireChoice struct {
	Index        int         `json:"index"`
	Message      respMessage `json:"message"`
	FinishReason *string     `json:"finish_reason"`
}

type respMessage struct {
	Role    string   `json:"role"`
	Content flexText `json:"content"`
	// vLLM (older releases), SGLang and llama.cpp name the thinking
	// reasoning_content; Ollama, OpenRouter and newer vLLM name it reasoning.
	ReasoningContent *string        `json:"reasoning_content"`
	Reasoning        *string        `json:"reasoning"`
	ToolCalls        []wireToolCall `json:"tool_calls"`
}

type wireUsage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

type modelList struct {
	Data []struct {
		ID string `json:"id"`
	} `json:"data"`
	// Ollama's native /api/tags shape, in case the base URL points there.
	Models []struct {
		Name string `json:"name"`
	} `json:"models"`
}

// errorEnvelope covers the error bodies seen in practice:
// {"error":{"message":...}} (OpenAI, Ollama, llama.cpp, newer vLLM),
// {"object":"error","message":...} (older vLLM), {"error":"text"} and
// {"detail":...} (FastAPI-based servers such as SGLang).
type errorEnvelope struct {
	Error   json.RawMessage `json:"error"`
	Message string          `json:"message"`
	Detail  json.RawMessage `json:"detail"`
}

type errorObject struct {
	Message string          `json:"message"`
	Type    string          `json:"type"`
	Code    json.RawMessage `json:"code"`
}

// flexText decodes a JSON string, null, an array of {"type":"text","text":...}
// parts, or any other JSON value (kept as its raw text).
type flexText string

func (f *flexText) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case len(b) == 0 || string(b) == "null":
		*f = ""
	case b[0] == '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*f = flexText(s)
	case b[0] == '[':
		var parts []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		if err := json.Unmarshal(b, &parts); err != nil {
			return err
		}
		var sb strings.Builder
		for _, p := range parts {
			sb.WriteString(p.Text)
		}
		*f = flexText(sb.String())
	default:
		*f = flexText(b)
	}
	return nil
}

func (f flexText) MarshalJSON() ([]byte, error) { return json.Marshal(string(f)) }

// loadLoRARequest is the body of vLLM's POST {base}/load_lora_adapter
// (LoadLoRAAdapterRequest; the route exists only when vLLM runs with
// --enable-lora and VLLM_ALLOW_RUNTIME_LORA_UPDATING=True).
type loadLoRARequest struct {
	LoRAName string `json:"lora_name"`
	LoRAPath string `json:"lora_path"`
}
