// Package model owns sqlgym's side of talking to language models: a client
// for any OpenAI-compatible chat completions server (vLLM, SGLang,
// llama.cpp, Ollama, OpenAI), with bounded concurrency, its own retry and
// backoff policy and errors that tell infrastructure failures from refused
// requests, and the Policy interface the benchmark samples completions
// through. wire.go holds the JSON types; the rest is logic.
//
// It uses net/http rather than the openai-go SDK because the SDK added
// about 70 s of cold compile and 26 MB of binary for one endpoint while the
// parts that matter here (retries, error classification, the servers'
// non-standard fields and n handling) would have been ours anyway. The
// OpenAI chat wire format is small and stable, and owning it lets the
// client decode every server's variant of it (reasoning_content or
// reasoning, error bodies, HTML proxy pages) without workarounds.
package model
