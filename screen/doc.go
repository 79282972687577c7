// Package screen finds weak tasks: tasks whose database cannot tell a
// plausible wrong query from the gold, so that their reward would pay for a
// mistake.
//
// For each gold it writes near-miss mutants, each a small change of
// meaning made on the gold's tokens (sqltext.Tokens), never by pattern
// matching on raw text: a WHERE conjunct dropped, a comparison flipped, a
// sort direction reversed, DISTINCT dropped or added, COUNT(x) against
// COUNT(DISTINCT x), LIMIT off by one, INNER against LEFT JOIN, SUM/AVG and
// MIN/MAX swapped. Each mutant is judged against the gold by the same
// verify.Verifier that computes rewards, under the task's comparison mode.
// A mutant judged correct is a mistake the reward cannot see on this data:
// the task is marked weak and the mutant recorded. Mutants that fail to
// run are fine; they never make a task weak.
//
// Mutants whose only effect is one a mode ignores by design (row order for
// a set-based mode, duplicates for bird and f1, DISTINCT under the
// test-suite mode, which strips it from both queries) are not judged: the
// mode, not the data, hides them.
//
// Equivalent proves, from the schema alone, that some surviving mutants
// mean the same as their gold on every database that meets the schema's
// constraints, so that no data, and no variant database, could kill them
// (equivalent*.go, boundary.go).
package screen
