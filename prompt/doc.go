// Package prompt is the one prompt renderer: evaluation, the agent and
// every training export render a task through a Renderer (its template on
// the full, linked or oracle schema, each database's schema loaded once),
// so the text a model is trained on and the text it is scored on cannot
// differ. A template is a Go
// text/template file with a "system" and a "user" block; its hash and the
// hash of each rendered prompt are recorded with every sample.
package prompt
