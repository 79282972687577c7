// Package baseline is sqlgym's offline policy: a real, weak text-to-SQL
// method that needs no model, so the whole benchmark loop (sample, verify,
// report) runs on any machine. It implements model.Policy.
//
// For a task it retrieves the most similar training question on the same
// database and answers with that question's gold query, its literals
// adapted to the values the new question names:
//
//   - Retrieval is Okapi BM25 (k1 = 1.2, b = 0.75) over the questions,
//     split into lower-case words, with the values a question names
//     (numbers, quoted and capitalised phrases, known database values)
//     replaced by a placeholder of their kind, so "customers from Spain"
//     finds "customers from France". Only training tasks are indexed (a
//     task without a split counts as training); a held-out task is never
//     retrieved, and neither is the task being answered.
//   - Adaptation (adapt.go) replaces the retrieved query's literals that
//     the retrieved question names with the new question's values, in
//     order of appearance and by kind: numbers for numbers, text for text.
//   - At temperature 0 every sample is the best match. Above 0 each sample
//     draws among the TopN best matches by a softmax over BM25 score / T,
//     with a PCG generator seeded from Options.Seed, the task id and the
//     sample's index, so a run is reproducible and resumable.
//
// Retrieve exposes the ranked, adapted matches and the tables each
// retrieved query reads: the seam an agent can build on.
//
// BM25 is written here (bm25.go, about sixty lines) rather than taken from
// a library: the Go full-text engines (bleve and the like) bring an index
// format, analysers and storage for what is a scan over a few hundred short
// questions per database, and the small BM25 packages are unmaintained and
// tokenise in ways this package would have to undo for its value
// placeholders. The formula is the textbook one, tested against scores
// computed by hand.
package baseline
