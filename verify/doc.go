// Package verify is the reward: it turns a model's answer to a task into an
// outcome and a reward by running the answer in the task database's sandbox
// and comparing its rows with the gold's under a comparison mode. Every
// command that scores anything (verify, eval, serve) goes through Verifier,
// so evaluation and training rewards cannot drift apart.
//
// With Config.Components the Verifier also scores reward components
// (components.go: partial credit from the rows, schema overlap, whether it
// ran, format, length) on the same rows and SQL, and Weights combine them
// into a reward; the default is the outcome alone.
//
// Extraction of SQL from a completion lives in verify/extract, the
// comparison rules in verify/compare.
package verify
