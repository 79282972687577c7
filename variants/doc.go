// Package variants owns the variant databases that let a reward tell a
// right answer from a near miss: `sqlgym variants`.
//
// For each database of a task set it screens the golds (package screen),
// then fuzzes candidate databases from the original rows, in the manner of
// the distilled test suites of Zhong, Yu and Klein (EMNLP 2020), and keeps
// the few that kill the most surviving mutants, by greedy set cover.
// Where the paper draws values at random, the candidates here are built
// from the golds' own predicates (screen.Compared): rows exactly on and
// next to every literal a gold compares against, copied from rows that
// meet the gold's other conditions; groups of exactly a HAVING threshold's
// size and one either side; namesakes under new keys (which are also
// parents with no children); NULLs in nullable columns; extra child rows
// moved to other parents.
//
// Every change is a SQL statement on the original rows that picks its row
// by key order (planner), so a variant is the original plus a list of
// statements: the manifest records them, and the built-in shop ships its
// variants as such a list (shopdb/variants.json). The statements run
// through sqlite.Edit with foreign keys on, each in its own savepoint, so a
// change that breaks a declared constraint (type affinity aside: NOT
// NULL, UNIQUE, primary and foreign keys, CHECK) is left out.
//
// A candidate must keep every gold that runs deterministically on the
// original running deterministically: each gold goes through the author
// execution filter on two engines over the file, one with SQLite's
// reverse_unordered_selects, so a LIMIT through tied keys or a bare
// column shows as "unstable"; the groups that break a gold are taken out
// by halving (makeCandidate).
package variants
