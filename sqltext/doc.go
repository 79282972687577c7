// Package sqltext answers the few structural questions sqlgym asks of SQL
// text: where its tokens are, whether the outermost query orders its rows,
// how many statements it holds, what its canonical form is, and how the
// public Spider scorer rewrites it before running it.
//
// It is a tokenizer, not a parser, on purpose. sqlgym runs SQL written for
// SQLite, PostgreSQL and DuckDB, and no Go parser accepts all three
// dialects: a grammar-based parser for one of them rejects or misreads valid
// queries of the others (DuckDB list literals, PostgreSQL casts and dollar
// quoting, SQLite bracket identifiers), and a rejected gold would turn a
// correct answer into an error. Every question asked here only needs to know
// what is code and what is a string, an identifier or a comment, plus the
// parenthesis depth, which a careful tokenizer gets right for all three
// dialects at once. The engines themselves remain the judges of validity.
//
// The tokenizer never fails: every byte of the input belongs to exactly one
// token, and concatenating the tokens' text gives the input back. Unclosed
// strings, identifiers and comments run to the end of the input, as the
// engines would read them before reporting the error.
package sqltext
