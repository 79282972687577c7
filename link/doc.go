// Package link is schema linking: for a question on a database it keeps
// the tables (and marks the columns) the question is likely to need, so a
// prompt on a wide database shows a small model the part of the schema it
// should read instead of all of it.
//
// The linker is lexical and deterministic. Question and evidence words are
// matched against table and column names (split at CamelCase and
// snake_case, stop words dropped, lightly stemmed, multi-word names matched
// as phrases), and question phrases are looked up in an index of each text
// column's distinct values, so "Paris" finds city.name. Tables one foreign
// key away from a strongly linked table are added, a minimum table count is
// kept, and an optional character budget drops whole tables, never half a
// table.
//
// Three modes render a prompt's schema: full (every table), linked (the
// linker's choice) and oracle (exactly the tables the gold query reads,
// parsed from its SQL). Oracle leaks the answer's join structure: it is a
// diagnostic upper bound, refused wherever a model would learn from it.
package link
