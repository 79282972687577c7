// Package constraints is the one place that knows which constraints a
// database holds: those it declares (primary keys, foreign keys, NOT NULL,
// UNIQUE, from the engine's describe) and those its data and names imply
// where nothing is declared.
//
// Many public databases declare no keys (Spider's SQLite copy, defog's
// files), yet every question over them is asked, and every gold written,
// as if the keys were there. A variant database that breaks such a key
// (an orphan child row, a NULL or duplicated id) turns right answers into
// wrong ones; an equivalence proof that ignores it misses what a reader
// takes for granted; an authoring template that sums an id asks nonsense.
// So variants, screen and author all read the keys from here.
//
// Inference is bounded on big databases: each table's columns are
// profiled on at most SampleRows rows in one statement, and only the
// candidates that pass there (a column unique and never NULL that is named
// or typed like a key; a child column whose sampled values all appear in a
// key and whose name fits the parent) are verified exactly on the whole
// table. Each command infers once per database and run and hands the Set
// to whoever needs it; HoldsOn checks what a variant keeps of it.
package constraints
