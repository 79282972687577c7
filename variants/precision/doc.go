// Package precision measures how often variant databases punish a right
// answer, on answers nobody on this project wrote: published Spider dev
// predictions of real text-to-SQL systems.
//
// The corpus itself is never committed (it is other people's data): a
// manifest names each source (repository, commit, path, system, licence),
// Build turns a local copy of those files into sqlgym predictions, and
// the judgments of flipped answers are kept by task id and the SHA-256 of
// the SQL, so anyone holding the sources can audit them. Report joins the
// predictions, two verify runs (without and with --variants) and the
// judgments into precision (wrong answers among flipped ones) with its
// Wilson interval, the causes of the right answers punished, the wrong
// answers caught, and the flips still to judge.
package precision
