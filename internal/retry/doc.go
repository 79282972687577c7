// Package retry owns sqlgym's one retry policy for calls to model servers
// (the OpenAI-compatible client of package model and the Anthropic teacher
// of package author/teacher): which failures are worth another attempt
// (408, 409, 429 and 5xx but 501/505, and lost connections), how long to
// wait (capped exponential backoff with jitter, or the server's
// Retry-After, itself capped), and a wait that ends with its context.
//
// Callers keep their own loops, since each classifies its transport's
// errors differently; the decisions those loops make come from here, so
// the two clients cannot drift apart again.
package retry
