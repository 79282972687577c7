// Package author builds task sets: a teacher proposes questions with their
// gold SQL, an execution filter keeps the golds that run, return a
// reasonable number of rows and return the same rows twice on fresh
// connections, and duplicates (by normalised SQL or question) are dropped.
//
// The built-in teacher is synth (NewSynthKeys): offline and deterministic by
// seed, it samples SQL from a schema and its foreign-key graph with real
// values read from the data, over eight complexity levels, and words each
// query as an unambiguous question from templates. Model-backed teachers
// plug in through the Teacher interface.
//
// Run drives a teacher through the filter until N tasks are kept, writing
// each kept task as soon as it is kept, so an interrupted run can resume.
// Task ids derive from the database, the level and the normalised SQL, so a
// rerun never renumbers. The execution filter lives in author/goldfilter,
// which variants also uses. A test (shopgen_test.go) regenerates the
// built-in shop task set that shopdb embeds.
package author
