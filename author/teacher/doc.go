// Package teacher holds the model-backed teachers of `sqlgym author`:
// "openai:MODEL", any OpenAI-compatible chat completions server through
// package model, and "anthropic:MODEL", Anthropic's Messages API through
// the official Go SDK (github.com/anthropics/anthropic-sdk-go/v2).
//
// Both show the model the database's schema as DDL with real sample values
// (schema.Render) and ask for a batch of question/SQL pairs as a JSON array
// of {"question", "sql", "complexity"}, spread over the complexity levels
// the author package defines. The author package's execution filter and
// dedup then decide what is kept, exactly as for the offline synth teacher.
//
// Replies are read leniently and never fatally: a bare JSON array, one
// inside a ```json fence, an object wrapping one array, and the complete
// items of an array cut off by the token limit are all accepted; a reply
// that is none of these is counted as malformed and skipped, and so is an
// item missing its question, SQL or a known complexity. Only a run of
// malformed replies stops the teacher, since the model is then not
// following the instructions.
//
// Retries: the openai teacher relies on package model's policy. For
// anthropic the SDK's own retries are turned off (option.WithMaxRetries(0))
// and the same policy is applied here: 408, 409, 429 and 5xx (529
// overloaded included) and connection failures are retried with jittered
// exponential backoff, a retry-after header replaces the backoff, and after
// the last retry the error is an infrastructure error. The SDK is used
// rather than raw HTTP because it tracks the wire format (content blocks,
// error bodies, headers) and credentials; its cost is about two CPU
// minutes of cold compile, paid once per build cache.
package teacher
