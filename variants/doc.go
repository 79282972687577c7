// Package variants owns the variant databases that let a reward tell a
// right answer from a near miss: `sqlgym variants`.
//
// For each database of a task set it screens the golds (package screen)
// and builds variant databases from the original rows, in the manner of
// the distilled test suites of Zhong, Yu and Klein (EMNLP 2020). Where the
// paper draws values at random, the edits here are built from the golds'
// own predicates (screen.Compared) and aimed at one gold at a time (aims):
// rows exactly on and next to every literal it compares against, copied
// from rows that meet its other conditions; groups resized to a HAVING
// threshold; values moved out of its filter; the runner-up of an ORDER BY
// COUNT(*) LIMIT 1 pushed past the leader; rows tied with a subquery's
// value; namesakes, NULLs, extra child rows; the rows two tables match
// each other by unmatched, moved or matched (edits_joins.go). Each weak
// task's edits are applied alone to the original, kept only if they kill
// one of its surviving mutants, and shrunk to what the kills need; the
// aims are then packed into as few variants as they need (assemble), and
// the slots left
// get candidates fuzzed from every gold's edits at once, kept by greedy
// set cover (fuzz). Aimed variants stay near the original's size; per
// kept variant, the thinning (trim.go) then deletes original rows before
// its edits, which recompute from what is left, and the trim deletes the
// original rows no edit touched after them, each only as far as the kills
// no other variant has and every gold's determinism allow, since the
// original is always judged too and the rows a variant holds are what
// judging on it costs.
//
// A SQLite database with a table of more than a few hundred rows is not
// copied whole: the candidates are built on a base (sample.go), a seeded
// sample of its rows closed under its declared and implied keys, holding
// the rows each gold returns and reads on the original (every SELECT's
// rows meeting its WHERE, first in its ORDER BY), the rows on and beside
// its literals and whole groups near a HAVING threshold, grown until
// every gold runs as deterministically as on the original. Aims, packing,
// fuzzing and the trim then work on tens to hundreds of rows a table, so
// their cost follows the tasks, not the file; what still reads the whole
// original is the screen before and after (the original is always judged)
// and the gold check. The base is the original less rows, rowids kept
// (sqlite.Subset), so each kept variant's statements begin with one
// DELETE per sampled table and a variant is still the original plus
// statements. Mutants still weak and not proved equivalent are listed as
// undistinguished, and still count as weak.
//
// Every change is a SQL statement on the original rows that picks its row
// by key order (planner), so a variant is the original plus a list of
// statements: the manifest records them, and the built-in shop ships its
// variants as such a list (shopdb/variants.json). The planner writes them
// in the target engine's dialect (rowid or ctid for a table without a key,
// typed steps past a column's extreme), SQLite's text unchanged.
//
// An engine layer (target.go) makes the working copies: a SQLite or DuckDB
// database's candidates are copies of its file, a PostgreSQL database's
// are schemas NAME_cK in the same database (postgres.CopySchema), and a
// kept one becomes DIR/NAME/NAME_vK.sqlite, .duckdb, or schema NAME_vK.
// The statements run with the engine's constraints enforced, each change
// all or nothing: on SQLite through sqlite.Edit, with foreign keys on,
// each statement in its own savepoint; on DuckDB (no savepoints) a
// transaction per change group (duckdb.Edit); on PostgreSQL a savepoint
// per group (postgres.EditSchema). A change that breaks a declared
// constraint (type affinity aside on SQLite: NOT NULL, UNIQUE, primary and
// foreign keys, CHECK) is left out. On SQLite the keys and foreign keys
// the data implies (package constraints) are kept as if declared, and so
// is what each column's data shows (no NULL where it has none, no repeated
// name where names never repeat): TEMP triggers on the editing connection
// refuse a statement that breaks them (guard.go), and the planner copies
// rows with fresh values there.
//
// A variant serves every task of its database, but a task's db_variants
// leave out the variants where its own gold depends on tie order, repeats
// a row it never repeats on the original, or (a NOT IN gold) returns no
// row where it returns some on the original (pertask.go): the edit stays
// for the tasks it tests fairly.
//
// A candidate must keep every gold that runs deterministically on the
// original running deterministically: each gold goes through the author
// execution filter on two engines over the candidate (on SQLite one with
// reverse_unordered_selects; on DuckDB one with one thread and one with
// two; on PostgreSQL two sessions), so a LIMIT through tied keys or a bare
// column shows as "unstable"; the groups that break a gold are taken out
// by halving (makeCandidate; pack does the same with aims as units).
package variants
