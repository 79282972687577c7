// Package compare owns the verifier's rules: pure functions that decide
// whether a predicted result set matches a gold one under a named mode.
//
// It never touches a database. The caller runs both queries, tells the
// package what it cannot know from rows alone (whether the gold has a
// top-level ORDER BY, Spider 2.0's condition columns), and asks for a
// Verdict. Each mode reproduces one public scorer; docs/verifier.md lists
// the exact rules and the quirks kept on purpose.
//
// A gold is canonicalised once with Prepare and then compared with many
// answers; a prepared Gold is read-only and safe for concurrent use.
package compare
